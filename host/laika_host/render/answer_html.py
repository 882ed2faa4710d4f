"""An answer's Markdown as safe HTML with its `[n]` markers made citation links or flags.

Marker `[n]` names the reply's n-th citation (as `agent/verify.py` maps them). A verified
citation with an http(s) locator (its `#:~:text=` URL) becomes
`<a class="citation" href="locator">[n]</a>`; any other marker (unverified, rejected, or naming
no citation) becomes `<span class="citation-unverified">[n]</span>`, so it never looks checked.
Markers are replaced in text only, outside code and links, before the sanitizer runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..agent.verify import state_of
from .html import markdown_to_annotated_html
from .text_nodes import pieces

_MARKER = re.compile(r"\[(\d{1,3})\]")
_LITERAL = frozenset({"code", "pre", "a"})
"""Inside these a marker stays text: code shows what was written, and links do not nest."""
_JUMP = re.compile(r"https?://[^#]*#:~:text=", re.IGNORECASE)
"""A locator as `verify.text_fragment_url` builds it: a web page and a text directive."""


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
    return markdown_to_annotated_html(markdown, lambda html: _link_markers(html, hrefs))


def _link_markers(html: str, hrefs: list[str | None]) -> str:
    def marker(match: re.Match[str]) -> str:
        number = int(match.group(1))
        href = hrefs[number - 1] if 1 <= number <= len(hrefs) else None
        if href is None:
            return f'<span class="citation-unverified">[{number}]</span>'
        return f'<a class="citation" href="{escape(href, quote=True)}">[{number}]</a>'

    out: list[str] = []
    literal = 0
    for piece in pieces(html):
        if piece.name in _LITERAL:
            literal = max(0, literal + (-1 if piece.closing else 1))
        elif not piece.name and not literal and "[" in piece.html:
            out.append(_MARKER.sub(marker, piece.html))
            continue
        out.append(piece.html)
    return "".join(out)
