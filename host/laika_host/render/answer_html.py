"""An answer's Markdown as safe HTML with its `[n]` markers made citation links or flags.

Marker `[n]` names the reply's n-th citation (as `agent/verify.py` maps them). A verified
citation with an http(s) locator (its `#:~:text=` URL, or a PDF's `#page=N`) becomes
`<a class="citation" href="locator">[n]</a>`; any other marker (unverified, rejected, or naming
no citation) becomes `<span class="citation-unverified">[n]</span>`, so it never looks checked.

Markers are protected BEFORE CommonMark: a model reply could otherwise make `[1]` a link of its
own (`[1]: https://evil`, `[1](https://evil)`, `[1][x]`). Each `[n]` becomes the sentinel
`\\[` U+E000 `n\\]`: escaped brackets never open, close or label a link, and `\\` is punctuation
as `[` is, so emphasis around a marker parses as before. The private-use U+E000 is stripped
from the model's text first, so after CommonMark every sentinel is one of ours: in code it
turns back into the plain `[n]` the model wrote, in prose into the citation markup. A model
link whose visible text still shows a marker (`[\\[1\\]](https://evil)`) loses its link and
keeps its text, so a marker is only ever a link to its own locator.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape, unescape
from typing import Any

from ..agent.verify import state_of
from .html import markdown_to_annotated_html
from .text_nodes import Piece, pieces

_SENTINEL = "\ue000"
_SOURCE_MARKER = re.compile(r"\[(\d{1,3})\]")
"""A marker as the model writes it (the same shape `agent/verify.py` maps to citations)."""
_SHOWN_MARKER = re.compile(r"\\\[\ue000(\d{1,3})\\\]|\[\ue000?(\d{1,3})\]")
"""A marker in CommonMark's text: our sentinel (escapes kept inside code and autolinks,
resolved elsewhere) or a plain `[n]` the model spelled some other way (`\\[1\\]`, `&#91;`)."""
_URL_MARKER = re.compile(r"(?:%5C)?%5B%EE%80%80(\d{1,3})(?:%5C)?%5D|\[\ue000(\d{1,3})\]")
"""A sentinel inside an attribute: percent-encoded in an href, raw in a code block's class."""
_ANY_MARKER = re.compile(r"\[\d+\]")
_LITERAL = frozenset({"code", "pre"})
"""Inside these a marker stays text: code shows what was written."""
_JUMP = re.compile(r"https?://[^#]*+#(?::~:text=|page=[1-9][0-9]{0,6}\Z)", re.IGNORECASE)
"""A locator as `verify` builds it: a web page and a text directive, or a PDF and its page."""


def citation_state(citation: Mapping[str, Any]) -> str:
    """A citation's state; one stored before `state` existed is derived the same way."""
    state = citation.get("state")
    if isinstance(state, str):
        return state
    return state_of(bool(citation.get("verified")), citation.get("reason"))


def citation_href(citation: Mapping[str, Any]) -> str | None:
    """Where a verified citation links: its locator, when that is an http(s) URL that jumps
    to the quoted words (anything else is not what verification writes: no link)."""
    locator = citation.get("locator")
    if citation_state(citation) != "verified" or not isinstance(locator, str):
        return None
    return locator if _JUMP.match(locator) else None


def answer_to_html(markdown: str, citations: Sequence[Mapping[str, Any]]) -> str:
    """The answer rendered by the safe path, its markers linked or flagged."""
    hrefs = [citation_href(citation) for citation in citations]
    return markdown_to_annotated_html(
        _protect_markers(markdown), lambda html: _annotate(html, hrefs)
    )


def _protect_markers(markdown: str) -> str:
    """Every `[n]` the model wrote as the sentinel; one after an odd run of backslashes is
    escaped text (`\\[1]`) and stays as written."""

    def protect(match: re.Match[str]) -> str:
        start, backslashes = match.start(), 0
        while start - backslashes > 0 and markdown[start - backslashes - 1] == "\\":
            backslashes += 1  # the runs before distinct matches are disjoint: linear
        if backslashes % 2:
            return match.group(0)
        return f"\\[{_SENTINEL}{match.group(1)}\\]"

    markdown = markdown.replace(_SENTINEL, "")
    return _SOURCE_MARKER.sub(protect, markdown)


def _annotate(html: str, hrefs: list[str | None]) -> str:
    """CommonMark's HTML with markers made citation markup and model links around them undone.

    cmark never nests links (CommonMark forbids it), so a link is one flat run of pieces."""
    out: list[str] = []
    link: list[Piece] | None = None
    literal = 0
    for piece in pieces(html):
        if piece.name == "a" and not piece.closing:
            link = [piece]
        elif link is not None and not (piece.name == "a" and piece.closing):
            link.append(piece)
        elif link is not None:
            link.append(piece)
            out.extend(_link(link, hrefs))
            link = None
        else:
            literal = _depth(piece, literal)
            out.append(_piece(piece, literal, hrefs))
    if link is not None:  # unclosed: not cmark's output, but never lose text
        out.extend(_link([*link, Piece("</a>", "a", True)], hrefs))
    return "".join(out).replace(_SENTINEL, "")  # one an entity spelled, not a marker


def _link(link: list[Piece], hrefs: list[str | None]) -> Iterable[str]:
    """A model link as written, or its content alone when its text shows a marker."""
    shown = "".join(_restore(unescape(piece.html)) for piece in link if not piece.name)
    shown = shown.replace(_SENTINEL, "")
    keep = _ANY_MARKER.search(shown) is None
    inner = link if keep else link[1:-1]
    literal = 0
    for piece in inner:
        literal = _depth(piece, literal)
        # inside a kept link every text stays text: links do not nest
        yield _piece(piece, literal + keep, hrefs)


def _depth(piece: Piece, literal: int) -> int:
    if piece.name in _LITERAL:
        return max(0, literal + (-1 if piece.closing else 1))
    return literal


def _piece(piece: Piece, literal: int, hrefs: list[str | None]) -> str:
    if piece.name:
        return _URL_MARKER.sub(_url_marker, piece.html)
    if literal:
        return _restore(piece.html)
    return _SHOWN_MARKER.sub(lambda match: _marker(match, hrefs), piece.html)


def _restore(text: str) -> str:
    """The sentinels in `text` as the plain `[n]` the model wrote."""
    return _SHOWN_MARKER.sub(lambda match: f"[{match.group(1) or match.group(2)}]", text)


def _url_marker(match: re.Match[str]) -> str:
    number = match.group(1)
    return f"%5B{number}%5D" if number else f"[{match.group(2)}]"


def _marker(match: re.Match[str], hrefs: list[str | None]) -> str:
    number = int(match.group(1) or match.group(2))
    href = hrefs[number - 1] if 1 <= number <= len(hrefs) else None
    if href is None:
        return f'<span class="citation-unverified">[{number}]</span>'
    return f'<a class="citation" href="{escape(href, quote=True)}">[{number}]</a>'
