"""Parse calculator tokens into a small tree: precedence climbing with a depth count.

Grammar, loosest first (`^` and `**` both mean power, right-associative, binding tighter
than a sign, so -2^2 = -4 and 2^-1 = 0.5):

    sum     := product (("+" | "-") product)*
    product := signed (("*" | "/" | "//" | "%") signed)*
    signed  := ("+" | "-") signed | power
    power   := atom ("^" signed)?
    atom    := NUMBER | CONSTANT | FUNCTION "(" sum ("," sum)* ")" | "(" sum ")"

Left-associative runs become one flat `Chain`, so a long sum neither recurses nor builds a
deep tree; only brackets, signs and powers nest, and `MAX_DEPTH` bounds them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from laika_host.tools.calc_bounds import MAX_DEPTH, CalculationError
from laika_host.tools.calc_functions import CONSTANTS, FUNCTIONS, Arity
from laika_host.tools.calc_tokens import Token, tokenize

KNOWN: Final = (
    f"the constants {', '.join(sorted(CONSTANTS))} and the functions {', '.join(sorted(FUNCTIONS))}"
)


@dataclass(frozen=True)
class Number:
    value: Fraction
    position: int


@dataclass(frozen=True)
class Constant:
    name: str
    position: int


@dataclass(frozen=True)
class Negate:
    operand: Node
    position: int


@dataclass(frozen=True)
class Power:
    base: Node
    exponent: Node
    position: int


@dataclass(frozen=True)
class Step:
    operator: str
    operand: Node
    position: int


@dataclass(frozen=True)
class Chain:
    """`first` then each step in order: `a - b + c` is Chain(a, [-b, +c])."""

    first: Node
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Call:
    name: str
    arguments: tuple[Node, ...]
    position: int


Node = Number | Constant | Negate | Power | Chain | Call


def parse(expression: str) -> Node:
    """The tree of `expression`, or a CalculationError naming the first problem."""
    return _Parser(tokenize(expression)).parse()


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.index = 0
        self.depth = 0

    @property
    def token(self) -> Token:
        return self.tokens[self.index]

    def take(self) -> Token:
        token = self.token
        self.index += 1
        return token

    def parse(self) -> Node:
        node = self.sum()
        if self.token.kind != "end":
            raise _leftover(self.token)
        return node

    def sum(self) -> Node:
        return self.chain(("+", "-"), self.product)

    def product(self) -> Node:
        return self.chain(("*", "/", "//", "%"), self.signed)

    def chain(self, operators: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        first = operand()
        steps: list[Step] = []
        while self.token.kind == "operator" and self.token.text in operators:
            operator = self.take()
            steps.append(Step(operator.text, operand(), operator.position))
        return Chain(first, tuple(steps)) if steps else first

    def signed(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CalculationError(
                f"brackets, signs and powers nest more than {MAX_DEPTH} levels deep",
                "simplify the expression or split it into steps",
                self.token.position,
            )
        try:
            if self.token.kind == "operator" and self.token.text in ("+", "-"):
                sign = self.take()
                operand = self.signed()
                return operand if sign.text == "+" else Negate(operand, sign.position)
            return self.power()
        finally:
            self.depth -= 1

    def power(self) -> Node:
        base = self.atom()
        if self.token.kind == "operator" and self.token.text == "^":
            operator = self.take()
            return Power(base, self.signed(), operator.position)
        return base

    def atom(self) -> Node:
        token = self.take()
        if token.kind == "number" and token.value is not None:
            return Number(token.value, token.position)
        if token.kind == "open":
            inner = self.sum()
            self.close(token)
            return inner
        if token.kind == "name":
            return self.named(token)
        raise CalculationError(
            f"expected a number, a function or '(' but found {_describe(token)}",
            "check for a missing number or an extra operator",
            token.position,
        )

    def named(self, name: Token) -> Node:
        called = self.token.kind == "open"
        if name.text in CONSTANTS:
            if called:
                raise CalculationError(
                    f"{name.text} is a constant, not a function",
                    f"write {name.text} * (...) to multiply",
                    name.position,
                )
            return Constant(name.text, name.position)
        if name.text in FUNCTIONS:
            if not called:
                raise CalculationError(
                    f"{name.text} is a function", f"write {name.text}(x)", name.position
                )
            return self.call(name, FUNCTIONS[name.text].arity)
        what = "function" if called else "name"
        raise CalculationError(
            f"unknown {what} {name.text!r}: Python names, attributes and calls are not evaluated",
            f"use only numbers, {KNOWN}",
            name.position,
        )

    def call(self, name: Token, arity: Arity) -> Node:
        opening = self.take()
        arguments = [self.sum()] if self.token.kind != "close" else []
        while self.token.kind == "comma":
            self.take()
            arguments.append(self.sum())
        self.close(opening)
        low, high = arity
        if not low <= len(arguments) <= (high if high is not None else len(arguments)):
            wanted = f"{low} or more" if high is None else f"{low} to {high}"
            if low == high:
                wanted = str(low)
            raise CalculationError(
                f"{name.text} takes {wanted} argument(s), not {len(arguments)}",
                f"see {FUNCTIONS[name.text].usage}",
                name.position,
            )
        return Call(name.text, tuple(arguments), name.position)

    def close(self, opening: Token) -> None:
        if self.token.kind != "close":
            raise CalculationError(
                f"the '(' at character {opening.position + 1} is not closed: found "
                f"{_describe(self.token)}",
                "add the missing ')' or an operator",
                self.token.position,
            )
        self.take()


def _describe(token: Token) -> str:
    return token.text if token.kind == "end" else repr(token.text)


def _leftover(token: Token) -> CalculationError:
    if token.kind == "close":
        return CalculationError("a ')' without its '('", "remove it or add the '('", token.position)
    if token.kind == "comma":
        return CalculationError(
            "a ',' outside a function call",
            "write numbers without thousands separators (1000, not 1,000)",
            token.position,
        )
    return CalculationError(
        f"a missing operator before {_describe(token)}",
        "write 2*pi or 2*(3+4), not 2pi or 2(3+4)",
        token.position,
    )
