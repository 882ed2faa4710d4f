"""`capture_document`: whatever a URL served or a file holds -> a Capture.

One dispatch for every caller (the CLI, the host's save and add-URL paths, capture jobs), by
content, not by name or Content-Type: a PDF (its `%PDF-` header) goes to `capture_pdf`,
anything else to `capture_html`, which refuses what is not HTML with the reason.
"""

from __future__ import annotations

from .models import Capture, CaptureOptions
from .pdf import capture_pdf, is_pdf
from .pipeline import capture_html


def capture_document(
    data: str | bytes, url: str | None = None, *, options: CaptureOptions | None = None
) -> Capture:
    """Capture a page's HTML or a PDF file."""
    options = options or CaptureOptions()
    if isinstance(data, bytes) and is_pdf(data):
        return capture_pdf(data, url, options=options)
    return capture_html(data, url, options=options)
