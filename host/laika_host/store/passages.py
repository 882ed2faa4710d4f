"""Passages: a source's stored Markdown cut where its structure allows, for retrieval.

A question is answered by a paragraph, a list or a table, rarely by a whole page: the pack
sends the passages that match (with their neighbours), not the newest pages whole. Cuts:

- a heading starts a new passage, and every passage carries the path of headings above it
  (`Tides > Spring tides`), so a passage read alone still says what it is about;
- blocks (paragraphs, lists, tables, quotes, code fences) are kept whole and gathered until
  a passage holds about `TARGET_CHARS`; a block is never split while it fits `MAX_CHARS`;
- a longer block is cut at line ends, then at sentence ends, then at spaces, so no passage
  is over `MAX_CHARS` whatever the page holds.

Offsets (`start`, `end`) are into the Markdown, so adjacent passages join back into the text
they came from. One pass over the text: the cost is linear in its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..capture.text import markdown_to_text

TARGET_CHARS = 900
"""About 250 tokens: the size peers converge on (a few hundred tokens per chunk)."""
MAX_CHARS = 1_800
"""No passage is longer: a table or list up to this size stays whole."""
HEADING_PATH_CHARS = 300
_HEADING = re.compile(r"(#{1,6})[ \t]+(.*)")
_FENCE = re.compile(r"(`{3,}|~{3,})")
_SENTENCE_END = re.compile("[.!?\u2026][\"'\u201d\u2019)\\]]*[ \t]+")


@dataclass(frozen=True)
class Passage:
    """One passage of a source: where it lies in the Markdown and what it says."""

    ordinal: int
    heading: str
    start: int
    end: int
    markdown: str

    @property
    def text(self) -> str:
        """The words a search indexes (links as their text, no syntax)."""
        return markdown_to_text(self.markdown)


@dataclass
class _Block:
    start: int
    end: int
    heading_level: int = 0
    heading: str = ""


def split_passages(markdown: str) -> list[Passage]:
    """The passages of `markdown`, in order; an empty or blank text has none."""
    passages: list[Passage] = []
    path: list[tuple[int, str]] = []
    run: list[_Block] = []

    def flush() -> None:
        if run:
            _emit(markdown, run, _path_text(path), passages)
            run.clear()

    for block in _blocks(markdown):
        if block.heading_level:
            flush()
            while path and path[-1][0] >= block.heading_level:
                path.pop()
            path.append((block.heading_level, block.heading))
            continue
        size = block.end - block.start
        if run and (block.end - run[0].start > TARGET_CHARS or size > MAX_CHARS):
            flush()
        run.append(block)
        if block.end - run[0].start >= TARGET_CHARS:
            flush()
    flush()
    return passages


def _path_text(path: list[tuple[int, str]]) -> str:
    return " > ".join(title for _, title in path if title)[:HEADING_PATH_CHARS]


def _emit(markdown: str, run: list[_Block], heading: str, passages: list[Passage]) -> None:
    """The run as one passage, or a block too long for one cut into pieces."""
    start, end = run[0].start, run[-1].end
    for piece_start, piece_end in _pieces(markdown, start, end):
        text = markdown[piece_start:piece_end]
        if text.strip():
            passages.append(Passage(len(passages), heading, piece_start, piece_end, text))


def _pieces(markdown: str, start: int, end: int) -> list[tuple[int, int]]:
    """[start, end) in spans of at most MAX_CHARS, cut at the best boundary in each span's
    second half: a line end, else a sentence end, else a space, else anywhere."""
    spans: list[tuple[int, int]] = []
    while end - start > MAX_CHARS:
        cut = _cut(markdown, start + MAX_CHARS // 2, start + MAX_CHARS)
        spans.append((start, cut))
        start = cut
    spans.append((start, end))
    return spans


def _cut(markdown: str, low: int, high: int) -> int:
    line = markdown.rfind("\n", low, high)
    if line > low:
        return line + 1
    ends = [found.end() for found in _SENTENCE_END.finditer(markdown, low, high)]
    if ends:
        return ends[-1]
    space = markdown.rfind(" ", low, high)
    return space + 1 if space > low else high


def _without_closing(title: str) -> str:
    """A heading's text without its closing `#`s (only after a space: `C#` stays)."""
    bare = title.rstrip().rstrip("#")
    return bare if bare == "" or bare[-1] in " \t" else title


def _blocks(markdown: str) -> list[_Block]:
    """Blank-line separated blocks (a code fence is one block, blank lines and all); a
    heading line is a block of its own."""
    blocks: list[_Block] = []
    at, size = 0, len(markdown)
    current: _Block | None = None
    fence = ""
    while at < size:
        newline = markdown.find("\n", at)
        line_end = size if newline < 0 else newline
        line = markdown[at:line_end]
        stripped = line.strip()
        following = line_end + 1 if newline >= 0 else size
        if fence:
            if stripped.startswith(fence):
                fence = ""
            assert current is not None
            current.end = line_end
        elif not stripped:
            current = None
        elif (heading := _HEADING.fullmatch(stripped)) is not None and line.startswith("#"):
            level = len(heading.group(1))
            title = " ".join(_without_closing(heading.group(2)).split())
            blocks.append(_Block(at, line_end, level, markdown_to_text(title)))
            current = None
        else:
            if (opened := _FENCE.match(stripped)) is not None:
                fence = opened.group(1)
            if current is None:
                current = _Block(at, line_end)
                blocks.append(current)
            current.end = line_end
        at = following
    return blocks
