"""Write a calculator value as decimal text: exact when it can be, rounded when asked.

Without `precision`, a value whose decimal expansion ends is written in full (0.3, 2^100,
0.125); one that does not (1/3) or that is inexact (sqrt(2)) gets SHOWN_DIGITS significant
digits, in exponent notation when very large or small. With `precision`, the value is
rounded to that many digits after the point, ties away from zero (2.5 -> 3), computed from
the exact fraction so no float rounding creeps in; an inexact value never shows more than
MAX_INEXACT_DIGITS significant digits.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

from laika_host.tools.calc_bounds import MAX_INEXACT_DIGITS, SHOWN_DIGITS
from laika_host.tools.calc_numbers import Value, context

_SMALLEST_PLAIN = Fraction(1, 10**6)
"""Below this size a value is written in exponent notation (1.5e-7), not as 0.00000015."""


def format_value(value: Value, precision: int | None) -> str:
    """The decimal text of `value` (see the module docstring for the rules)."""
    if precision is not None:
        return fixed(value.number, _decimals(value, precision))
    places = _terminating_places(value.number)
    if value.exact and places is not None:
        return _exact(value.number, places)
    return _significant(value.number)


def fixed(number: Fraction, places: int) -> str:
    """`number` rounded to `places` digits after the point, ties away from zero."""
    scaled = math.floor(abs(number) * 10**places + Fraction(1, 2))
    digits = str(scaled).rjust(places + 1, "0")
    text = f"{digits[:-places]}.{digits[-places:]}" if places else digits
    return f"-{text}" if number < 0 and scaled else text


def _decimals(value: Value, precision: int) -> int:
    if value.exact:
        return precision
    whole_digits = len(str(math.floor(abs(value.number)))) if abs(value.number) >= 1 else 0
    return min(precision, max(0, MAX_INEXACT_DIGITS - whole_digits))


def _terminating_places(number: Fraction) -> int | None:
    """How many decimals `number` needs to be written exactly; None when it never ends."""
    denominator, twos, fives = number.denominator, 0, 0
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    return max(twos, fives) if denominator == 1 else None


def _exact(number: Fraction, places: int) -> str:
    """Every digit of a terminating decimal; exponent notation only for tiny ones (2^-3000)."""
    text = fixed(number, places)
    if number == 0 or abs(number) >= _SMALLEST_PLAIN:
        return text
    return format(Decimal(text), "e")


def _significant(number: Fraction) -> str:
    with localcontext(context(SHOWN_DIGITS)):
        rounded = (Decimal(number.numerator) / Decimal(number.denominator)).normalize()
    if rounded == 0:
        return "0"
    plain = _SMALLEST_PLAIN <= abs(rounded) < 10**SHOWN_DIGITS
    return format(rounded, "f" if plain else "e")
