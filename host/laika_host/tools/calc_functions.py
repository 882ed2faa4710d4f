"""The calculator's fixed list of functions and constants: nothing else can be called.

Rational functions (abs, round, floor, ceil, min, max, sqrt of a perfect square) stay
exact; the others are computed in `decimal` to WORKING_DIGITS significant digits and marked
inexact. Each refuses its domain errors (sqrt(-1), ln(0), tan at pi/2) with the fix.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, Inexact, localcontext
from fractions import Fraction
from functools import cache
from typing import Final

from laika_host.tools.calc_bounds import MAX_MAGNITUDE_DIGITS, WORKING_DIGITS, CalculationError
from laika_host.tools.calc_numbers import Value, context, fit, to_decimal

Arity = tuple[int, int | None]
"""Fewest and most arguments (None: no upper bound but the token limit)."""
Compute = Callable[[Sequence[Value], int], Value]

_GUARD = 40
"""Extra digits for trigonometry, so reducing an argument up to 10^30 by 2*pi loses none."""
MAX_TRIG_ARGUMENT: Final = Fraction(10) ** 30
MAX_EXP_ARGUMENT: Final = Fraction(int(MAX_MAGNITUDE_DIGITS * math.log(10)))
MAX_ROUND_PLACES: Final = 100


@dataclass(frozen=True)
class Function:
    arity: Arity
    usage: str
    compute: Compute


def _decimal_result(result: Decimal, exact: bool, position: int) -> Value:
    rounded, was_exact = to_decimal(Fraction(result))
    return fit(Fraction(rounded), exact and was_exact, position)


def _sqrt(args: Sequence[Value], position: int) -> Value:
    x = args[0]
    if x.number < 0:
        raise CalculationError(
            "the square root of a negative number", "use sqrt(abs(x)) or check the sign", position
        )
    top, bottom = math.isqrt(x.number.numerator), math.isqrt(x.number.denominator)
    if top * top == x.number.numerator and bottom * bottom == x.number.denominator:
        return Value(Fraction(top, bottom), x.exact)
    with localcontext(context()):  # not a perfect square: the root is irrational
        return _decimal_result(to_decimal(x.number)[0].sqrt(), False, position)


def _log_of(x: Value, position: int, base10: bool) -> tuple[Decimal, bool]:
    if x.number <= 0:
        raise CalculationError(
            "the logarithm of zero or a negative number", "the argument must be above 0", position
        )
    with localcontext(context(WORKING_DIGITS + 5)) as ctx:
        operand, converted = to_decimal(x.number, WORKING_DIGITS + 5)
        result = operand.log10() if base10 else operand.ln()
        return result, x.exact and converted and not ctx.flags[Inexact]


def _ln(args: Sequence[Value], position: int) -> Value:
    return _decimal_result(*_log_of(args[0], position, base10=False), position)


def _log(args: Sequence[Value], position: int) -> Value:
    """log(x) is base 10 (as on a calculator; ln is natural); log(x, b) is base b."""
    top, top_exact = _log_of(args[0], position, base10=True)
    if len(args) == 1:
        return _decimal_result(top, top_exact, position)
    bottom, bottom_exact = _log_of(args[1], position, base10=True)
    if bottom == 0:
        raise CalculationError(
            "a logarithm to base 1", "use a positive base other than 1", position
        )
    with localcontext(context(WORKING_DIGITS + 5)) as ctx:
        quotient = top / bottom
        return _decimal_result(
            quotient, top_exact and bottom_exact and not ctx.flags[Inexact], position
        )


def _exp(args: Sequence[Value], position: int) -> Value:
    x = args[0]
    if abs(x.number) > MAX_EXP_ARGUMENT:
        raise CalculationError(
            f"exp of a number beyond ±{MAX_EXP_ARGUMENT}, outside the range "
            f"10^±{MAX_MAGNITUDE_DIGITS}",
            "use a smaller argument",
            position,
        )
    if x.number == 0:
        return Value(Fraction(1), x.exact)
    with localcontext(context(WORKING_DIGITS + 5)):
        return _decimal_result(to_decimal(x.number, WORKING_DIGITS + 5)[0].exp(), False, position)


@cache
def pi_decimal(digits: int) -> Decimal:
    """pi to `digits` significant digits, by Machin's formula 16 atan(1/5) - 4 atan(1/239)."""
    with localcontext(context(digits + 10)):
        result = 16 * _atan_inverse(5) - 4 * _atan_inverse(239)
    with localcontext(context(digits)):
        return +result


def _atan_inverse(n: int) -> Decimal:
    """atan(1/n) for an integer n > 1, by its alternating series."""
    total, power, k = Decimal(0), Decimal(1) / n, 0
    square = n * n
    while True:
        term = power / (2 * k + 1)
        if total + term == total and total - term == total:
            return total
        total = total - term if k % 2 else total + term
        power /= square
        k += 1


def _series(x: Decimal, start: Decimal, first_index: int) -> Decimal:
    """sum of (-1)^k x^(2k+i) / (2k+i)! from `start` = x^i / i!: sin for i=1, cos for i=0."""
    total, term, n = start, start, first_index
    while True:
        term = -term * x * x / ((n + 1) * (n + 2))
        n += 2
        if total + term == total:
            return total
        total += term


def _sin_cos(x: Value, position: int) -> tuple[Decimal, Decimal]:
    if abs(x.number) > MAX_TRIG_ARGUMENT:
        raise CalculationError(
            "a sine, cosine or tangent of a number beyond 1e30, which has no accurate digits",
            "reduce the angle (in radians) first",
            position,
        )
    digits = WORKING_DIGITS + _GUARD
    with localcontext(context(digits)):
        turn = 2 * pi_decimal(digits)
        angle = to_decimal(x.number, digits)[0]
        reduced = angle - turn * (angle / turn).to_integral_value()
        sine, cosine = _series(reduced, reduced, 1), _series(reduced, Decimal(1), 0)
    if x.exact:
        return sine, cosine
    # sin and cos move no more than their argument: an inexact x (pi/2, known to
    # WORKING_DIGITS) only fixes them to that many places, so sin(pi) is 0, not 1e-60.
    whole_digits = max(0, angle.adjusted() + 1)
    with localcontext(context(2 * WORKING_DIGITS)):
        unit = Decimal(10) ** -(WORKING_DIGITS - 5 - whole_digits)
        return sine.quantize(unit), cosine.quantize(unit)


def _trig(which: str) -> Compute:
    def compute(args: Sequence[Value], position: int) -> Value:
        x = args[0]
        if x.number == 0:
            return Value(Fraction(1 if which == "cos" else 0), x.exact)
        sine, cosine = _sin_cos(x, position)
        if which != "tan":
            return _decimal_result(sine if which == "sin" else cosine, False, position)
        if cosine == 0:
            raise CalculationError(
                "tan at an odd multiple of pi/2, where it is undefined", "check the angle", position
            )
        with localcontext(context(WORKING_DIGITS + _GUARD)):
            return _decimal_result(sine / cosine, False, position)

    return compute


def _round(args: Sequence[Value], position: int) -> Value:
    """round(x) or round(x, places): ties go away from zero (2.5 -> 3), as on paper."""
    x, places = args[0], args[1].number if len(args) > 1 else Fraction(0)
    if places.denominator != 1 or abs(places) > MAX_ROUND_PLACES:
        raise CalculationError(
            "round's places must be a whole number",
            f"write round(x, n) with n from -{MAX_ROUND_PLACES} to {MAX_ROUND_PLACES}",
            position,
        )
    scale = Fraction(10) ** int(places)
    magnitude = Fraction(math.floor(abs(x.number) * scale + Fraction(1, 2))) / scale
    return fit(magnitude if x.number >= 0 else -magnitude, x.exact, position)


def _unary(operation: Callable[[Fraction], Fraction]) -> Compute:
    def compute(args: Sequence[Value], position: int) -> Value:
        return fit(operation(args[0].number), args[0].exact, position)

    return compute


def _pick(choose: Callable[[Sequence[Value]], Value]) -> Compute:
    return lambda args, position: choose(args)


FUNCTIONS: Final[dict[str, Function]] = {
    "abs": Function((1, 1), "abs(x)", _unary(abs)),
    "ceil": Function((1, 1), "ceil(x)", _unary(lambda q: Fraction(math.ceil(q)))),
    "cos": Function((1, 1), "cos(x), x in radians", _trig("cos")),
    "exp": Function((1, 1), "exp(x) = e^x", _exp),
    "floor": Function((1, 1), "floor(x)", _unary(lambda q: Fraction(math.floor(q)))),
    "ln": Function((1, 1), "ln(x), the natural logarithm", _ln),
    "log": Function((1, 2), "log(x) (base 10) or log(x, base)", _log),
    "max": Function((1, None), "max(a, b, ...)", _pick(lambda v: max(v, key=lambda a: a.number))),
    "min": Function((1, None), "min(a, b, ...)", _pick(lambda v: min(v, key=lambda a: a.number))),
    "round": Function((1, 2), "round(x) or round(x, places)", _round),
    "sin": Function((1, 1), "sin(x), x in radians", _trig("sin")),
    "sqrt": Function((1, 1), "sqrt(x)", _sqrt),
    "tan": Function((1, 1), "tan(x), x in radians", _trig("tan")),
}
"""Every function the calculator knows, by name."""


def _constant(value: Decimal) -> Value:
    return Value(Fraction(value), exact=False)


CONSTANTS: Final[dict[str, Callable[[], Value]]] = {
    "pi": lambda: _constant(pi_decimal(WORKING_DIGITS)),
    "e": lambda: _constant(Decimal(1).exp(context())),
}
"""Every constant the calculator knows, computed when used."""
