"""A request as words: split once (each word with where it starts in the text, so a name can
be cut from the text as written), lowercased, and with small typos in the words the matcher
knows corrected ("maximun" -> "maximum", "drak" -> "dark", "colection" -> "collection").

Correction is bounded on purpose: only a word the matcher does not know, that is no common
English word, and is close to exactly one known word (one edit, a swap of two neighbours
counting as one, for five letters or more; a swap only for four; two edits from nine). Each
word is compared with each known word at most once, in time bounded by their lengths, so
reading a request stays linear in its length.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@-]*")
TRIM = ".,;:!?)('\"`\u201c\u201d\u2018\u2019-"
MAX_CORRECTED = 24
"""Longer words are never corrected (no keyword is that long)."""

_COMMON = """a about after again all also am an and any are as ask asking at back be been before
    being between both but by can cannot could did do does doing don done each else every
    for from get gets go goes going got had has have having he her here him his how i if in
    into is it its just keep let like made make makes many may me mind might mine more most
    much must my need never new next no nor not now of off on once one only or other our out
    over own please put right same see seem set sets should show so some still such take
    than thank thanks that the their them then there these they thing think this those time
    to too try turn under until up us use used using very want wants was way we well were
    what when where which while who whom why will with without would yes yet you your
    bit big bigger small smaller good nice fine sure okay ok hey hi hello kind kindly
    change changes changed make made move moved mode more node note nice site size side
    sight tight fight light night right bright day days page pages sage cage wage
    lower higher low high word words work works world"""
COMMON = frozenset(_COMMON.split())
"""English words near a keyword ("might" / "light", "made" / "mode") that are never
corrected into one."""


@dataclass(frozen=True)
class Words:
    """`text` split into words: `raw` as written, `words` lowercase (typos corrected),
    `starts[i]` where word i begins in `text`."""

    text: str
    raw: list[str]
    words: list[str]
    starts: list[int]

    def rest(self, index: int) -> str:
        """The text as written from word `index` on ("" past the end)."""
        return self.text[self.starts[index] :] if index < len(self.starts) else ""

    def span(self, start: int, end: int) -> str:
        """The text as written from word `start` up to (not including) word `end`."""
        if start >= len(self.starts) or end <= start:
            return ""
        last = self.starts[end - 1] + len(self.raw[end - 1])
        return self.text[self.starts[start] : last]


def split(text: str, known: frozenset[str]) -> Words:
    """`text` as words; a word not in `known` is corrected to the one known word it is a
    small typo of (see the module)."""
    raw: list[str] = []
    starts: list[int] = []
    for found in WORD.finditer(text):
        word = found.group().rstrip(TRIM)
        if word:
            raw.append(word)
            starts.append(found.start())
    words = [correct(word.lower(), known) for word in raw]
    return Words(text, raw, words, starts)


def correct(word: str, known: frozenset[str]) -> str:
    """`word`, or the one known word it is a typo of."""
    if word in known or word in COMMON or not 4 <= len(word) <= MAX_CORRECTED:
        return word
    if not word.isalpha():
        return word
    return _closest(word, known) or word


@functools.lru_cache(maxsize=4096)
def _closest(word: str, known: frozenset[str]) -> str | None:
    """The one known word nearest `word` within the bound (None: none, or a tie)."""
    bound = 1 if len(word) < 9 else 2
    by_distance: dict[int, list[str]] = {}
    for candidate in known:
        if abs(len(candidate) - len(word)) > bound or candidate[:1] != word[:1]:
            continue
        if len(word) == 4 and not _swapped(word, candidate):
            continue  # four letters: only two neighbours swapped ("drak")
        distance = osa_distance(word, candidate, bound)
        if distance <= bound:
            by_distance.setdefault(distance, []).append(candidate)
    if not by_distance:
        return None
    nearest = by_distance[min(by_distance)]
    return nearest[0] if len(nearest) == 1 else None


def _swapped(word: str, candidate: str) -> bool:
    if len(word) != len(candidate) or sorted(word) != sorted(candidate):
        return False
    differ = [i for i, (a, b) in enumerate(zip(word, candidate, strict=True)) if a != b]
    return len(differ) == 2 and differ[1] == differ[0] + 1


def osa_distance(a: str, b: str, bound: int) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`; any value
    over `bound` is returned as `bound + 1` (the rows stop early)."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    before: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, right in enumerate(b, start=1):
            cost = 0 if left == right else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if before is not None and i > 1 and j > 1 and left == b[j - 2] and a[i - 2] == right:
                best = min(best, before[j - 2] + 1)
            current[j] = best
        if min(current) > bound:
            return bound + 1
        before, previous = previous, current
    return min(previous[-1], bound + 1)


def vocabulary(*groups: Iterable[str]) -> frozenset[str]:
    """The known words: every word of `groups` (a dotted or underscored name counts whole)."""
    return frozenset(word for group in groups for word in group)
