"""Capture: a page's HTML -> a bounded, sanitized Markdown source.

    from laika_host.capture import capture_html, CaptureOptions
    capture = capture_html(html_bytes, "https://example.org/story")

One entry point, one options object. Modules: `decode` (bytes to text), `parse` (a bounded
tree in linear time), `limits` (structure bounds), `prune` (noise), `extract` (main-content
candidates), `boilerplate` (leftover blocks), `lead` (recovered leads), `convert` (nh3 and
URLs), `markdown_writer` (Markdown), `markdown_escape` (page text and URLs safe in Markdown),
`emphasis` (markers that parse), `bounds` (truncation and chunks), `links`, `signals`,
`metadata`, `urls` (normalization and credential stripping), `text` (Markdown to text).
`isolated` runs `capture_html` in a worker process under a deadline: every caller uses it.
"""

from .bounds import TRUNCATION_MARKER, Chunk
from .errors import CaptureError
from .links import OutboundLink
from .models import CAPTURE_VERSION, Capture, CaptureMode, CaptureOptions
from .pipeline import capture_html
from .signals import SIGNALS
from .urls import normalize_url, strip_credentials

__all__ = [
    "CAPTURE_VERSION",
    "SIGNALS",
    "TRUNCATION_MARKER",
    "Capture",
    "CaptureError",
    "CaptureMode",
    "CaptureOptions",
    "Chunk",
    "OutboundLink",
    "capture_html",
    "normalize_url",
    "strip_credentials",
]
