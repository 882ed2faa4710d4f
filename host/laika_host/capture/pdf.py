"""`capture_pdf`: a PDF's text layer as a bounded, redacted Markdown source, like a page.

read (pdf_read: pypdf under limits) -> layout (pdf_layout: headings, paragraphs, `[Page N]`
markers) -> title -> redact -> bound -> chunk (at page markers) -> text, hash. The same
bounds, redaction and signals as `capture_html`, and the same Capture, so the store, search,
packing and citation checks need nothing new; a file without a text layer is refused with
the reason (OCR is out of scope).
"""

from __future__ import annotations

import time

from ..redact import redact_text, redact_url
from .body import is_sparse, stored_body
from .bounds import PAGE_MARKER, TRUNCATION_MARKER, page_marker
from .errors import CaptureError
from .markdown_escape import heading_line
from .models import Capture, CaptureOptions
from .pdf_layout import layout
from .pdf_read import HEAD_PAGES, PdfText, read_pdf

PDF_MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024
"""Readers accept the header anywhere in the first 1,024 bytes; so do we."""
MIN_TEXT_CHARS = 20


def is_pdf(data: bytes | str) -> bool:
    """Whether `data` is a PDF file (its `%PDF-` header in the first 1,024 bytes)."""
    return isinstance(data, bytes) and PDF_MAGIC in data[:MAGIC_WINDOW]


def capture_pdf(data: bytes, url: str | None = None, *, options: CaptureOptions) -> Capture:
    """Capture a PDF's text layer; CaptureError `no_text` when it has none."""
    started = time.perf_counter()
    document = read_pdf(data)
    read_at = time.perf_counter()
    parts, headings = layout(document.pages)
    if sum(len(part) for part in parts if not PAGE_MARKER.match(part)) < MIN_TEXT_CHARS:
        raise _unreadable(document) if document.unreadable else _no_text(document)
    title = document.title or (headings[0] if headings else None)
    if title and not headings:
        parts.insert(0, heading_line(title))
    if document.skipped_pages:
        parts.insert(_split_at(parts), TRUNCATION_MARKER)
    page_url = redact_url(url) if url else url
    body = stored_body("\n\n".join(parts), page_url, options)
    body["truncated"] = body["truncated"] or bool(document.skipped_pages or document.unreadable)
    signals = ["truncated"] if body["truncated"] else []
    if is_sparse(body["text"]):
        signals.append("sparse_text")
    return Capture(
        title=redact_text(title) if title else None,
        byline=redact_text(document.author) if document.author else None,
        published=document.created,
        language=None,
        canonical_url=None,
        url=page_url,
        extracted_links=[],
        signals=signals,
        extractor="pdf",
        timings={
            "read": round((read_at - started) * 1000, 3),
            "layout": round((time.perf_counter() - read_at) * 1000, 3),
        },
        **body,
    )


def _split_at(parts: list[str]) -> int:
    """Where the pages that were not read belong: before the first of the last pages read."""
    marker = page_marker(HEAD_PAGES)
    after = parts.index(marker) + 1 if marker in parts else len(parts)
    return next((i for i in range(after, len(parts)) if PAGE_MARKER.match(parts[i])), after)


def _unreadable(document: PdfText) -> CaptureError:
    first = document.unreadable[0]
    return CaptureError(
        "bad_pdf",
        f"no page of this PDF could be read: page {first.number}: {first.problem}. If it "
        "opens in a viewer, print it to a new PDF and capture that.",
    )


def _no_text(document: PdfText) -> CaptureError:
    pages = f"{document.page_count} page" + ("s" if document.page_count != 1 else "")
    return CaptureError(
        "no_text",
        f"this PDF ({pages}) has no text layer: its pages are images, such as a scan. Laika "
        "reads only the text a PDF carries; OCR is out of scope. Run it through an OCR tool "
        "(for example ocrmypdf) and capture the result.",
    )
