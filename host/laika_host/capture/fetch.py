"""Fetch a page or a PDF over HTTP for `laika capture URL` and capture jobs (no login).

Every connection goes through `fetch_guard` (the address connected to is checked, at every
redirect, which this module follows itself); see that module for the rule and the way a user
allows an address on their own machine or network.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..addresses import Judge, refusal
from .errors import CaptureError
from .fetch_guard import MAX_REDIRECTS, FetchGuard, Resolver, guarded_transport
from .fetch_guard import system_resolve as _system_resolve
from .pdf import MAGIC_WINDOW, is_pdf
from .urls import strip_credentials

if TYPE_CHECKING:
    import httpx

MAX_FETCH_BYTES = 20 * 1024 * 1024
USER_AGENT = "Mozilla/5.0 (compatible; LaikaCapture/1.0; +https://github.com/laika-host)"
HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "")
PDF_TYPES = ("application/pdf", "application/x-pdf")


def fetch_html(
    url: str,
    *,
    timeout: float = 20.0,
    allow_private: bool = False,
    for_model: bool = False,
    resolve: Resolver | None = None,
    judge: Judge | None = None,
) -> tuple[bytes, str]:
    """(body, final URL after redirects): an HTML page, or a PDF (by its Content-Type, or
    by its `%PDF-` header whatever the type says: many servers send PDFs as
    application/octet-stream). Raises CaptureError with the reason; AddressRefusedError
    (a CaptureError) when the URL, a redirect or a resolved name is an address Laika does
    not fetch (`fetch_guard`). `allow_private`: the user allowed their own machine and
    network for this fetch (never with `for_model`). `resolve` and `judge` stand in for the
    system resolver and the address rule (tests)."""
    import httpx

    guard = FetchGuard(
        url,
        allow_private=allow_private,
        for_model=for_model,
        resolve=resolve or _system_resolve,
        judge=judge or refusal,
    )
    guard.hop(url)
    try:
        with httpx.Client(
            transport=guarded_transport(guard),
            follow_redirects=False,
            trust_env=False,
            timeout=timeout,
            headers={"User-Agent": USER_AGENT},
            event_hooks={"response": [guard.check_response]},
        ) as client:
            request = client.build_request("GET", url)
            for _ in range(MAX_REDIRECTS + 1):
                response = client.send(request, stream=True)
                try:
                    if response.next_request is None:
                        return _read(url, response)
                    request = response.next_request
                finally:
                    response.close()
            raise CaptureError(
                "too_many_redirects",
                f"{strip_credentials(url)} redirected more than {MAX_REDIRECTS} times; "
                "open it in the browser and save the page from there",
            )
    except httpx.InvalidURL as exc:
        raise CaptureError("fetch_failed", f"could not fetch {url}: {exc}") from None
    except httpx.HTTPError as exc:
        raise CaptureError("fetch_failed", f"could not fetch {url}: {exc}") from None


def _read(url: str, response: httpx.Response) -> tuple[bytes, str]:
    """The body of the final response, checked as it arrives (type, size)."""
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
            raise CaptureError("too_large", f"{url} is larger than {MAX_FETCH_BYTES // 2**20} MB")
    _check_type(url, kind, bytes(body[:MAGIC_WINDOW]))
    return bytes(body), str(response.url)


def _check_type(url: str, kind: str, head: bytes) -> None:
    """Refuse what is neither HTML nor a PDF as soon as the first bytes show it."""
    if kind in HTML_TYPES or kind in PDF_TYPES or is_pdf(head):
        return
    raise CaptureError("not_html", f"{url} is {kind}, neither an HTML page nor a PDF")
