"""Split an arithmetic expression into tokens, refusing anything that is not arithmetic.

Hand-written, one pass, one character at a time: linear in the input, no regex to
backtrack, and every refusal names the character and what to write instead. Python syntax
(strings, attributes, subscripts, comparisons, lambdas) never gets past this point.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

from laika_host.tools.calc_bounds import (
    MAX_EXPRESSION_CHARS,
    MAX_LITERAL_DIGITS,
    MAX_LITERAL_EXPONENT,
    MAX_TOKENS,
    CalculationError,
)

Kind = Literal["number", "name", "operator", "open", "close", "comma", "end"]

DIGITS: Final = frozenset("0123456789")
NAME_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
NAME_CHARS: Final = NAME_START | DIGITS
OPERATORS: Final = frozenset("+-*/%^")
ALIASES: Final = {"\u00d7": "*", "\u00b7": "*", "\u00f7": "/", "\u2212": "-", "\u03c0": "pi"}
"""Typographic spellings a model copies from a page (times, middle dot, division sign, minus
sign, pi), read as their ASCII meaning."""
REFUSED: Final = {
    **dict.fromkeys("'\"`", ("strings are not allowed", "write only numbers")),
    **dict.fromkeys("[]{}", ("lists, subscripts and sets are not allowed", "use ( ) to group")),
    **dict.fromkeys(
        "=<>!", ("comparisons and assignments are not allowed", "write one expression to compute")
    ),
    **dict.fromkeys("&|~@", ("bitwise and matrix operators are not allowed", "use + - * / // % ^")),
}
HINT: Final = "use numbers, + - * / // % ^ (or **), parentheses and the listed functions"


@dataclass(frozen=True)
class Token:
    """One token: `value` is set for numbers, `text` is the normalized spelling."""

    kind: Kind
    text: str
    position: int
    value: Fraction | None = None


def tokenize(expression: str) -> list[Token]:
    """The tokens of `expression`, ending with an `end` token."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise CalculationError(
            f"the expression is {len(expression):,} characters long, over the limit of "
            f"{MAX_EXPRESSION_CHARS:,}",
            "shorten it or split the calculation into steps",
        )
    if not expression.strip():
        raise CalculationError("the expression is empty", "write one like (2 + 3) * 4")
    tokens: list[Token] = []
    index = 0
    while index < len(expression):
        if expression[index].isspace():
            index += 1
            continue
        token, index = _next_token(expression, index, tokens[-1] if tokens else None)
        tokens.append(token)
        if len(tokens) > MAX_TOKENS:
            raise CalculationError(
                f"the expression has more than {MAX_TOKENS} tokens",
                "split the calculation into steps",
                token.position,
            )
    tokens.append(Token("end", "end of the expression", len(expression)))
    return tokens


def _next_token(text: str, index: int, previous: Token | None) -> tuple[Token, int]:
    char = ALIASES.get(text[index], text[index])
    if char == "pi":  # the Greek letter
        return Token("name", "pi", index), index + 1
    if char in DIGITS or (char == "." and _digit_at(text, index + 1)):
        return _number(text, index)
    if char in NAME_START:
        return _name(text, index)
    if char in OPERATORS:
        return _operator(text, index, char)
    if char in "(),":
        kinds: dict[str, Kind] = {"(": "open", ")": "close", ",": "comma"}
        return Token(kinds[char], char, index), index + 1
    if char == ".":
        if previous is not None and previous.kind in ("name", "close", "number"):
            raise CalculationError("attribute access ('.name') is not allowed", HINT, index)
        raise CalculationError("a '.' that starts no number", "write 0.5, not .", index)
    problem, fix = REFUSED.get(char, (f"the character {char!r} is not part of arithmetic", HINT))
    raise CalculationError(problem, fix, index)


def _operator(text: str, index: int, char: str) -> tuple[Token, int]:
    """`//` and `**` are one token each; `**` is read as `^`."""
    doubled = char in "*/" and index + 1 < len(text) and text[index + 1] == char
    spelling = char * 2 if doubled else char
    return Token("operator", "^" if spelling == "**" else spelling, index), index + len(spelling)


def _digit_at(text: str, index: int) -> bool:
    return index < len(text) and text[index] in DIGITS


def _digits_end(text: str, index: int) -> int:
    while index < len(text) and text[index] in DIGITS:
        index += 1
    return index


def _number(text: str, start: int) -> tuple[Token, int]:
    """A decimal literal `12`, `1.5`, `.5`, `2e-3`: its exact value, size checked first."""
    whole_end = _digits_end(text, start)
    fraction_end = whole_end
    if whole_end < len(text) and text[whole_end] == ".":
        fraction_end = _digits_end(text, whole_end + 1)
    whole = text[start:whole_end]
    decimals = text[whole_end + 1 : fraction_end] if fraction_end > whole_end else ""
    if len(whole) + len(decimals) > MAX_LITERAL_DIGITS:
        raise CalculationError(
            f"a number with more than {MAX_LITERAL_DIGITS} digits",
            "round it or write it in exponent notation like 1.5e300",
            start,
        )
    exponent, end = _exponent(text, fraction_end)
    mantissa = Fraction(int(whole + decimals or "0"), 10 ** len(decimals))
    value = mantissa * Fraction(10) ** exponent
    return Token("number", text[start:end], start, value), end


def _exponent(text: str, index: int) -> tuple[int, int]:
    """The `e<n>` after a number (0 when there is none) and where the number ends."""
    if index >= len(text) or text[index] not in "eE":
        return 0, index
    digits_start = index + 1
    if digits_start < len(text) and text[digits_start] in "+-":
        digits_start += 1
    if not _digit_at(text, digits_start):
        return 0, index  # `2e` or `2 e`: the constant e, refused later as a missing operator
    end = _digits_end(text, digits_start)
    if end - digits_start > len(str(MAX_LITERAL_EXPONENT)) or (
        abs(int(text[index + 1 : end])) > MAX_LITERAL_EXPONENT
    ):
        raise CalculationError(
            f"an exponent beyond ±{MAX_LITERAL_EXPONENT}",
            "values must stay between 1e-1000 and 1e1000",
            index,
        )
    return int(text[index + 1 : end]), end


def _name(text: str, start: int) -> tuple[Token, int]:
    end = start
    while end < len(text) and text[end] in NAME_CHARS:
        end += 1
    return Token("name", text[start:end], start), end
