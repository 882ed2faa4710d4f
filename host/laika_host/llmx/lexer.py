"""LLMX tokens, read on demand at a position: one pass, no backtracking.

Beyond Appendix A's grammar, the scanner reads what the spec's own examples write: bare words
as values (`f:Claude`, `s:OK`), operation shortcuts as values (`op:+`, `op:!edit`), tuples
`( ... )` (PLAN), whitespace between tokens, and JSON's escapes inside strings. The only
regexes are anchored single-class runs applied at a position (`match(text, pos)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .errors import LlmxError, position
from .limits import MAX_NUMBER_CHARS, MAX_STRING_CHARS

Kind = Literal["name", "symbol", "string", "number", "punct", "end"]

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
"""Keys, block types and bare words (Appendix A's `key` and `type`)."""
SHORTCUT_CHARS = "+-~?!*@"
"""Section 4.2's operation shortcuts."""
_SYMBOL = re.compile(r"[+\-~?!*@]+[A-Za-z0-9_]*")
_DIGITS = re.compile(r"[0-9]*")
_PLAIN = re.compile(r'[^"\\]*')
_TAIL = re.compile(r"[A-Za-z0-9_.]*")
_SPACE = " \t\r\n"
_PUNCT = "{}[](),:"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True)
class Token:
    kind: Kind
    text: str
    """The token's value: a string's decoded text, a number's or word's own characters."""
    offset: int


class Lexer:
    """Reads tokens from `text` one at a time; errors carry their line and column."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, problem: str, offset: int | None = None) -> LlmxError:
        return LlmxError(problem, at=position(self.text, self.pos if offset is None else offset))

    def skip_space(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in _SPACE:
            pos += 1
        self.pos = pos

    def next(self) -> Token:
        """The next token after any whitespace."""
        self.skip_space()
        start = self.pos
        if start >= len(self.text):
            return Token("end", "", start)
        char = self.text[start]
        if char in _PUNCT:
            self.pos += 1
            return Token("punct", char, start)
        if char == '"':
            return Token("string", self._string(), start)
        if (char.isdigit() and char.isascii()) or (char in "-+" and self._digit_at(start + 1)):
            return Token("number", self._number(), start)
        return self._word(start, char)

    def _digit_at(self, pos: int) -> bool:
        return pos < len(self.text) and "0" <= self.text[pos] <= "9"

    def _word(self, start: int, char: str) -> Token:
        for kind, pattern in (("name", NAME), ("symbol", _SYMBOL)):
            found = pattern.match(self.text, start)
            if found:
                self.pos = found.end()
                return Token(kind, found.group(), start)  # type: ignore[arg-type]
        raise self.fail(f"unexpected character {char!r}; {_HINT}")

    def _number(self) -> str:
        start = self.pos
        if self.text[start] == "+":
            raise self.fail(f"a number has no '+' sign: {_NUMBER_FORM}", start)
        if self.text[start] == "-":
            self.pos += 1
        self._digits(start)
        if self.text.startswith(".", self.pos):
            self.pos += 1
            if not self._digit_at(self.pos):
                raise self.fail("a number's '.' must be followed by digits (write 1.0, not 1.)")
            self._digits(start)
        self._number_ends(start)
        return self.text[start : self.pos]

    def _number_ends(self, start: int) -> None:
        """Refuse `1e5`, `0x1F`, `1.2.3`, `2fa`: Appendix A has no such number, and read as a
        number and a word they would only fail later with a vaguer message."""
        following = self.text[self.pos : self.pos + 1]
        if following and (following in "._" or (following.isascii() and following.isalnum())):
            found = _TAIL.match(self.text, self.pos, self.pos + MAX_NUMBER_CHARS)
            shown = self.text[start : found.end() if found else self.pos + 1]
            raise self.fail(f"malformed number {shown!r}: {_NUMBER_FORM}", start)

    def _digits(self, start: int) -> None:
        # Bounded scan: stop reading as soon as the literal is too long.
        limit = start + MAX_NUMBER_CHARS + 1
        found = _DIGITS.match(self.text, self.pos, min(limit, len(self.text)))
        assert found is not None  # `[0-9]*` always matches
        self.pos = found.end()
        if self.pos - start > MAX_NUMBER_CHARS:
            raise self.fail(
                f"number longer than {MAX_NUMBER_CHARS} characters; send it as a string",
                start,
            )

    def _string(self) -> str:
        start = self.pos
        self.pos += 1
        parts: list[str] = []
        size = 0
        while True:
            found = _PLAIN.match(self.text, self.pos)
            assert found is not None  # a starred class always matches
            parts.append(found.group())
            size += found.end() - self.pos
            self.pos = found.end()
            if size > MAX_STRING_CHARS:
                raise self.fail(f"string longer than {MAX_STRING_CHARS} characters", start)
            if self.pos >= len(self.text):
                raise self.fail("string never closed: add the closing '\"'", start)
            if self.text[self.pos] == '"':
                self.pos += 1
                return "".join(parts)
            parts.append(self._escape())
            size += 1

    def _escape(self) -> str:
        at = self.pos
        code = self.text[at + 1 : at + 2]
        if code in _ESCAPES:
            self.pos += 2
            return _ESCAPES[code]
        if code == "u":
            return self._unicode_escape(at)
        raise self.fail(
            f"unknown escape '\\{code}' in a string; use \\\" \\\\ \\n \\t or \\uXXXX", at
        )

    def _unicode_escape(self, at: int) -> str:
        first = self._hex4(at)
        if 0xDC00 <= first <= 0xDFFF:
            raise self.fail("lone low surrogate in a \\u escape", at)
        if 0xD800 <= first <= 0xDBFF:
            if self.text[self.pos : self.pos + 2] != "\\u":
                raise self.fail("high surrogate \\u escape without its low half", at)
            second = self._hex4(self.pos)
            if not 0xDC00 <= second <= 0xDFFF:
                raise self.fail("high surrogate \\u escape without its low half", at)
            return chr(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        return chr(first)

    def _hex4(self, at: int) -> int:
        digits = self.text[at + 2 : at + 6]
        if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise self.fail("a \\u escape needs four hex digits", at)
        self.pos = at + 6
        return int(digits, 16)


_NUMBER_FORM = (
    "write digits with an optional '-' and '.digits' (no exponent, hex or '+'), or quote it"
)
_HINT = 'values are "strings", numbers, true|false, bare words, [arrays] or {objects}'
