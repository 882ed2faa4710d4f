"""The words of a text, normalized for quote matching, each with its offsets in the text.

A quote may differ from its source in case, Unicode form (NFKC), whitespace, quote marks,
dashes and punctuation, but not in its words: both sides become one list of normalized
words, and only a run of the source's words equal to the quote's words is a match. So a
changed, added or dropped word (a "not", a digit, a month, a unit, a name) never matches,
and no normalization makes two different numbers equal.

Rules, applied the same way to source and quote (one `str.translate` of each character to
its kind, then one regex pass over the kinds, so time is linear in the text):

- letters, digits and combining marks (and unassigned or private characters) make words;
- each symbol (`$`, `°`, `+`, `^`, emoji, and `%`, `‰` and primes) is a word of its own, so
  `50%` is `50 %` and `10^2` is `10 ^ 2` (never `10 2`);
- whitespace, punctuation and modifier symbols (`` ` ``, `¨`) separate words, except that
  punctuation between two digits (`3.5`, `1,000`, `10:30`, `5-10`) and a sign or decimal
  point before a digit (`-5`, `.5`) stay in the number: `3.5` is not `35`, `-5` not `5`;
- format characters (soft hyphen, zero-width joiners, variation selectors) are ignored;
- each word is NFKC-normalized and case-folded (`Straße` = `STRASSE`, `ﬁ` = `fi`, full-width
  digits are digits), except number forms: superscripts, subscripts, fractions and characters
  that stand for digits (`²`, `₂`, `½`, `①`, `⒈`, `㎡`) stay as written inside their word,
  since NFKC would merge them with their neighbours (`10²` would be `102`, `5½` `51/2`).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from typing import Final, NamedTuple

_FOLD: Final = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"',
        "\u00bb": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-",
        "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-", "\ufe63": "-",
        "\uff0d": "-",
    }
)  # fmt: skip
"""Quote marks and dashes folded to ASCII before a character is classified."""

_UNITS: Final = frozenset("%\u2030\u2031\u2032\u2033\u2034")
"""Punctuation by Unicode that means something: percent, per mille, primes (feet, inches)."""

_NUMBER_LEADS: Final = frozenset("-.,")
"""Punctuation that belongs to a number when a digit follows it directly (sign, decimal)."""

_MATH_SYMBOLS: Final = frozenset("^")
"""Modifier symbols that mean something: `^` is an exponent, not a space."""

_NUMBER_FORM_TAGS: Final = ("<super>", "<sub>", "<fraction>", "<circle>")


_LETTER, _DIGIT, _FORM, _PUNCT, _LEAD, _SYMBOL, _SPACE, _IGNORED = "a9fpls i"
_VARIATION_SELECTORS: Final = range(0xFE00, 0xFE10)
_TOKEN = re.compile(
    r"(?:[a9f]|(?<=[9f])[pl](?=[9f])|(?<![a9fi])l(?=[9f]))(?:[a9fi]|(?<=[9f])[pl](?=[9f]))*|s"
)
"""Over the kinds: a word (with punctuation inside or leading a number; a number form counts
as a digit there), or one symbol. Every step consumes one character and looks one character
around: no backtracking."""


def _code(char: str) -> str:
    """The kind of one character, as the one-letter code `_TOKEN` reads."""
    folded = char.translate(_FOLD)
    category = unicodedata.category(folded)
    if category == "Cf" or ord(folded) in _VARIATION_SELECTORS:
        return _IGNORED
    if _is_number_form(folded):
        return _FORM
    if folded in _UNITS or folded in _MATH_SYMBOLS:
        return _SYMBOL
    if folded.isspace() or category in ("Sk", "Zs", "Zl", "Zp", "Cc"):
        return _SPACE
    if category[0] == "P":
        return _LEAD if folded in _NUMBER_LEADS else _PUNCT
    if folded.isdigit():
        return _DIGIT
    if category[0] in "LNM" or category in ("Co", "Cn"):
        return _LETTER
    return _SYMBOL  # S*, and Cs (a lone surrogate)


def _is_number_form(char: str) -> bool:
    """A superscript, subscript, fraction or circled form, or any character that NFKC turns
    into digits without being a decimal digit itself (`⒈`, `㎡`, `㏠`): NFKC must not touch
    it, or it would merge with the digits around it."""
    if unicodedata.decomposition(char).startswith(_NUMBER_FORM_TAGS):
        return True
    if unicodedata.category(char) == "Nd":
        return False  # full-width and mathematical digits are the same digits
    expanded = unicodedata.normalize("NFKC", char)
    return expanded != char and any(c.isdigit() for c in expanded)


class _Codes(dict[int, str]):
    """A `str.translate` table that learns each character's code on first sight."""

    def __missing__(self, ordinal: int) -> str:
        code = _code(chr(ordinal))
        if len(self) < _CODES_CACHE:
            self[ordinal] = code
        return code


_CODES_CACHE: Final = 65_536
_CODES: Final = _Codes()
_NORMAL: dict[str, tuple[str, ...]] = {}
_NORMAL_CACHE: Final = 50_000
_NORMAL_LENGTH: Final = 64
"""The caches stay bounded whatever text comes (distinct characters, words, long words)."""


class Word(NamedTuple):
    """One normalized word and where it is in the original text: `text[start:end]`."""

    text: str
    start: int
    end: int


def words(text: str) -> list[Word]:
    """The normalized words of `text`, in order."""
    codes = text.translate(_CODES)
    found: list[Word] = []
    for match in _TOKEN.finditer(codes):
        start, end = match.span()
        for word in _normal(text[start:end], match.group()):
            found.append(Word(word, start, end))
    return found


def _normal(raw: str, codes: str) -> tuple[str, ...]:
    """NFKC, case-folded, number forms kept as written; one character may become several
    words (U+FDFA)."""
    if _IGNORED in codes:
        raw, codes = _without_ignored(raw, codes)
    known = _NORMAL.get(raw)
    if known is None:
        if _FORM in codes:
            known = tuple(_fold_around_forms(raw, codes).split())
        else:
            known = tuple(_fold(raw).split())
        if len(_NORMAL) < _NORMAL_CACHE and len(raw) <= _NORMAL_LENGTH:
            _NORMAL[raw] = known
    return known


def _without_ignored(raw: str, codes: str) -> tuple[str, str]:
    kept = [(char, code) for char, code in zip(raw, codes, strict=True) if code != _IGNORED]
    return "".join(char for char, _ in kept), "".join(code for _, code in kept)


def _fold(raw: str) -> str:
    folded = unicodedata.normalize("NFKC", raw.translate(_FOLD)).casefold()
    return unicodedata.normalize("NFKC", folded)


def _fold_around_forms(raw: str, codes: str) -> str:
    """`_fold` of the text between number forms; the forms themselves stay as written."""
    out, start = [], 0
    for at, code in enumerate(codes):
        if code == _FORM:
            out += [_fold(raw[start:at]), raw[at]]
            start = at + 1
    out.append(_fold(raw[start:]))
    return "".join(out)


def normalize(text: str) -> str:
    """The normalized words of `text` joined by single spaces (what matching compares)."""
    return " ".join(word.text for word in words(text))


class WordIndex:
    """A text's words, joined once so that a run of words is found with one `str.find`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = words(text)
        positions, at = [], 1
        for word in self.words:
            positions.append(at)
            at += len(word.text) + 1
        self.positions = positions
        self.joined = " " + " ".join(word.text for word in self.words) + " "

    def find(self, wanted: Sequence[str], first: int = 0) -> int | None:
        """The index of the first word of the first run equal to `wanted` at or after word
        `first` (whole words only), or None."""
        if not wanted or first >= len(self.words):
            return None
        at = self.joined.find(_needle(wanted), self.positions[first] - 1)
        return None if at < 0 else bisect_left(self.positions, at + 1)

    def starts(self, wanted: Sequence[str], first: int = 0, last: int | None = None) -> list[int]:
        """The first word of every run equal to `wanted` that starts between words `first` and
        `last` (runs may overlap). One bounded scan of the joined words."""
        last = len(self.words) - 1 if last is None else min(last, len(self.words) - 1)
        if not wanted or first > last:
            return []
        needle = _needle(wanted)
        end = self.positions[last] - 1 + len(needle)
        found, at = [], self.joined.find(needle, self.positions[first] - 1, end)
        while at >= 0:
            found.append(bisect_left(self.positions, at + 1))
            at = self.joined.find(needle, at + 1, end)
        return found

    def repeated(self, wanted: Sequence[str]) -> bool:
        """Whether the run of words occurs more than once (two finds, so still linear)."""
        needle = _needle(wanted)
        at = self.joined.find(needle)
        return at >= 0 and self.joined.find(needle, at + 1) >= 0

    def span(self, first: int, count: int) -> tuple[int, int]:
        """Offsets in the text from the start of word `first` to the end of its run."""
        return self.words[first].start, self.words[first + count - 1].end


def _needle(wanted: Sequence[str]) -> str:
    return " " + " ".join(wanted) + " "
