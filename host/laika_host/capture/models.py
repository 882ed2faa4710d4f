"""What capture takes (CaptureOptions) and what it returns (Capture)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..defaults import CAPTURE_MAX_CHARS
from .bounds import Chunk
from .errors import CaptureError
from .links import OutboundLink

CaptureMode = Literal["auto", "article", "list", "selection", "full"]
MODES: tuple[CaptureMode, ...] = ("auto", "article", "list", "selection", "full")
CAPTURE_VERSION = 1
"""Bumped when the same page would capture differently; stored with every source."""


@dataclass(frozen=True)
class CaptureOptions:
    """How to capture: `mode` auto picks article or list; selection converts the given
    fragment as is; full keeps the whole pruned page."""

    max_chars: int = CAPTURE_MAX_CHARS
    mode: CaptureMode = "auto"
    include_links: bool = True
    include_images: bool = True
    chunk_size: int = 8_000
    max_chunks: int = 6

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise CaptureError("bad_option", f"mode must be one of {', '.join(MODES)}")
        if self.max_chars < 200:
            raise CaptureError("bad_option", "max_chars must be at least 200")
        if not self.chunk_size >= 200:
            raise CaptureError("bad_option", "chunk_size must be at least 200")
        if self.max_chunks < 1:
            raise CaptureError("bad_option", "max_chunks must be at least 1")


@dataclass
class Capture:
    """A page as a bounded, sanitized Markdown source."""

    title: str | None
    byline: str | None
    published: str | None
    language: str | None
    canonical_url: str | None
    url: str | None
    normalized_url: str | None
    markdown: str
    text: str
    truncated: bool
    chunks: list[Chunk]
    extracted_links: list[OutboundLink]
    signals: list[str]
    content_hash: str
    extractor: str
    encoding: str | None = None
    capture_version: int = CAPTURE_VERSION
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "byline": self.byline,
            "published": self.published,
            "language": self.language,
            "canonical_url": self.canonical_url,
            "url": self.url,
            "normalized_url": self.normalized_url,
            "markdown": self.markdown,
            "text": self.text,
            "truncated": self.truncated,
            "chunks": [c.to_json() for c in self.chunks],
            "extracted_links": [link.to_json() for link in self.extracted_links],
            "signals": self.signals,
            "content_hash": self.content_hash,
            "capture_version": self.capture_version,
            "extractor": self.extractor,
            "encoding": self.encoding,
            "timings": self.timings,
        }
