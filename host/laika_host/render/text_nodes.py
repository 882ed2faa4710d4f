"""CommonMark's HTML output split into tags and text, so the host can add markup to text only.

This reads cmark-gfm's own output, never a page's HTML: there every `<` and `>` in text and in
attribute values is escaped (`&lt;`, `%3C`), so `<[^<>]*>` finds exactly the tags, in one
linear pass. Whatever is added still goes through nh3 afterwards (`html.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^<>]*>")


class Piece(NamedTuple):
    """A tag (`name` set, `closing` for `</x>`) or a run of escaped text (`name` empty)."""

    html: str
    name: str = ""
    closing: bool = False


def pieces(html: str) -> Iterator[Piece]:
    """The tags and text runs of `html`, in order (joining their `html` gives it back)."""
    at = 0
    for match in _TAG.finditer(html):
        if match.start() > at:
            yield Piece(html[at : match.start()])
        yield Piece(match.group(0), match.group(2).lower(), match.group(1) == "/")
        at = match.end()
    if at < len(html):
        yield Piece(html[at:])
