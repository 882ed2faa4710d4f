"""A PDF's positioned lines -> Markdown blocks: headings by font size, paragraphs by spacing,
a `[Page N]` marker before each page.

A PDF has no paragraphs or headings, only glyphs at places, so both are inferred from the
document's own typography rather than fixed numbers: the body size is the size most
characters have, a heading is a short line set clearly larger (the larger, the higher its
level), and a paragraph ends where the gap to the next line is clearly wider than the
document's usual line spacing, where the text moves up (a new column) or where the next line
is indented. Lines repeated at the top or bottom of most pages (running heads, page numbers)
are left out. All text is escaped: a PDF's words stay words in any CommonMark reader.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Iterator

from .bounds import page_marker
from .markdown_escape import escape_text, heading_line
from .pdf_read import Line, Page

HEADING_RATIO = 1.15
"""A line this much larger than the body text is a heading."""
MAX_HEADING_CHARS = 200
MAX_LEVELS = 6
PARAGRAPH_GAP = 1.35
"""A gap this many times the usual line spacing ends a paragraph."""
DEFAULT_SPACING = 1.2
REPEATED_EDGE_LINES = 2
_DIGITS = re.compile(r"\d+")


def layout(pages: list[Page]) -> tuple[list[str], list[str]]:
    """(Markdown blocks, heading texts in order): each page its marker, then its blocks."""
    pages = _without_running_lines(pages)
    lines = [line for page in pages for line in page.lines]
    body = _body_size(lines)
    levels = _heading_levels(lines, body)
    spacing = _line_spacing(lines, body)
    out: list[str] = []
    headings: list[str] = []
    for page in pages:
        out.append(page_marker(page.number))
        for group in _groups(page.lines, levels, spacing):
            text = _joined(line.text for line in group)
            level = levels.get(group[0].size)
            if level is not None:
                headings.append(text)
                out.append(heading_line(text, level))
            else:
                out.append(escape_text(text))
    return out, headings


def _body_size(lines: list[Line]) -> float:
    weights: Counter[float] = Counter()
    for line in lines:
        weights[line.size] += len(line.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def _heading_levels(lines: list[Line], body: float) -> dict[float, int]:
    """Each heading size's level: the largest is 1."""
    sizes = {
        line.size
        for line in lines
        if line.size >= body * HEADING_RATIO
        and len(line.text) <= MAX_HEADING_CHARS
        and sum(char.isalnum() for char in line.text) >= 2
    }
    return {size: min(rank, MAX_LEVELS) for rank, size in enumerate(sorted(sizes)[::-1], 1)}


def _line_spacing(lines: list[Line], body: float) -> float:
    """The usual baseline gap of body lines, as a multiple of the body size."""
    ratios: Counter[float] = Counter()
    for first, second in itertools.pairwise(lines):
        if first.size == second.size == body and body > 0:
            ratio = (first.y - second.y) / body
            if 0.5 < ratio < 3:
                ratios[round(ratio, 1)] += 1
    return ratios.most_common(1)[0][0] if ratios else DEFAULT_SPACING


def _groups(lines: list[Line], levels: dict[float, int], spacing: float) -> Iterator[list[Line]]:
    """Runs of lines that form one paragraph or one heading."""
    group: list[Line] = []
    for line in lines:
        if group and _breaks(group[-1], line, levels, spacing):
            yield group
            group = []
        group.append(line)
    if group:
        yield group


def _breaks(before: Line, line: Line, levels: dict[float, int], spacing: float) -> bool:
    if before.size != line.size and (before.size in levels or line.size in levels):
        return True
    size = max(before.size, line.size, 1.0)
    gap = before.y - line.y
    moved_up = gap < -0.5 * size
    wide = gap > PARAGRAPH_GAP * spacing * size
    indented = line.x - before.x > size and abs(gap) < 2 * spacing * size
    return moved_up or wide or indented


def _joined(texts: Iterable[str]) -> str:
    """Lines into one paragraph; a line that ends in a hyphen joins the next without a space."""
    out = ""
    for text in texts:
        if out.endswith("-") and out[-2:-1].isalpha() and text[:1].isalpha():
            out += text
        else:
            out = f"{out} {text}" if out else text
    return out


def _without_running_lines(pages: list[Page]) -> list[Page]:
    """Pages without the lines that open or close most of them (running heads, numbers);
    a page that holds nothing else keeps them."""
    if len(pages) < 3:
        return pages
    seen: Counter[str] = Counter()
    for page in pages:
        seen.update({_key(line) for line in _edges(page.lines)})
    running = {key for key, count in seen.items() if count >= max(3, len(pages) / 2)}
    if not running:
        return pages
    return [Page(page.number, _kept(page.lines, running) or page.lines) for page in pages]


def _edges(lines: list[Line]) -> list[Line]:
    return lines[:REPEATED_EDGE_LINES] + lines[REPEATED_EDGE_LINES:][-REPEATED_EDGE_LINES:]


def _kept(lines: list[Line], running: set[str]) -> list[Line]:
    edge = {id(line) for line in _edges(lines)}
    return [line for line in lines if id(line) not in edge or _key(line) not in running]


def _key(line: Line) -> str:
    return _DIGITS.sub("#", line.text.casefold())
