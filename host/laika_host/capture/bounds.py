"""Bounding and chunking of captured Markdown, always on block boundaries.

A block is a paragraph, a whole fenced code block or a whole table: cuts never fall inside a
fence or a table. Over `max_chars`, the capture keeps its head, evenly spaced parts of the
middle and its tail, with a visible marker where text was left out.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

TRUNCATION_MARKER = "[Truncated: captured partial content]"
PAGE_MARKER = re.compile(r"^\[Page ([1-9][0-9]{0,6})\]$", re.MULTILINE)
"""A PDF page starts here (`[Page 3]`, a block of its own). Page text is escaped, and an
escaped block never reads `[Page N]` (its closing bracket is escaped), so only capture's own
markers match."""
HEAD_SHARE = 0.5
TAIL_SHARE = 0.2
MIDDLE_PARTS = 3
_FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})")
_HEADING = re.compile(r"^#{1,6}\s")


MARKER_ROOM = 16
"""Room a PDF chunk keeps for a repeated page marker (`[Page 1234567]` and a blank line)."""


def page_marker(number: int) -> str:
    """The block that opens page `number` of a PDF source (see PAGE_MARKER)."""
    return f"[Page {number}]"


def blocks(markdown: str) -> list[str]:
    """Split on blank lines, keeping fenced code blocks and tables whole."""
    out: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        if fence is not None:
            current.append(line)
            if line.startswith(fence) and line.strip() == fence[0] * len(line.strip()):
                fence = None
            continue
        opened = _FENCE_OPEN.match(line)
        if opened:
            fence = opened.group(1)
            current.append(line)
            continue
        if not line.strip():
            if current:
                out.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        out.append("\n".join(current))
    return out


def _join(parts: list[str]) -> str:
    return "\n\n".join(parts)


def _fit(block: str, budget: int) -> str:
    """A block cut to `budget` on a line boundary, re-closing a fence it cuts."""
    if len(block) <= budget:
        return block
    lines = block.split("\n")
    opened = _FENCE_OPEN.match(lines[0])
    closing = opened.group(1) if opened else ""
    kept: list[str] = []
    size = len(closing) + 1 if closing else 0
    for line in lines:
        if size + len(line) + 1 > budget:
            break
        kept.append(line)
        size += len(line) + 1
    if closing and kept and kept[-1] != closing:
        kept.append(closing)
    return "\n".join(kept)


def _take(parts: list[str], budget: int) -> list[str]:
    taken: list[str] = []
    used = 0
    for part in parts:
        cost = len(part) + (2 if taken else 0)
        if used + cost > budget:
            if not taken and budget > 0:
                taken.append(_fit(part, budget))
            break
        taken.append(part)
        used += cost
    return taken


def truncate(markdown: str, max_chars: int) -> tuple[str, bool]:
    """(bounded markdown, whether anything was cut): head + middle parts + tail, with markers."""
    if len(markdown) <= max_chars:
        return markdown, False
    parts = blocks(markdown)
    separator = f"\n\n{TRUNCATION_MARKER}\n\n"
    room = max(0, max_chars - len(separator) * (MIDDLE_PARTS + 1))
    head = _take(parts, int(room * HEAD_SHARE))
    rest = parts[len(head) :]
    tail = _take(rest[::-1], int(room * TAIL_SHARE))[::-1]
    pool = rest[: len(rest) - len(tail)]
    pieces = [head]
    each = int(room * (1 - HEAD_SHARE - TAIL_SHARE) / MIDDLE_PARTS)
    next_free = 0
    for k in range(MIDDLE_PARTS):
        start = max(next_free, (k + 1) * len(pool) // (MIDDLE_PARTS + 1))
        piece = _take(pool[start:], each)
        if piece:
            pieces.append(piece)
            next_free = start + len(piece)
    pieces.append(tail)
    pieces = [piece for piece in pieces if piece]
    out = separator.join(_join(piece) for piece in pieces)
    while len(out) > max_chars and len(pieces) > 2:
        del pieces[len(pieces) // 2]  # drop a middle part rather than cut inside a block
        out = separator.join(_join(piece) for piece in pieces)
    return out, True


@dataclass(frozen=True)
class Chunk:
    index: int
    count: int
    markdown: str

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def chunk(markdown: str, chunk_size: int, max_chunks: int) -> list[Chunk]:
    """Chunks of at most `chunk_size` characters, split at headings and PDF page markers
    (so a PDF's chunks start on page boundaries), then at paragraphs. A PDF chunk that starts
    inside a page opens with that page's marker again, so every chunk names its pages."""
    if not markdown:
        return []
    paged = PAGE_MARKER.search(markdown) is not None
    if paged:
        chunk_size -= MARKER_ROOM
    pieces: list[str] = []
    current: list[str] = []
    for section in _sections(markdown):
        section_text = _join(section)
        if current and len(_join([*current, section_text])) <= chunk_size:
            current.append(section_text)
            continue
        if current:
            pieces.append(_join(current))
            current = []
        if len(section_text) <= chunk_size:
            current = [section_text]
            continue
        for block in section:  # a section too long for one chunk: split by paragraphs
            fitted = _fit(block, chunk_size)
            if current and len(_join([*current, fitted])) > chunk_size:
                pieces.append(_join(current))
                current = []
            current.append(fitted)
    if current:
        pieces.append(_join(current))
    pieces = pieces[:max_chunks]
    if paged:
        pieces = _with_page_markers(pieces)
    return [Chunk(i, len(pieces), text) for i, text in enumerate(pieces, start=1)]


def _sections(markdown: str) -> list[list[str]]:
    """Blocks grouped into sections, each opened by a heading or a PDF page marker."""
    sections: list[list[str]] = []
    for block in blocks(markdown):
        if _HEADING.match(block) or PAGE_MARKER.match(block) or not sections:
            sections.append([block])
        else:
            sections[-1].append(block)
    return sections


def _with_page_markers(pieces: list[str]) -> list[str]:
    """Each piece that starts inside a page opens with the marker of the page it is on."""
    out: list[str] = []
    page: str | None = None
    for piece in pieces:
        opened = piece
        if page is not None and not PAGE_MARKER.match(piece.split("\n", 1)[0]):
            opened = _join([page, piece])
        markers = PAGE_MARKER.findall(piece)
        page = page_marker(int(markers[-1])) if markers else page
        out.append(opened)
    return out
