"""A stored source as reader HTML with a quote marked: what a citation that no longer matches
the live page falls back to.

The quote is found on the rendered text, not on the Markdown (where link targets and escapes
sit between the words), with the same word matching as citation verification (`agent/words`,
`agent/verify.readings`: a quote copied from the Markdown, links and all, is
read as its text): case, Unicode form, punctuation and whitespace are forgiven,
words are not; an elided quote (`a … b`) marks each part, in order. `<mark>` is then put
around the matched text inside each text run it covers (a quote may cross emphasis or a
paragraph), never around tags, so the structure stays as CommonMark wrote it. Each step is one
linear pass; nh3 runs afterwards as on every HTML the host sends.
"""

from __future__ import annotations

from html import escape, unescape

from ..agent.verify import readings
from ..agent.words import WordIndex
from .html import markdown_to_annotated_html
from .text_nodes import Piece, pieces

Span = tuple[int, int]
_INLINE = frozenset({"a", "em", "strong", "code", "span", "mark"})
"""Tags that do not separate words; any other tag (a paragraph, a cell, a line break) does."""


def highlighted_html(markdown: str, quote: str | None) -> tuple[str, bool]:
    """The source's safe HTML with `quote` marked, and whether it was found."""
    found = False

    def mark(html: str) -> str:
        nonlocal found
        if not quote:
            return html
        marked, found = _mark(html, quote)
        return marked

    return markdown_to_annotated_html(markdown, mark), found


def _mark(html: str, quote: str) -> tuple[str, bool]:
    parts = list(pieces(html))
    text, starts = _text_of(parts)
    spans = _find(text, quote)
    if not spans:
        return html, False
    out: list[str] = []
    at = 0  # the first span that may still overlap a later text run
    for piece, start in zip(parts, starts, strict=True):
        if start < 0:
            out.append(piece.html)
            continue
        plain = unescape(piece.html)
        while at < len(spans) and spans[at][1] <= start:
            at += 1
        out.append(_wrap(plain, start, spans, at))
    return "".join(out), True


def _text_of(parts: list[Piece]) -> tuple[str, list[int]]:
    """The rendered text (a line break where a block tag separates words) and where each
    text run starts in it (-1 for tags)."""
    chunks: list[str] = []
    starts: list[int] = []
    length = 0
    for piece in parts:
        if piece.name:
            starts.append(-1)
            if piece.name not in _INLINE:
                chunks.append("\n")
                length += 1
            continue
        plain = unescape(piece.html)
        starts.append(length)
        chunks.append(plain)
        length += len(plain)
    return "".join(chunks), starts


def _find(text: str, quote: str) -> list[Span]:
    """The spans of the quote's parts, found in order, in the first of the quote's readings
    (as written, then as Markdown) whose parts are all there; empty if none is."""
    index = WordIndex(text)
    for parts in readings(quote, as_written=True):
        spans = _spans(index, parts)
        if spans:
            return spans
    return []


def _spans(index: WordIndex, parts: list[list[str]]) -> list[Span]:
    spans: list[Span] = []
    first = 0
    for part in parts:
        found = index.find(part, first)
        if found is None:
            return []
        spans.append(index.span(found, len(part)))
        first = found + len(part)
    return spans


def _wrap(plain: str, start: int, spans: list[Span], at: int) -> str:
    """One text run, escaped, with the parts inside `spans` (from `at` on) in `<mark>`."""
    out: list[str] = []
    cursor = 0
    end = start + len(plain)
    while at < len(spans) and spans[at][0] < end:
        left = max(spans[at][0] - start, cursor)
        right = min(spans[at][1] - start, len(plain))
        out.append(escape(plain[cursor:left], quote=False))
        inside = plain[left:right]
        out.append(f"<mark>{escape(inside, quote=False)}</mark>" if inside.strip() else inside)
        cursor = right
        if spans[at][1] > end:
            break
        at += 1
    out.append(escape(plain[cursor:], quote=False))
    return "".join(out)
