"""Emphasis markers that parse as emphasis, or none at all (and code spans that stay apart).

CommonMark decides whether `*`, `**` or `~~` opens or closes from the characters on either
side (`markdown_escape.can_open`). `**Note:**text` is not bold there: it shows its asterisks.
So the writer does not write an emphasis element's markers at once; it returns a `Marked`, and
the parent writes it (`resolve`) once the Markdown on both sides is known, keeping the markers
only where they are sure to parse (else the words alone: the text is what matters).

An element's children are written before the parent knows its final neighbours, so what
stands around an element travels down as an estimate in the writer's flags (`context`):
never better than the truth, so a marker kept on an estimate is right.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .markdown_escape import (
    AMBIGUOUS,
    OTHER,
    PUNCTUATION,
    WHITESPACE,
    can_close,
    can_open,
    char_class,
    escape_text,
    left_flanking,
    right_flanking,
)

_SHIFT = 8  # the bits above the writer's own flags
CONTEXT = 0b111111 << _SHIFT
"""Flag bits: the character classes just before and just after an element's Markdown, and
whether a backtick run may stand there (`TICK_BEFORE`, `TICK_AFTER`)."""
TICK_BEFORE = 1 << (_SHIFT + 4)
TICK_AFTER = 1 << (_SHIFT + 5)
_MARKERS = "*~"
_BACKTICKS = re.compile(r"`+")
_MARKER_RUNS = {"*": re.compile(r"\*+"), "~": re.compile(r"~+")}
HARD_BREAKS = re.compile(r"(?<!\\)((?:\\\\)*)\\\n")
"""A hard line break: a backslash no other backslash escapes, then a newline."""


def context(before: int, after: int, *, ticks: int = 0) -> int:
    """Context bits for these classes; `ticks`: TICK_BEFORE and TICK_AFTER bits to keep."""
    return (before | after << 2) << _SHIFT | ticks & (TICK_BEFORE | TICK_AFTER)


def before_of(flags: int) -> int:
    return flags >> _SHIFT & 3


def after_of(flags: int) -> int:
    return flags >> (_SHIFT + 2) & 3


def inside(flags: int) -> int:
    """The context of the Markdown inside an element that may write markers around it: the
    marker (punctuation) when it does, the outside (whitespace or punctuation) when not."""
    # a backtick run outside stays a neighbour when the markers are left out
    return context(_inner(before_of(flags)), _inner(after_of(flags)), ticks=flags)


def _inner(outside: int) -> int:
    return PUNCTUATION if outside in (WHITESPACE, PUNCTUATION) else OTHER


@dataclass(frozen=True, slots=True)
class Marked:
    """An emphasis element whose markers wait for its neighbours: `before` and `after` are
    the spaces (or line breaks) moved outside them."""

    mark: str
    before: str
    body: str
    after: str

    def written(self, left: Side, right: Side) -> str:
        """The Markdown between what `left` and `right` describe."""
        before = char_class(self.before[-1]) if self.before and left.started else left.kind
        after = char_class(self.after[0]) if self.after and right.started else right.kind
        first, last = self.body[0], self.body[-1]
        if _holds_run(self.body, self.mark):  # (`_marks` keeps no block in a body)
            keep = False
        elif self._alone(left, right, before, after):
            keep = left_flanking(before, first) and right_flanking(last, after)
        else:
            keep = can_open(before, first) and can_close(last, after)
        if keep:
            return f"{self.before}{self.mark}{self.body}{self.mark}{self.after}"
        return f"{self.before}{self.body}{self.after}"

    def _alone(self, left: Side, right: Side, before: int, after: int) -> bool:
        """Whether both marker runs are exactly this element's marks: no marker at the body's
        ends or next to them (text, or a line start or end, on each side).

        Then the runs add up to 2 or 4, never a multiple of 3, so CommonMark's plain
        flanking rules hold: `un**believ**able` and `**Note.**` before a hard break are
        emphasis; `**Note:**text` is not (its closer is not right-flanking). Elsewhere only
        a marker that cannot be read both ways is written (`can_open`, `can_close`).
        """
        if self.body[0] in _MARKERS or self.body[-1] in _MARKERS or left.marker or right.marker:
            return False
        return (left.started or before == WHITESPACE) and (right.started or after == WHITESPACE)


@dataclass(frozen=True, slots=True)
class Code:
    """An inline code span waiting for its neighbours: two spans that touch would merge
    their backtick runs (`` `a``b` `` is one span), so a span next to another is written
    as escaped text instead (the words stay; one loses its code style)."""

    before: str
    body: str
    after: str
    in_link: bool
    in_cell: bool

    @property
    def plain(self) -> str:
        return escape_text(self.body, in_link=self.in_link)

    def written(self, left: Side, right: Side) -> str:
        if (left.tick and not self.before) or (right.tick and not self.after):
            return f"{self.before}{self.plain}{self.after}"
        body = self.body.replace("|", "\\|") if self.in_cell else self.body  # GFM splits cells
        longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
        fence = "`" * (longest + 1)
        if longest or body[-1] == "\\":
            # its own backticks stay inside; a backslash is literal in a span, but before
            # the closing fence it would read as an escape to whatever reads the string
            body = f" {body} "
        return f"{self.before}{fence}{body}{fence}{self.after}"


Deferred = Marked | Code


class Side:
    """What stands on one side of the next part, as parts are read outward from it.

    Until some text is met, that is the element's own edge (`kind` is the context estimate):
    spaces there do not count, since the element's writer may move them further out (a link
    writes ` [*x*]`, not `[ *x*]`). `marker`: what stands there is, or may be, a marker.
    """

    __slots__ = ("kind", "marker", "started", "tick")

    def __init__(self, edge: int, *, tick: bool = False) -> None:
        self.kind = edge
        self.started = False
        self.marker = False
        self.tick = tick  # a backtick run (may) stand there: a code span there would merge

    def passed_left(self, part: str | Deferred) -> None:
        """`part` was written; it now stands on the left of the next one."""
        if isinstance(part, str):
            if part and (self.started or not _is_blank(part)):
                self.started = True
                self.kind = _end_class(part)
                self.marker = self.kind == AMBIGUOUS and part[-1] in _MARKERS
                self.tick = _unescaped_end(part, "`")
            return
        self.started = True
        self.kind = char_class(part.after[-1]) if part.after else AMBIGUOUS
        self.marker = not part.after and isinstance(part, Marked)
        plain = part.body if isinstance(part, Marked) else "`"
        self.tick = not part.after and _unescaped_end(plain, "`")

    def passed_right(self, part: str | Deferred) -> None:
        """`part` stands on the right of the previous one (a `Marked` as if its markers were
        left out: if it keeps them, its own check sees ours and leaves them out)."""
        if isinstance(part, str):
            if part and (self.started or not _is_blank(part)):
                self.started = True
                self.kind = first_class(part)
                self.marker = part[0] in _MARKERS
                self.tick = part[0] == "`"
            return
        self.started = True
        # a span opens with a backtick (punctuation), or as text with its own first character
        plain = part.body if isinstance(part, Marked) else part.plain
        self.kind = char_class(part.before[0]) if part.before else first_class(plain)
        self.marker = not part.before and isinstance(part, Marked)
        self.tick = not part.before and (isinstance(part, Code) or plain[0] == "`")

    def copy(self) -> Side:
        twin = Side(self.kind)
        twin.started, twin.marker, twin.tick = self.started, self.marker, self.tick
        return twin


def _holds_run(body: str, mark: str) -> bool:
    """Whether `body` holds a run of exactly `mark` (page text's markers are escaped, so it
    is a nested element's): `*a *b* c*` reads as two emphases around plain "b"."""
    if mark not in body:
        return False
    return any(
        len(run.group()) == len(mark) and _backslashes_before(body, run.start()) % 2 == 0
        for run in _MARKER_RUNS[mark[0]].finditer(body)
    )


def one_paragraph(body: str) -> bool:
    """Emphasis cannot span blocks: every line break must be a hard break (`\\` newline)."""
    return "\n" not in body or body.count("\n") == len(HARD_BREAKS.findall(body))


def _is_blank(text: str) -> bool:
    return (text[0].isspace() or text[0] == "\\") and not text.replace("\\\n", "").strip()


def resolve(parts: Sequence[str | Deferred], flags: int) -> list[str]:
    """The non-empty parts, each `Marked` written with its markers or without them, each
    `Code` as a code span or as text."""
    if all(isinstance(part, str) for part in parts):
        return [part for part in parts if isinstance(part, str) and part]
    rights = _right_sides(parts, after_of(flags), tick=bool(flags & TICK_AFTER))
    left = Side(before_of(flags), tick=bool(flags & TICK_BEFORE))
    out: list[str] = []
    for part, right in zip(parts, rights, strict=True):
        text = part if isinstance(part, str) else part.written(left, right)
        if text:
            out.append(text)
            left.passed_left(text)
    return out


def _right_sides(parts: Sequence[str | Deferred], edge: int, *, tick: bool) -> list[Side]:
    """For each part, what stands on its right."""
    right = Side(edge, tick=tick)
    sides: list[Side] = []
    for part in reversed(parts):
        sides.append(right.copy())
        right.passed_right(part)
    sides.reverse()
    return sides


def first_class(text: str) -> int:
    """The class of `text`'s first character; a marker counts as AMBIGUOUS, so that no
    marker is written against it (two touching runs would merge into one)."""
    return AMBIGUOUS if text[0] in _MARKERS else char_class(text[0])


def _end_class(text: str) -> int:
    """Like `first_class`, for the last character: a marker no backslash escapes counts."""
    if text[-1] in _MARKERS and _unescaped_end(text, text[-1]):
        return AMBIGUOUS
    return char_class(text[-1])


def _unescaped_end(text: str, char: str) -> bool:
    """Whether `text` ends with `char` and no backslash escapes it."""
    return text[-1:] == char and _backslashes_before(text, len(text) - 1) % 2 == 0


def _backslashes_before(text: str, end: int) -> int:
    start = end
    while start and text[start - 1] == "\\":
        start -= 1
    return end - start
