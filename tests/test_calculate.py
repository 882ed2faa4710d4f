"""app.calculate's evaluator: exact answers, and every hostile or oversized input refused
fast with the one error class, naming the problem and where."""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.errors import RefusedError, native_code
from laika_host.protocol.tools import CalculateArguments
from laika_host.tools.calc_bounds import MAX_PRECISION, CalculationError
from laika_host.tools.calc_functions import CONSTANTS, FUNCTIONS
from laika_host.tools.calc_parse import parse
from laika_host.tools.calculate import CalculationResult, calculate, evaluate

EXACT = [
    ("0.1 + 0.2", "0.3"),
    ("1 - 0.9", "0.1"),
    ("2 ^ 10", "1024"),
    ("2 ** 10", "1024"),
    ("2 ^ 3 ^ 2", "512"),  # right-associative
    ("-2 ^ 2", "-4"),  # the sign binds looser than the power
    ("(-2) ^ 2", "4"),
    ("2 ^ -2", "0.25"),
    ("2 * 3 + 4", "10"),
    ("2 * (3 + 4)", "14"),
    ("10 - 4 - 3", "3"),  # left-associative
    ("100 / 10 / 5", "2"),
    ("7 / 2", "3.5"),
    ("7 // 2", "3"),
    ("-7 // 2", "-4"),  # floor division rounds down, as in Python
    ("7 % 3", "1"),
    ("-7 % 3", "2"),  # the remainder takes the divisor's sign
    ("7.5 % 2", "1.5"),
    ("1 / 8", "0.125"),
    ("1 / 3 * 3", "1"),
    ("--3", "3"),
    ("+3", "3"),
    ("1.5e3", "1500"),
    ("2.5E-3", "0.0025"),
    (".5 + 1.", "1.5"),
    ("2^100", "1267650600228229401496703205376"),
    ("123456789012345678901234567890 * 10", "1234567890123456789012345678900"),
    ("sqrt(16)", "4"),
    ("sqrt(0.25)", "0.5"),
    ("8 ^ (1/3)", "2"),
    ("(-8) ^ (1/3)", "-2"),
    ("27 ^ (2/3)", "9"),
    ("4 ^ 0.5", "2"),
    ("abs(-3.25)", "3.25"),
    ("round(2.5)", "3"),
    ("round(-2.5)", "-3"),
    ("round(1.2345, 2)", "1.23"),
    ("round(1250, -2)", "1300"),
    ("floor(-1.5)", "-2"),
    ("ceil(-1.5)", "-1"),
    ("min(3, -1, 2)", "-1"),
    ("max(3, -1, 2)", "3"),
    ("log(1000)", "3"),
    ("ln(1)", "0"),
    ("exp(0)", "1"),
    ("cos(0)", "1"),
    ("sin(0)", "0"),
    ("0 ^ 0", "1"),
    ("(-1) ^ 1000001", "-1"),
    ("1 ^ 99999999999", "1"),
    ("3 \u00d7 4 \u2212 2 \u00f7 4", "11.5"),  # typographic times, minus, division sign
    ("1e-7", "1e-7"),
]


@pytest.mark.parametrize(("expression", "expected"), EXACT)
def test_exact_results(expression: str, expected: str) -> None:
    result = calculate(expression)
    assert (result.value, result.exact) == (expected, True)
    assert result.number == float(Fraction(Decimal(expected)))


ROUNDED = [
    ("1 / 3", None, "0.3333333333333333333333333333"),
    ("2 / 3", 2, "0.67"),
    ("2 / 3", 0, "1"),
    ("-0.001", 2, "0.00"),  # no negative zero
    ("0.125", 2, "0.13"),  # ties away from zero
    ("-0.125", 2, "-0.13"),
    ("sqrt(2)", None, "1.414213562373095048801688724"),
    ("sqrt(2)", 10, "1.4142135624"),
    ("pi", 5, "3.14159"),
    ("pi", 100, "3.1415926535897932384626433832795028841971693993751"),  # 50 digits at most
    ("e", 3, "2.718"),
    ("sin(pi)", None, "0"),
    ("cos(pi)", None, "-1"),
    ("sin(pi / 6)", None, "0.5"),
    ("tan(pi / 4)", None, "1"),
    ("ln(e)", None, "1"),
    ("log(8, 2)", None, "3"),
    ("exp(1)", 10, "2.7182818285"),
    ("exp(100)", None, "2.688117141816135448412625552e+43"),
    ("1e-7 / 3", None, "3.333333333333333333333333333e-8"),
    ("1.0001 ^ 100000", 6, "22015.456049"),
]


@pytest.mark.parametrize(("expression", "precision", "expected"), ROUNDED)
def test_rounded_results_say_they_are_not_exact(
    expression: str, precision: int | None, expected: str
) -> None:
    result = calculate(expression, precision)
    assert (result.value, result.precision, result.exact) == (expected, precision, False)


REFUSED = [
    ("", "empty"),
    ("   ", "empty"),
    ("x", "unknown name 'x'"),
    ("os", "unknown name 'os'"),
    ("__import__(1)", "unknown function '__import__'"),
    ("__import__('os').system('true')", "strings are not allowed"),
    ("eval(1)", "unknown function 'eval'"),
    ("open(1)", "unknown function 'open'"),
    ("lambda: 1", "the character ':'"),
    ("lambda", "unknown name 'lambda'"),
    ("[x for x in 1]", "lists, subscripts and sets"),
    ("(1).real", "attribute access"),
    ("pi.real", "attribute access"),
    ("sqrt.x", "attribute access"),
    ("1.5.real", "attribute access"),
    ("'1'", "strings are not allowed"),
    ('"1" * 9', "strings are not allowed"),
    ("(1)[0]", "lists, subscripts and sets"),
    ("{1}", "lists, subscripts and sets"),
    ("1 == 1", "comparisons and assignments"),
    ("a = 1", "comparisons and assignments"),
    ("1 & 3", "bitwise"),
    ("1; 2", "the character ';'"),
    ("pi(2)", "pi is a constant, not a function"),
    ("sqrt", "sqrt is a function"),
    ("sqrt(1, 2)", "sqrt takes 1 argument(s), not 2"),
    ("round()", "round takes 1 to 2 argument(s), not 0"),
    ("2pi", "missing operator before 'pi'"),
    ("2(3)", "missing operator before '('"),
    ("0x10", "missing operator before 'x10'"),
    ("1_000", "missing operator before '_000'"),
    ("1,000", "a ',' outside a function call"),
    ("1 +", "expected a number"),
    ("* 2", "expected a number"),
    ("(1 + 2", "is not closed"),
    ("1 + 2)", "a ')' without its '('"),
    ("1 / 0", "division by zero"),
    ("1 // (2 - 2)", "division by zero"),
    ("1 % 0", "division by zero"),
    ("0 ^ -1", "0 to a negative power"),
    ("(-2) ^ 0.5", "a negative number to the power 0.5 has no real value"),
    ("sqrt(-1)", "square root of a negative number"),
    ("log(0)", "logarithm of zero or a negative number"),
    ("ln(-1)", "logarithm of zero or a negative number"),
    ("log(10, 1)", "logarithm to base 1"),
    ("tan(pi / 2)", "tan at an odd multiple of pi/2"),
    ("round(1, 0.5)", "round's places must be a whole number"),
    ("9**9**9", "the power 9^387420489 has an exponent above 1,000,000"),
    ("10**100000", "the power 10^100000 has about 10^100,000, outside 10^±1000"),
    ("2 ^ 3322", "outside 10^±1000"),
    ("0.5 ^ 3322", "the power 0.5^3322 has about 10^-1,000, outside 10^±1000"),
    ("(10^999) * 100", "a result of about 10^1001"),
    ("exp(3000)", "exp of a number beyond"),
    ("sin(1e31)", "beyond 1e30"),
    ("1e1001", "an exponent beyond ±1000"),
    ("1e99999999999999999999", "an exponent beyond ±1000"),
    ("1" * 500, "a number with more than 100 digits"),
    ("0." + "0" * 300 + "1", "a number with more than 100 digits"),
    ("1" * 5000, "5,000 characters long, over the limit of 1,000"),
    ("(" * 10_000 + "1" + ")" * 10_000, "20,001 characters long"),
    ("(" * 150 + "1" + ")" * 150, "nest more than 64 levels deep"),
    ("-" * 300 + "1", "nest more than 64 levels deep"),
    ("2^" * 150 + "1", "nest more than 64 levels deep"),
    ("+".join(["1"] * 450), "more than 400 tokens"),
]


@pytest.mark.parametrize(("expression", "problem"), REFUSED)
def test_refusals_name_the_problem_and_the_fix(expression: str, problem: str) -> None:
    started = time.perf_counter()
    with pytest.raises(CalculationError) as refused:
        calculate(expression)
    assert time.perf_counter() - started < 2  # generous: each takes well under a millisecond
    message = str(refused.value)
    assert problem in message
    assert "; " in message  # then the fix
    assert isinstance(refused.value, RefusedError)
    assert native_code(refused.value) == "bad_request"


def test_a_refusal_names_the_position() -> None:
    with pytest.raises(CalculationError) as refused:
        calculate("1 + 2 * foo")
    assert "at character 9" in str(refused.value)
    assert refused.value.error_details() == {"position": 8}


@pytest.mark.parametrize("precision", [-1, MAX_PRECISION + 1, True, 1.5, "2"])
def test_precision_outside_the_argument_model_is_refused(precision: object) -> None:
    with pytest.raises(CalculationError, match="precision"):
        calculate("1", precision)  # type: ignore[arg-type]


def test_precision_bound_is_the_argument_models() -> None:
    schema = CalculateArguments.model_json_schema()["properties"]["precision"]["anyOf"][0]
    assert (schema["minimum"], schema["maximum"]) == (0, MAX_PRECISION)


def test_precision_pads_an_exact_value() -> None:
    result = calculate("1", 3)
    assert (result.value, result.exact) == ("1.000", True)


def test_the_model_facing_docs_list_every_function_and_constant() -> None:
    docs = " ".join((Path(__file__).resolve().parents[1] / "docs" / "llmcp.md").read_text().split())
    assert f"the functions `{' '.join(sorted(FUNCTIONS))}`" in docs
    assert f"the constants `{'`, `'.join(sorted(CONSTANTS, reverse=True))}`" in docs


def test_values_beyond_a_float_keep_their_digits() -> None:
    result = calculate("10 ^ 400 + 1")
    assert (result.value, result.number, result.exact) == ("1" + "0" * 399 + "1", None, True)


# --- Random well-formed expressions against Python's own Fraction arithmetic -------------


@dataclass(frozen=True)
class Leaf:
    value: int


@dataclass(frozen=True)
class Neg:
    operand: Tree


@dataclass(frozen=True)
class Binary:
    operator: str
    left: Tree
    right: Tree


@dataclass(frozen=True)
class Pow:
    base: Tree
    exponent: int


Tree = Leaf | Neg | Binary | Pow
LEVEL = {"+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2}


def trees() -> st.SearchStrategy[Tree]:
    leaves = st.builds(Leaf, st.integers(0, 30))
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.builds(Neg, children),
            st.builds(Binary, st.sampled_from(sorted(LEVEL)), children, children),
            st.builds(Pow, children, st.integers(-3, 3)),
        ),
        max_leaves=12,
    )


def level(tree: Tree) -> int:
    if isinstance(tree, Leaf):
        return 5
    if isinstance(tree, Pow):
        return 4
    return 3 if isinstance(tree, Neg) else LEVEL[tree.operator]


def render(tree: Tree, spaced: bool, power: str) -> str:
    """The tree as text with only the parentheses precedence needs."""

    def wrap(child: Tree, needs: bool) -> str:
        text = render(child, spaced, power)
        return f"({text})" if needs else text

    gap = " " if spaced else ""
    if isinstance(tree, Leaf):
        return str(tree.value)
    if isinstance(tree, Neg):
        return "-" + wrap(tree.operand, level(tree.operand) < 3)
    if isinstance(tree, Pow):
        return f"{wrap(tree.base, level(tree.base) <= 4)}{power}{tree.exponent}"
    mine = LEVEL[tree.operator]
    left = wrap(tree.left, level(tree.left) < mine)
    right = wrap(tree.right, level(tree.right) <= mine)
    return f"{left}{gap}{tree.operator}{gap}{right}"


class HugeError(Exception):
    """The exact value would be too big to compute in a test."""


def exact_value(tree: Tree) -> Fraction:
    """Python's own exact arithmetic on the same tree (ZeroDivisionError where it fails)."""
    if isinstance(tree, Leaf):
        return Fraction(tree.value)
    if isinstance(tree, Neg):
        return -exact_value(tree.operand)
    if isinstance(tree, Pow):
        base = exact_value(tree.base)
        if bits(base) * abs(tree.exponent) > 3_000:
            raise HugeError
        return base**tree.exponent
    left, right = exact_value(tree.left), exact_value(tree.right)
    operations = {
        "+": left.__add__,
        "-": left.__sub__,
        "*": left.__mul__,
        "/": left.__truediv__,
        "//": lambda r: Fraction(left // r),
        "%": left.__mod__,
    }
    result = operations[tree.operator](right)
    assert isinstance(result, Fraction)
    if bits(result) > 3_000:
        raise HugeError
    return result


def bits(number: Fraction) -> int:
    return max(number.numerator.bit_length(), number.denominator.bit_length())


def depth(tree: Tree) -> int:
    if isinstance(tree, Leaf):
        return 1
    if isinstance(tree, Neg | Pow):
        return 1 + depth(tree.operand if isinstance(tree, Neg) else tree.base)
    return 1 + max(depth(tree.left), depth(tree.right))


def fixed(number: Fraction, places: int) -> Fraction:
    """`number` rounded to `places` decimals, ties away from zero."""
    scaled = Fraction(math.floor(abs(number) * 10**places + Fraction(1, 2)), 10**places)
    return scaled if number >= 0 else -scaled


@given(trees(), st.booleans(), st.sampled_from(["^", "**"]), st.integers(0, 20))
def test_well_formed_expressions_match_fraction_arithmetic(
    tree: Tree, spaced: bool, power: str, places: int
) -> None:
    assume(depth(tree) <= 25)  # deeper nesting is refused, tested above
    text = render(tree, spaced, power)
    try:
        expected = exact_value(tree)
    except HugeError:
        assume(False)
        raise
    except ZeroDivisionError:
        with pytest.raises(CalculationError, match=r"division by zero|0 to a negative power"):
            calculate(text)
        return
    value = evaluate(parse(text))
    assert (value.number, value.exact) == (expected, True)
    result = calculate(text, precision=places)
    assert Fraction(Decimal(result.value)) == fixed(expected, places)
    assert result.exact == (fixed(expected, places) == expected)


# --- Anything else: one error class, bounded time ----------------------------------------

CALCULATOR_CHARACTERS = "0123456789.eE+-*/%^(), \tpiqrtsxlnogabcdmf_[]'\"=!&\u00d7\u03c0"


TOKEN_SOUP = st.lists(
    st.one_of(
        st.sampled_from([*FUNCTIONS, *CONSTANTS, "x", "(", ")", ",", "+", "-", "*", "/", "//"]),
        st.sampled_from(["%", "^", "**", "e", "0", "1", "-1", "0.5", "1e999", "1e-999"]),
        st.integers(-(10**30), 10**30).map(str),
        st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    ),
    max_size=60,
).map(" ".join)
"""Tokens the calculator knows, in any order: mostly nonsense, some deep, some huge."""


@given(
    st.one_of(st.text(max_size=300), st.text(CALCULATOR_CHARACTERS, max_size=300), TOKEN_SOUP),
    st.none() | st.integers(0, MAX_PRECISION),
)
def test_any_text_gives_a_result_or_the_one_error(expression: str, precision: int | None) -> None:
    started = time.process_time()
    outcome = _outcome(expression, precision)
    assert time.process_time() - started < 2
    if isinstance(outcome, CalculationError):
        assert "; " in str(outcome)  # the problem, then the fix
    else:
        assert outcome.value
        assert outcome.expression == expression


def _outcome(expression: str, precision: int | None) -> CalculationResult | CalculationError:
    try:
        return calculate(expression, precision)
    except CalculationError as refused:
        return refused


@given(st.text("(-^2)", min_size=1, max_size=1_000))
def test_deep_brackets_signs_and_powers_never_overflow_the_stack(expression: str) -> None:
    with contextlib.suppress(CalculationError):
        calculate(expression)


@pytest.mark.parametrize(
    "piece",
    ["1 + ", "(2*3) - ", "sqrt(2) * ", "9^9^9 + ", "1/3 + ", "e^2 - "],
)
def test_cost_grows_linearly_with_the_expression(piece: str) -> None:
    def prepare(size: int) -> object:
        text = (piece * (size // len(piece) + 1))[:size].rstrip(" +-*^/(") + "1"
        balanced = text + ")" * (text.count("(") - text.count(")"))
        return lambda: _attempt(balanced)

    assert_linear(prepare, 100, 400, bound=10)  # linear 4, quadratic 16 (under 400 tokens)


def _attempt(expression: str) -> None:
    with contextlib.suppress(CalculationError):
        calculate(expression)


def test_oversized_input_is_refused_before_it_is_read() -> None:
    def prepare(size: int) -> object:
        text = "9" * size
        return lambda: _attempt(text)

    assert_linear(prepare, 100_000, 1_000_000, bound=5)  # refused on its length alone
