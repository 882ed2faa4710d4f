"""`app.calculate`: evaluate an arithmetic expression exactly, with no eval and bounded cost.

The expression is tokenized and parsed by hand (calc_tokens, calc_parse) into a small tree
of numbers, the fixed constants and functions (calc_functions) and operators; here the tree
is evaluated on bounded fractions (calc_numbers) and written out (calc_format). Nothing in
the expression can name Python: any name outside the fixed list is refused, and every
refusal is one `CalculationError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from laika_host.tools.calc_bounds import MAX_PRECISION, CalculationError
from laika_host.tools.calc_format import format_value
from laika_host.tools.calc_functions import CONSTANTS, FUNCTIONS
from laika_host.tools.calc_numbers import Value, divide, fit, power
from laika_host.tools.calc_parse import Call, Chain, Constant, Negate, Node, Number, Power, parse

__all__ = ["CalculationError", "CalculationResult", "calculate", "evaluate"]


@dataclass(frozen=True)
class CalculationResult:
    """What `app.calculate` returns to the model.

    `value` is the decimal text; `exact` says it is the whole result, nothing rounded away
    (neither by `precision`, nor a decimal that never ends, nor an irrational function);
    `number` is the nearest float, None when the value is beyond a float's range.
    """

    expression: str
    value: str
    number: float | None
    precision: int | None
    exact: bool


def calculate(expression: str, precision: int | None = None) -> CalculationResult:
    """Evaluate `expression`; `precision` (0-100) rounds to that many digits after the point."""
    if precision is not None and (
        isinstance(precision, bool)
        or not isinstance(precision, int)
        or not 0 <= precision <= MAX_PRECISION
    ):
        raise CalculationError(
            f"precision {precision!r} is not a whole number from 0 to {MAX_PRECISION}",
            "give the digits wanted after the point, or leave precision out",
        )
    value = evaluate(parse(expression))
    text = format_value(value, precision)
    return CalculationResult(
        expression=expression,
        value=text,
        number=_float(value.number),
        precision=precision,
        exact=value.exact and Fraction(Decimal(text)) == value.number,
    )


def evaluate(node: Node) -> Value:
    """The value of a parsed tree (its depth is bounded by the parser)."""
    if isinstance(node, Number):
        return fit(node.value, True, node.position)
    if isinstance(node, Constant):
        return CONSTANTS[node.name]()
    if isinstance(node, Negate):
        operand = evaluate(node.operand)
        return Value(-operand.number, operand.exact)
    if isinstance(node, Power):
        return power(evaluate(node.base), evaluate(node.exponent), node.position)
    if isinstance(node, Call):
        arguments = [evaluate(argument) for argument in node.arguments]
        return FUNCTIONS[node.name].compute(arguments, node.position)
    return _chain(node)


def _chain(node: Chain) -> Value:
    total = evaluate(node.first)
    for step in node.steps:
        operand = evaluate(step.operand)
        exact = total.exact and operand.exact
        if step.operator == "+":
            total = fit(total.number + operand.number, exact, step.position)
        elif step.operator == "-":
            total = fit(total.number - operand.number, exact, step.position)
        elif step.operator == "*":
            total = fit(total.number * operand.number, exact, step.position)
        else:
            total = divide(total, operand, step.operator, step.position)
    return total


def _float(number: Fraction) -> float | None:
    try:
        return float(number)
    except OverflowError:
        return None
