"""What an ellipsis in a quote may leave out of its source, and where a quote's parts are.

An ellipsis is honest when what it leaves out is a whole unit whose loss leaves the kept
words meaning what they meant. So the words between two kept parts (the gap) must be:

- at least MIN_GAP_WORDS words (a quote without one of its words is a changed quote) and at
  most MAX_GAP_WORDS, inside one paragraph;
- whole clauses or whole sentences: the gap starts and ends at a clause or sentence boundary
  of the source (`,` `;` `:` a dash or a bracket, or `.` `!` `?`, each with space around; a
  line break without one may be a wrap inside a sentence, so it is no boundary), and a gap
  that holds a sentence boundary starts and ends at one. So parts
  of two sentences are never spliced into one, and a subject is never joined to another
  clause's object;
- free of words that set the relation of what is kept: a negation or other polarity word
  (`not`, `n't`, `never`, `without`, `unless`, `failed`, `kein`, `ne`/`pas`, `sin`, `geen`,
  `不`...) or a restriction (`only`, `but`, `except`, `however`) is never left out; a
  comparison (`more`, `less`, `than`, `above`, `below`, `before`, `after`, `up`, `down`...)
  is left out only with whole sentences, since inside a sentence it may be what relates the
  kept parts (`rises … 3 metres` without `above`). A gap that holds a number or a date is
  allowed: being a whole unit, it says nothing of the kept words' relation, and the kept
  words' own numbers still match exactly.

Each kept part holds at least MIN_PART_WORDS words. Every check is a table lookup over the
source's words, computed once per source, and a gap is at most MAX_GAP_WORDS long: finding a
quote's parts stays linear in the source.
"""

from __future__ import annotations

import re
from collections.abc import Container, Sequence
from typing import Final

from .words import WordIndex

MIN_PART_WORDS: Final = 3
MIN_GAP_WORDS: Final = 2
MAX_GAP_WORDS: Final = 40
MAX_PARTS: Final = 8

NONE, CLAUSE, SENTENCE, PARAGRAPH = 0, 1, 2, 3
"""How strongly the text between two words separates them."""

_PARAGRAPH: Final = re.compile(r"\n[^\S\n]*\n|[\u2029\f\v]")
_SENTENCE_ALONE: Final = re.compile(
    r"[\u3002\uff01\uff1f\uff61\u061f\u06d4\u0964\u0965]"
)  # a full stop of a script written without spaces; a bare line break may be a soft wrap
_SENTENCE_SPACED: Final = re.compile(r"[.!?…‼⁇⁈⁉]")
_CLAUSE_ALONE: Final = re.compile(
    r"[\u3001\u3008-\u3011\u3014-\u301b\uff08\uff09\uff0c\uff1a\uff1b]"
)  # ideographic and full-width commas, colons and brackets
_CLAUSE_SPACED: Final = re.compile(r"[,;:()\[\]{}\-\u2010-\u2015\u2212\u2e3a\u2e3b\ufe58]")
_SPACE: Final = re.compile(r"\s")
_KNOWN_SEPARATIONS: Final = 4096
_APOSTROPHES: Final = ("'", "\u2019")

FREE, COMPARISON, POLARITY = 0, 1, 2
"""What leaving a word out may do: nothing, change a relation inside its sentence, reverse or
restrict a claim."""

_POLARITY_TEXT: Final = """
    not no nor never neither none nothing nobody noone nowhere cannot without hardly barely
    scarcely seldom rarely except excluding unless absent false instead unlike despite only
    but however although though yet
    nicht nie niemals nichts niemand nirgends ohne weder ausser außer aber jedoch nur
    ne n pas jamais rien aucun aucune sans ni non guère sauf mais seulement plus
    nunca jamás sin nada nadie ningún ninguno ninguna tampoco excepto salvo pero solo sólo
    mai senza nessuno nessuna niente nulla né tranne ma
    não sem nem nenhum nenhuma ninguém exceto só apenas
    niet geen nooit zonder niets noch behalve maar alleen
    inte icke ej aldrig ingen inget inga utan ikke aldri uden intet
    nie nigdy bez żaden ani nikdy ei ilman değil yok hiç
    не нет никогда без ни ничего никто лишь только
    لا لم لن ليس غير بدون לא אין בלי नहीं न बिना
"""
_POLARITY_WORDS: Final = frozenset(_POLARITY_TEXT.split())
_POLARITY_PREFIXES: Final = (
    "kein", "nirgend", "ningun", "nessun", "nenhum", "fail", "lack", "reject", "refus",
    "deny", "deni", "negat",
)  # fmt: skip
_NEGATING_CHARACTERS: Final = frozenset("不没沒无無非未否勿莫")
"""Scripts written without spaces: a negating character anywhere in the run of letters."""

_COMPARISON_TEXT: Final = """
    more less fewer most least than above below over under before after up down higher lower
    larger smaller greater bigger beyond within almost nearly approximately roughly
    mehr weniger moins más menos più meno mais meer minder больше меньше
"""
_COMPARISON_WORDS: Final = frozenset(_COMPARISON_TEXT.split())
_COMPARISON_PREFIXES: Final = ("exceed", "surpass", "outnumber")


def relation(word: str, previous: str = "") -> int:
    """FREE, COMPARISON or POLARITY: what leaving this normalized word out may do to the
    words kept around it (`previous` is the word an apostrophe joins to it: `don` `t`)."""
    if (
        word in _POLARITY_WORDS
        or word.startswith(_POLARITY_PREFIXES)
        or (word == "t" and previous.endswith("n"))
        or word.endswith("n\u02bct")  # `don` U+02BC `t`: a letter, so one word
        or not _NEGATING_CHARACTERS.isdisjoint(word)
    ):
        return POLARITY
    if word in _COMPARISON_WORDS or word.startswith(_COMPARISON_PREFIXES):
        return COMPARISON
    return FREE


def separation(between: str) -> int:
    """The level (NONE .. PARAGRAPH) of the text between two words: punctuation without space
    (`well-known`, `e.g`, `a/b`) joins, the same mark with space separates."""
    if not between or between == " ":
        return NONE
    if _PARAGRAPH.search(between):
        return PARAGRAPH
    spaced = _SPACE.search(between) is not None
    if _SENTENCE_ALONE.search(between) or (spaced and _SENTENCE_SPACED.search(between)):
        return SENTENCE
    if _CLAUSE_ALONE.search(between) or (spaced and _CLAUSE_SPACED.search(between)):
        return CLAUSE
    return NONE


class Gaps:
    """One source's separations and relation words, looked up for each candidate gap."""

    def __init__(self, index: WordIndex) -> None:
        self.index = index
        found = index.words
        known: dict[str, int] = {}
        self.levels = [PARAGRAPH] * len(found)  # levels[i]: between word i and word i + 1
        self.relations = [relation(found[0].text)] if found else []
        for at in range(len(found) - 1):
            between = index.text[found[at].end : found[at + 1].start]
            level = known.get(between)
            if level is None:
                level = separation(between)
                if len(known) < _KNOWN_SEPARATIONS:
                    known[between] = level
            self.levels[at] = level
            joined = found[at].text if between in _APOSTROPHES else ""  # `don` `'` `t`
            self.relations.append(relation(found[at + 1].text, joined))

    def problem(self, kept: int, resumed: int) -> str | None:
        """Why the words between word `kept` and word `resumed` may not be left out, or None."""
        count = resumed - kept - 1
        if count == 0:
            return None
        if count < MIN_GAP_WORDS:
            return (
                f"the ellipsis leaves out one word ({self._shown(kept + 1, kept + 1)}): a "
                "quote without one of its words is a changed quote"
            )
        if count > MAX_GAP_WORDS:
            return (
                f"the ellipsis leaves out {count} words (at most {MAX_GAP_WORDS}): cite the "
                "parts as separate quotes"
            )
        levels = self.levels[kept:resumed]
        if max(levels) >= PARAGRAPH:
            return "the ellipsis leaves out words across paragraphs: cite the parts separately"
        polar = self._first(kept + 1, resumed, POLARITY)
        if polar is not None:
            return f"the ellipsis leaves out {polar}, a negation or restriction: quote it"
        edges, inner = min(levels[0], levels[-1]), max(levels[1:-1], default=NONE)
        if edges < CLAUSE or inner > edges:
            return (
                f"the ellipsis leaves out part of a clause or sentence "
                f"({self._shown(kept + 1, resumed - 1)}): only whole clauses or sentences may "
                "be left out"
            )
        compared = self._first(kept + 1, resumed, COMPARISON) if edges < SENTENCE else None
        if compared is not None:
            return f"the ellipsis leaves out {compared}, a comparison inside a sentence: quote it"
        return None

    def _first(self, first: int, end: int, kind: int) -> str | None:
        """The first word in first..end-1 of this relation kind, shown, or None."""
        for at in range(first, end):
            if self.relations[at] == kind:
                return self._shown(at, at)
        return None

    def _shown(self, first: int, last: int) -> str:
        """The source's words first..last, shortened, for a reason."""
        start, end = self.index.span(first, last - first + 1)
        text = " ".join(self.index.text[start:end].split())
        return repr(text if len(text) <= 80 else text[:77] + "...")

    def predecessor(self, resumed: int, kept: Container[int]) -> int | None:
        """The nearest word in `kept` after which the words up to word `resumed` may be left
        out, or None. Walks back at most MAX_GAP_WORDS words, stopping at the first word or
        separation that no longer allows a gap."""
        end_level, inner = self.levels[resumed - 1], NONE
        worst = self.relations[resumed - 1]  # the strongest relation word left out so far
        if not CLAUSE <= end_level <= SENTENCE or worst == POLARITY:
            return None
        for last_kept in range(resumed - 2, max(resumed - 2 - MAX_GAP_WORDS, -1), -1):
            first_left = last_kept + 1
            if first_left < resumed - 1:
                inner = max(inner, self.levels[first_left])
                worst = max(worst, self.relations[first_left])
                if worst == POLARITY or inner > end_level:
                    return None
                if worst == COMPARISON and end_level < SENTENCE:
                    return None  # a comparison goes only with whole sentences
            start_level = self.levels[last_kept]
            if (
                resumed - first_left >= MIN_GAP_WORDS
                and last_kept in kept
                and CLAUSE <= start_level <= SENTENCE
                and inner <= start_level
                and (worst == FREE or start_level == SENTENCE)
            ):
                return last_kept
        return None


def place(index: WordIndex, gaps: Gaps, parts: Sequence[Sequence[str]]) -> list[int] | None:
    """The first word of each part, in order, every gap one that may be left out; None when
    there is no such placement. Each part's runs are found in one scan, each kept only when
    an allowed gap joins it to a run of the part before (so no placement is missed)."""
    reach = {first + len(parts[0]) - 1: first for first in index.starts(parts[0])}
    back: list[dict[int, int]] = [dict.fromkeys(reach, -1)]  # a run's last word -> the last
    for part in parts[1:]:  # word of the run of the part before it
        if not reach:
            return None
        low, high = min(reach) + 1 + MIN_GAP_WORDS, max(reach) + 1 + MAX_GAP_WORDS
        links: dict[int, int] = {}
        for first in index.starts(part, low, high):
            before = gaps.predecessor(first, reach)
            if before is not None:
                links[first + len(part) - 1] = before
        reach = links
        back.append(links)
    return _trace(parts, back, min(reach)) if reach else None


def _trace(parts: Sequence[Sequence[str]], back: list[dict[int, int]], last: int) -> list[int]:
    firsts: list[int] = []
    for number in range(len(parts) - 1, -1, -1):
        firsts.append(last - len(parts[number]) + 1)
        last = back[number][last]
    return firsts[::-1]


def in_order(index: WordIndex, parts: Sequence[Sequence[str]]) -> list[int] | None:
    """The earliest placement of the parts in order, whatever the gaps (to say what is wrong
    with them)."""
    firsts: list[int] = []
    first = 0
    for part in parts:
        found = index.find(part, first)
        if found is None:
            return None
        firsts.append(found)
        first = found + len(part)
    return firsts
