"""The captured text as stored, whatever it was read from (a page or a PDF): bounded and
redacted, with the plain text, the chunks, the hash and the URL key the store derives from it."""

from __future__ import annotations

import hashlib
from typing import Any

from ..redact import redact_text
from .bounds import chunk, truncate
from .models import CaptureOptions
from .signals import SPARSE_TEXT
from .text import markdown_to_text
from .urls import is_web_url, normalize_url


def stored_body(markdown: str, page_url: str | None, options: CaptureOptions) -> dict[str, Any]:
    """`Capture` fields of the body: `markdown` (cut to `max_chars`, redacted), `text`,
    `truncated`, `chunks`, `content_hash` and `normalized_url`. The text is redacted again
    after the cut, so the store finds both clean."""
    markdown, truncated = truncate(redact_text(markdown), options.max_chars)
    return {
        "markdown": markdown,
        "text": redact_text(markdown_to_text(markdown)),
        "truncated": truncated,
        "chunks": chunk(markdown, options.chunk_size, options.max_chunks),
        "content_hash": hashlib.sha256(markdown.encode("utf-8")).hexdigest(),
        "normalized_url": normalize_url(page_url) if page_url and is_web_url(page_url) else None,
    }


def is_sparse(text: str) -> bool:
    """Too little text to be the page's content (the `sparse_text` signal)."""
    return len(text) < SPARSE_TEXT
