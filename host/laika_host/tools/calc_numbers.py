"""Bounded exact arithmetic for the calculator: fractions, sized before they grow.

Values are `Fraction`s, so 0.1 + 0.2 is exactly 0.3 and 1/3 * 3 exactly 1. Each result is
checked by `fit`: its size stays within ±10**1000, and a numerator or denominator longer
than MAX_STORED_DIGITS is rounded to WORKING_DIGITS significant digits (and marked
inexact) rather than kept growing. Powers are sized *before* they are computed, from
exponent * log10(|base|), so 9^9^9 is refused without computing it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Context, Decimal, Inexact, localcontext
from fractions import Fraction

from laika_host.tools.calc_bounds import (
    MAX_EXPONENT,
    MAX_MAGNITUDE_DIGITS,
    MAX_STORED_BITS,
    WORKING_DIGITS,
    CalculationError,
)

_MAGNITUDE_BITS = math.ceil(MAX_MAGNITUDE_DIGITS * math.log2(10))
_ROOT_DENOMINATORS = 64
"""x^(p/q) is tried as an exact root for q up to this (8^(1/3) = 2, 0.25^0.5 = 0.5)."""


@dataclass(frozen=True)
class Value:
    """A number and whether it is exact (no irrational function or rounding on its way)."""

    number: Fraction
    exact: bool = True


def fit(number: Fraction, exact: bool, position: int) -> Value:
    """`number` as a Value within the size bounds: refused when out of range, rounded when
    its exact form is too long to keep."""
    if number == 0:
        return Value(Fraction(0), exact)
    size = number.numerator.bit_length() - number.denominator.bit_length()
    if abs(size) > _MAGNITUDE_BITS:
        raise CalculationError(
            f"a result of about 10^{round(size * math.log10(2))}, outside the range "
            f"10^-{MAX_MAGNITUDE_DIGITS} to 10^{MAX_MAGNITUDE_DIGITS}",
            "use smaller numbers or smaller exponents",
            position,
        )
    if max(abs(number.numerator).bit_length(), number.denominator.bit_length()) > MAX_STORED_BITS:
        return Value(Fraction(to_decimal(number)[0]), False)
    return Value(number, exact)


def context(digits: int = WORKING_DIGITS) -> Context:
    """A decimal context for `digits` significant digits, wide enough for every bounded value."""
    return Context(prec=digits, Emax=10 * MAX_MAGNITUDE_DIGITS, Emin=-10 * MAX_MAGNITUDE_DIGITS)


def to_decimal(number: Fraction, digits: int = WORKING_DIGITS) -> tuple[Decimal, bool]:
    """`number` correctly rounded to `digits` significant digits, and whether that was exact."""
    with localcontext(context(digits)) as ctx:
        result = Decimal(number.numerator) / Decimal(number.denominator)
        return result, not ctx.flags[Inexact]


def divide(left: Value, right: Value, operator: str, position: int) -> Value:
    """`/`, `//` (floor division) or `%` (remainder with the divisor's sign, as in Python)."""
    if right.number == 0:
        raise CalculationError("division by zero", "check the divisor", position)
    exact = left.exact and right.exact
    quotient = left.number / right.number
    if operator == "/":
        return fit(quotient, exact, position)
    floored = Fraction(math.floor(quotient))
    if operator == "//":
        return fit(floored, exact, position)
    return fit(left.number - right.number * floored, exact, position)


def power(base: Value, exponent: Value, position: int) -> Value:
    """`base ^ exponent`, sized before it is computed."""
    x, y = base.number, exponent.number
    exact = base.exact and exponent.exact
    if x == 0:
        if y < 0:
            raise CalculationError(
                "0 to a negative power (a division by zero)", "check the exponent", position
            )
        return Value(Fraction(1 if y == 0 else 0), exact)
    if x == 1 or y == 0:
        return Value(Fraction(1), exact)
    if x == -1 and y.denominator == 1:
        return Value(Fraction(-1 if y.numerator % 2 else 1), exact)
    if abs(y) > MAX_EXPONENT:
        raise _too_large(x, y, position)
    if x < 0 and y.denominator % 2 == 0:
        raise CalculationError(
            f"a negative number to the power {_show(y)} has no real value",
            "use a positive base or an integer (or odd-root) exponent",
            position,
        )
    digits = float(y) * _log10(abs(x))
    if abs(digits) > MAX_MAGNITUDE_DIGITS:
        raise _too_large(x, y, position)
    sign = -1 if x < 0 and y.numerator % 2 else 1
    magnitude = _exact_power(abs(x), y)
    if magnitude is not None:
        return fit(sign * magnitude, exact, position)
    with localcontext(context(WORKING_DIGITS + 10)):
        approximate = (
            to_decimal(abs(x), WORKING_DIGITS + 10)[0] ** to_decimal(y, WORKING_DIGITS + 10)[0]
        )
    return fit(sign * Fraction(to_decimal(Fraction(approximate))[0]), False, position)


def _exact_power(x: Fraction, y: Fraction) -> Fraction | None:
    """x^y exactly when y is an integer, or x an exact q-th power; None when the exact form
    would be too long (or irrational)."""
    p, q = y.numerator, y.denominator
    if q > _ROOT_DENOMINATORS:
        return None
    if q > 1:
        top, bottom = _root(x.numerator, q), _root(x.denominator, q)
        if top is None or bottom is None:
            return None
        x = Fraction(top, bottom)
    longest = max(x.numerator.bit_length(), x.denominator.bit_length())
    if abs(p) * (longest - 1) > MAX_STORED_BITS:
        return None
    return x**p


def _root(n: int, q: int) -> int | None:
    """The integer q-th root of n >= 0 when there is one (Newton's method on integers)."""
    if n < 2:
        return n
    guess = 1 << -(-n.bit_length() // q)
    while True:
        better = ((q - 1) * guess + n // guess ** (q - 1)) // q
        if better >= guess:
            break
        guess = better
    return guess if guess**q == n else None


def _log10(x: Fraction) -> float:
    return math.log10(x.numerator) - math.log10(x.denominator)


def _show(y: Fraction) -> str:
    """`y` short enough for a message: as written when small, else to 6 digits."""
    if y.denominator == 1 and y.numerator.bit_length() < 40:
        return str(y)
    return format(to_decimal(y, 6)[0], "g")


def _too_large(x: Fraction, y: Fraction, position: int) -> CalculationError:
    if abs(y) > MAX_EXPONENT:
        problem = f"an exponent above {MAX_EXPONENT:,} (allowed only for bases 0, 1 and -1)"
    else:
        problem = (
            f"about 10^{round(float(y) * _log10(abs(x))):,}, outside 10^±{MAX_MAGNITUDE_DIGITS}"
        )
    return CalculationError(
        f"the power {_show(x)}^{_show(y)} has {problem}", "use a smaller base or exponent", position
    )
