"""Numbers as people write them in a request: digits with separators (`50,000`, `50 000`,
`50_000`), decimals with a scale (`2.5 million`, `1.5M`, `50k`, `10 thousand`) and words
(`fifty thousand`, `twenty-five thousand`, `two hundred and fifty thousand`, `a million`,
`half a million`).

`group_digits` joins digit groups in the text before it is split into words; `read` then
finds the numbers in the words, each with the words it spans. One pass over the words, each
looked at a bounded number of times: linear in the request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_RUN = re.compile(r"\d+(?:[,_ \u00a0\u202f\u2009']\d+)*")
"""Digit groups joined by one separator each; `group_digits` decides which form a number."""
_SEPARATOR = re.compile(r"([,_ \u00a0\u202f\u2009'])")
_DIGITS = re.compile(r"(\d{1,12}(?:\.\d{1,6})?)([km]|mn|mil|bn)?")

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES = {
    "hundred": 100,
    "thousand": 1_000,
    "thousands": 1_000,
    "k": 1_000,
    "grand": 1_000,
    "million": 1_000_000,
    "millions": 1_000_000,
    "mil": 1_000_000,
    "mn": 1_000_000,
    "m": 1_000_000,
}
_SUFFIX = {"k": 1_000, "m": 1_000_000, "mn": 1_000_000, "mil": 1_000_000, "bn": 10**9}
NUMBER_WORDS = frozenset({*UNITS, *TENS, *SCALES, "a", "an", "and", "half"})
"""Every word that can be part of a number (with "a", "and" and "half" only around one)."""


@dataclass(frozen=True)
class Number:
    start: int
    """Index of its first word."""
    end: int
    """Index past its last word."""
    value: float


def group_digits(text: str) -> str:
    """`text` with each grouped number written without its separators (`50,000` ->
    `50000`), so that it is one word."""
    return _RUN.sub(lambda found: _joined(found.group()), text)


def _joined(run: str) -> str:
    """`50,000` -> `50000`, `1 200 000` -> `1200000`: a lead of one to three digits, then
    groups of exactly three; anything else (`1,2,3`, `2024 10`) is kept as written."""
    pieces = _SEPARATOR.split(run)  # digits, separator, digits, ...
    groups, separators = pieces[0::2], pieces[1::2]
    out = [groups[0]]
    grouping = False
    for group, separator in zip(groups[1:], separators, strict=True):
        lead_ok = grouping or len(out[-1]) <= 3
        if lead_ok and len(group) == 3:
            out[-1] += group
            grouping = True
        else:
            out += [separator, group]
            grouping = False
    return "".join(out)


def read(words: Sequence[str]) -> list[Number]:
    """The numbers in `words` (lowercase), left to right, each as long as it goes."""
    found: list[Number] = []
    index = 0
    while index < len(words):
        number = _at(words, index)
        if number is None:
            index += 1
            continue
        found.append(number)
        index = number.end
    return found


def _at(words: Sequence[str], start: int) -> Number | None:
    first = _digits(words[start])
    if first is not None:
        return _scaled(words, start, first)
    return _spelled(words, start)


def _digits(word: str) -> float | None:
    found = _DIGITS.fullmatch(word)
    if found is None:
        return None
    value = float(found.group(1))
    return value * _SUFFIX[found.group(2)] if found.group(2) else value


def _scaled(words: Sequence[str], start: int, value: float) -> Number:
    """Digits, then scale words (`2.5 million`, `10 thousand`, `5 hundred thousand`)."""
    end = start + 1
    glued = not words[start][-1].isdigit()  # `50k` carries its scale
    while not glued and end < len(words) and words[end] in SCALES:
        scale = SCALES[words[end]]
        if scale == 100 and value != int(value):
            break
        value *= scale
        end += 1
    return Number(start, end, value)


def _spelled(words: Sequence[str], start: int) -> Number | None:
    """Number words: `fifty five thousand`, `twenty-five`, `a hundred and ten`, `half a
    million`. None when the words there are not a number (a lone "a", "and")."""
    parts: list[str] = []
    index = start
    while index < len(words):
        pieces = words[index].split("-") if "-" in words[index] else [words[index]]
        if not all(piece in NUMBER_WORDS for piece in pieces):
            break
        parts += pieces
        index += 1
    value, used = _value(parts)
    if used == 0:
        return None
    # map the parts used back to words (a hyphenated word counts once)
    end, counted = start, 0
    while counted < used:
        counted += len(words[end].split("-"))
        end += 1
    return Number(start, end, value)


def _value(parts: list[str]) -> tuple[float, int]:
    """The value of the longest prefix of `parts` that reads as one number, and its length."""
    reading = _Reading(parts)
    while reading.index < len(parts) and reading.step():
        pass
    return reading.best


class _Reading:
    """Number words read left to right: `total` holds the finished thousands and millions,
    `current` the part below them; `best` the longest prefix that was a whole number."""

    def __init__(self, parts: list[str]) -> None:
        self.parts = parts
        self.index = 0
        self.total = 0.0
        self.current = 0.0
        self.seen = False
        self.best = (0.0, 0)

    def following(self, ahead: int = 1) -> str:
        at = self.index + ahead
        return self.parts[at] if at < len(self.parts) else ""

    def step(self) -> bool:
        """Read one part; False when it ends the number."""
        part = self.parts[self.index]
        if part == "half":
            return self._half()
        if part in ("a", "an"):
            ok = self.following() in ("hundred", "thousand", "million") and not self.current
            self.current = self.current or 1
        elif part == "and" and self.following() in ("a", "an") and self.following(2) == "half":
            ok = self.seen and self.current < 100  # "one and a half million"
            self.current += 0.5
            self.index += 2
            part = "half"  # a whole number again
        elif part == "and":
            ok = self.seen and self.following() not in ("", "and", *SCALES)
        elif part in UNITS or part in TENS:
            ok = self._small(UNITS.get(part, TENS.get(part, 0)))
        elif part in _SPELLED_SCALES:
            ok = self._scale(SCALES[part])
        else:
            ok = False
        if not ok:
            return False
        self.index += 1
        if part != "and" and self.seen:
            self.best = (self.total + self.current, self.index)
        return True

    def _half(self) -> bool:
        """ "half a million": half of the scale two words on."""
        scale = SCALES.get(self.following(2), 0)
        if self.seen or self.following() not in ("a", "an") or scale < 1000:
            return False
        self.total, self.current, self.seen = scale / 2, 0.0, True
        self.index += 3
        self.best = (self.total, self.index)
        return False

    def _small(self, value: int) -> bool:
        """A unit or a ten; "five six", "twenty thirty", "fifteen five" are two numbers."""
        below_hundred = self.current % 100
        if (
            self.seen
            and below_hundred
            and (value >= 10 or below_hundred % 10 or below_hundred < 20)
        ):
            return False
        self.current += value
        self.seen = True
        return True

    def _scale(self, scale: int) -> bool:
        if not self.seen and not self.current:
            return False
        if scale == 100:
            if self.current >= 100 or not self.current:
                return False
            self.current *= 100
        else:
            self.total += (self.current or 1) * scale
            self.current = 0.0
        self.seen = True
        return True


_SPELLED_SCALES = frozenset(SCALES) - {"k", "m", "mn", "mil", "grand"}
