"""Reading one value after a secret name: where it ends and whether it is a secret.

A quoted value ends at the first quote no backslash escapes (and that no letter follows:
Markdown writes `\\"` as `\\\\"`); unterminated, it runs to the end of its line. A value
quoted with escaped quotes (`password: \\"x\\"`, as in a JSON string or Markdown) ends at
the next escaped quote. A bare value runs to a space, quote, `<`, `>`, `&`, `;`, `,` or
closing bracket. Either is replaced whole, however long: `Reader` remembers where the last
line and run it found end, so the operators inside one long value cost a lookup each, not
another scan, and values are judged by a bounded prefix (`_values`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._names import Strength
from ._spans import REDACTED, Span
from ._values import WINDOW, generated, ordinary, two_classes

# Spaces a page puts between a name, its operator and its value (`&nbsp;`, `&ensp;`, ...).
PADS = frozenset(" \t\u00a0\u1680\u180e\u202f\u205f\u3000\u200b\u200c\u200d\u2060\ufeff") | {
    chr(code) for code in range(0x2000, 0x200B)
}
_VALUE_RUN = re.compile(r"[^\s\"'<>&;,)\]}]+")
_TRAILING = ".:*`"
MAX_TRAILING = 8
MAX_BACKSLASHES = 64


@dataclass(frozen=True)
class Head:
    """What precedes a value: how secret its name is and how it was written."""

    strength: Strength
    strict: bool  # an assignment (`=`, `:=`, `=>`, a quoted or structured value): any value
    value_at: int
    colon: bool = False


class Reader:
    """Reads values, remembering the end of the last line and run it found: every operator
    inside one long run or line then costs a lookup, not another scan."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._line = (0, -1)
        self._run = (0, 0)

    def line_end(self, at: int) -> int:
        start, end = self._line
        if start <= at <= end:
            return end
        end = self.text.find("\n", at)
        self._line = (at, len(self.text) if end < 0 else end)
        return self._line[1]

    def run_end(self, at: int) -> int:
        start, end = self._run
        if not start <= at < end:
            run = _VALUE_RUN.match(self.text, at)
            self._run = start, end = (at, run.end() if run else at)
        return end

    def value(self, head: Head) -> Span | None:
        """The span to redact after `head`, or None when the value is no secret."""
        text, at = self.text, head.value_at
        if at >= len(text) or text.startswith(REDACTED, at):
            return None
        if text[at] in "\"'":
            return self._quoted(head, at)
        if text[at] == "\\" and text[at + 1 : at + 2] in ('"', "'"):
            return self._quoted(head, at + 1, escaped=True)
        if text[at] == "(":
            return None  # "Password: (optional)": a remark, not a value
        end = _trimmed(text, at, self.run_end(at))
        if end <= at:
            return None
        return (at, end) if _bare_is_secret(head, text, at, end) else None

    def _quoted(self, head: Head, at: int, *, escaped: bool = False) -> Span | None:
        """Inside the quotes; an unterminated value runs to the end of its line. `escaped`:
        the quote at `at` has a backslash before it, and so has the one that closes it."""
        close = self._closing(at, escaped=escaped)
        start, end = at + 1, self.line_end(at) if close is None else close
        if end <= start or self.text[start:end] == REDACTED:
            return None
        if ordinary(self.text[start : min(end, start + 10)], weak=head.strength is Strength.WEAK):
            return None  # `"session": "3"`; short, so ending here scanned little
        return (start, end)

    def _closing(self, at: int, *, escaped: bool = False) -> int | None:
        """The quote that closes the one at `at`: escaped by a backslash as that one is (or
        not), and not followed by a letter or digit (Markdown writes `\\"` as `\\\\"`: the
        string goes on). Escaped, the span ends before the closing quote's backslash."""
        text, quote, line_end = self.text, self.text[at], self.line_end(at)
        search = at + 1
        while (close := text.find(quote, search, line_end)) >= 0:
            if _escaped(text, close) == escaped and not text[close + 1 : close + 2].isalnum():
                return close - escaped
            search = close + 1
        return None


def _escaped(text: str, at: int) -> bool:
    count = 0
    while count < MAX_BACKSLASHES and at - count > 0 and text[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _trimmed(text: str, start: int, end: int) -> int:
    """`end` moved back over closing punctuation (`hunter2.`, `**x**`)."""
    stop = max(start, end - MAX_TRAILING)
    while end > stop and text[end - 1] in _TRAILING:
        end -= 1
    return end


def _bare_is_secret(head: Head, text: str, start: int, end: int) -> bool:
    """After `=` any value is a secret; after a colon (prose) a strong name's value is one
    unless plain words follow it, and a weak name's only when it looks generated and ends
    its phrase. Literals never are, nor small numbers under a weak name."""
    value = text[start : min(end, start + WINDOW)]
    if end - start <= WINDOW and ordinary(value, weak=head.strength is Strength.WEAK):
        return False
    if head.strict:
        return True
    more_words = _more_words(text, end)
    if head.strength is Strength.STRONG:
        return two_classes(value) or not more_words
    return generated(value) and not more_words


def _more_words(text: str, at: int) -> bool:
    """Whether a word follows `at` on its line: the value was part of a sentence."""
    at = skip(text, at, PADS, 8)
    return at < len(text) and text[at].isalnum()


def skip_back(text: str, at: int, chars: str | frozenset[str], limit: int) -> int:
    stop = max(0, at - limit)
    while at > stop and text[at - 1] in chars:
        at -= 1
    return at


def skip(text: str, at: int, chars: str | frozenset[str], limit: int) -> int:
    stop = min(len(text), at + limit)
    while at < stop and text[at] in chars:
        at += 1
    return at
