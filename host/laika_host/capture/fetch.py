"""Fetch a page or a PDF over HTTP for `laika capture URL` and capture jobs (no login)."""

from __future__ import annotations

from .errors import CaptureError
from .pdf import MAGIC_WINDOW, is_pdf

MAX_FETCH_BYTES = 20 * 1024 * 1024
USER_AGENT = "Mozilla/5.0 (compatible; LaikaCapture/1.0; +https://github.com/laika-host)"
HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "")
PDF_TYPES = ("application/pdf", "application/x-pdf")


def fetch_html(url: str, *, timeout: float = 20.0) -> tuple[bytes, str]:
    """(body, final URL after redirects): an HTML page, or a PDF (by its Content-Type, or
    by its `%PDF-` header whatever the type says: many servers send PDFs as
    application/octet-stream). Raises CaptureError with the reason."""
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
            body = bytearray()
            checked = False
            for piece in response.iter_bytes():
                body += piece
                if not checked and len(body) >= MAGIC_WINDOW:
                    _check_type(url, kind, bytes(body[:MAGIC_WINDOW]))
                    checked = True
                if len(body) > MAX_FETCH_BYTES:
                    raise CaptureError(
                        "too_large", f"{url} is larger than {MAX_FETCH_BYTES // 2**20} MB"
                    )
            _check_type(url, kind, bytes(body[:MAGIC_WINDOW]))
            return bytes(body), str(response.url)
    except httpx.HTTPError as exc:
        raise CaptureError("fetch_failed", f"could not fetch {url}: {exc}") from None


def _check_type(url: str, kind: str, head: bytes) -> None:
    """Refuse what is neither HTML nor a PDF as soon as the first bytes show it."""
    if kind in HTML_TYPES or kind in PDF_TYPES or is_pdf(head):
        return
    raise CaptureError("not_html", f"{url} is {kind}, neither an HTML page nor a PDF")
