"""Fetch a page over HTTP for `laika capture URL` (pages that need no login)."""

from __future__ import annotations

from .errors import CaptureError

MAX_FETCH_BYTES = 20 * 1024 * 1024
USER_AGENT = "Mozilla/5.0 (compatible; LaikaCapture/1.0; +https://github.com/laika-host)"
HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "")


def fetch_html(url: str, *, timeout: float = 20.0) -> tuple[bytes, str]:
    """(body, final URL after redirects). Raises CaptureError with the reason."""
    import httpx

    try:
        with (
            httpx.Client(
                follow_redirects=True, timeout=timeout, headers={"User-Agent": USER_AGENT}
            ) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code >= 400:
                raise CaptureError(
                    "fetch_failed",
                    f"{url} answered HTTP {response.status_code}; if it needs a login, "
                    "save the page from the browser and capture the file",
                )
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind not in HTML_TYPES:
                raise CaptureError("not_html", f"{url} is {kind}, not an HTML page")
            body = bytearray()
            for piece in response.iter_bytes():
                body += piece
                if len(body) > MAX_FETCH_BYTES:
                    raise CaptureError(
                        "too_large", f"{url} is larger than {MAX_FETCH_BYTES // 2**20} MB"
                    )
            return bytes(body), str(response.url)
    except httpx.HTTPError as exc:
        raise CaptureError("fetch_failed", f"could not fetch {url}: {exc}") from None
