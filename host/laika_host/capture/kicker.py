"""Kicker labels above the article's title, removed from the captured Markdown.

News and blog pages put a short label right above the H1: a section ("Olympia", "Beauty",
"Verband"), a genre ("Review", "Opinion", "Analysis"), a back-link ("Angenehmes Raumklima")
or a stray "Posted on". Kept, it reads as the article's first words, and offline answers
quoted it as evidence. What marks one, on any site: it stands before the title heading at
the top of the content, it is short (a few words, no sentence punctuation), and it is not
part of the title (a title split over two headings keeps both halves).
"""

from __future__ import annotations

import re

from .text import markdown_to_text

MAX_WORDS = 4
MAX_CHARS = 40
_SENTENCE_END = re.compile("[.?!:;,\u2026\\-\u2013\u2014]\\s*$")  # or a title going on below
_NOT_PROSE = ("![", "|", "- ", "* ", "> ", "```", "~~~", "##")


def is_kicker(block: str, heading: str, title: str | None) -> bool:
    """Whether Markdown `block`, just above the title `heading`, is a label."""
    if block.startswith(_NOT_PROSE) or "\n" in block.strip():
        return False
    text = markdown_to_text(block.removeprefix("# ")).strip()
    words = text.split()
    if not words or len(words) > MAX_WORDS or len(text) > MAX_CHARS:
        return False
    if _SENTENCE_END.search(text):
        return False
    return not _continues_title(text, markdown_to_text(heading.removeprefix("# ")), title)


def _continues_title(label: str, heading: str, title: str | None) -> bool:
    """A label that the page's title holds and the heading does not: its first half."""
    if not title:
        return False
    folded = label.casefold()
    return folded in title.casefold() and folded not in heading.casefold()


def without_kickers(parts: list[str], heading_at: int, title: str | None) -> tuple[list[str], int]:
    """`parts` without the labels right above `parts[heading_at]` (images between them
    stay), and the heading's new index. A short H1 right above the title heading is a
    label too ("# Press releases" above "# The story")."""
    heading = parts[heading_at]
    kept_before: list[str] = []
    index = heading_at - 1
    while index >= 0:
        block = parts[index]
        if block.startswith("!["):
            kept_before.insert(0, block)
        elif not is_kicker(block, heading, title):
            break
        index -= 1
    before = parts[: index + 1] + kept_before
    return before + parts[heading_at:], len(before)
