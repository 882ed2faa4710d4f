"""LLMX text -> `Message`: recursive descent over the lexer's tokens, depth-bounded.

`parse` reads one message (HEADER first, exactly once); `parse_blocks` reads a run of blocks
with no HEADER rule (the spec's one-block examples). Both check each standard block against
its table (`blocks`), keep `X_` blocks and `x_` fields with a warning, and drop unknown block
types with the spec's warning. Every failure is an `LlmxError` naming block, field and place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .batches import check_ids
from .blocks import CUSTOM_BLOCK, STANDARD, check_block
from .errors import LlmxError, position
from .lexer import Lexer, Token
from .limits import MAX_BLOCKS, MAX_DEPTH, MAX_INPUT_CHARS
from .model import HEADER, Block, Fields, Message, Value


@dataclass
class _Read:
    """A block as read, with where it and each of its top-level fields start."""

    type: str
    value: Fields | list[Value]
    offset: int
    places: dict[str, int] = field(default_factory=dict)


def parse(text: str) -> Message:
    """One LLMX message; raises `LlmxError` (the NACK) when it is not one."""
    blocks, warnings = _checked(text, message=True)
    if not blocks:
        raise LlmxError("empty message: it starts with HEADER:{f:SENDER,t:TARGET,s:SEQUENCE}")
    message = Message(tuple(blocks), tuple(warnings))
    check_ids(message)
    return message


def parse_blocks(text: str) -> list[Block]:
    """Blocks with no HEADER rule, each checked alone (for one-block snippets)."""
    return _checked(text, message=False)[0]


def _checked(text: str, *, message: bool) -> tuple[list[Block], list[str]]:
    kept: list[Block] = []
    warnings: list[str] = []
    for number, read in enumerate(_Parser(text).blocks(), start=1):
        name = f"block {number} ({read.type})"
        if message and (number == 1) != (read.type == HEADER):
            problem = _FIRST if number == 1 else "a second HEADER: send one message at a time"
            raise LlmxError(problem, block=name, at=position(text, read.offset))
        if read.type in STANDARD:
            try:
                custom = check_block(read.type, read.value)
            except LlmxError as error:
                offset = read.places.get(error.field or "", read.offset)
                raise error.in_block(name).located(text, offset) from None
            warnings += [f"custom field {key} in {name} kept" for key in custom]
        elif read.type.startswith(CUSTOM_BLOCK):
            warnings.append(f"custom message type {read.type} in {name} kept")
        else:
            warnings.append(f"unknown message type: {read.type} ignored")
            continue
        kept.append(Block(read.type, read.value))
    return kept, warnings


_FIRST = "a message starts with HEADER:{f:SENDER,t:TARGET,s:SEQUENCE}"


class _Parser:
    def __init__(self, text: str) -> None:
        if len(text) > MAX_INPUT_CHARS:
            raise LlmxError(f"message longer than {MAX_INPUT_CHARS} characters; split it")
        self.lexer = Lexer(text)
        self.field: str | None = None
        """The top-level field being read, so a syntax error inside it can name it."""

    def blocks(self) -> list[_Read]:
        found: list[_Read] = []
        while True:
            number = len(found) + 1
            try:
                token = self.lexer.next()
            except LlmxError as error:
                raise error.in_block(f"block {number}") from None
            if token.kind == "end":
                return found
            if len(found) >= MAX_BLOCKS:
                raise self.lexer.fail(f"more than {MAX_BLOCKS} blocks in one message", token.offset)
            found.append(self._named_block(token, number))

    def _named_block(self, token: Token, number: int) -> _Read:
        """A block whose syntax errors name it (`block 2 (REQ)`) and the field being read."""
        name = f"block {number} ({token.text})" if token.kind == "name" else f"block {number}"
        self.field = None
        try:
            return self._block(token)
        except LlmxError as error:
            raise error.in_block(name, self.field) from None

    def _block(self, token: Token) -> _Read:
        if token.kind != "name":
            raise self.lexer.fail(
                f"expected a block type such as REQ before ':' (got {token.text!r})", token.offset
            )
        self._expect(":", f"after block type {token.text}")
        opening = self.lexer.next()
        read = _Read(token.text, {}, token.offset)
        if opening.text == "{" and opening.kind == "punct":
            read.value = self._object(opening, 1, "}", read.places)
        elif opening.text == "[" and opening.kind == "punct":
            read.value = self._array(1)
        else:
            raise self.lexer.fail(
                f"block {token.text} needs an object {{...}} or an array [...] after ':'",
                opening.offset,
            )
        return read

    def _expect(self, char: str, where: str) -> Token:
        token = self.lexer.next()
        if token.kind != "punct" or token.text != char:
            shown = token.text if token.kind != "end" else "end of input"
            raise self.lexer.fail(f"expected {char!r} {where} (got {shown!r})", token.offset)
        return token

    def _value(self, token: Token, depth: int) -> Value:
        if token.kind in {"string", "symbol"}:
            return token.text
        if token.kind == "name":
            if token.text == "null":
                raise self.lexer.fail("LLMX has no null: leave the field out", token.offset)
            return {"true": True, "false": False}.get(token.text, token.text)
        if token.kind == "number":
            return self._number(token)
        if token.kind == "punct" and token.text in "{[(":
            if depth >= MAX_DEPTH:
                raise self.lexer.fail(f"nested deeper than {MAX_DEPTH} levels", token.offset)
            if token.text == "[":
                return self._array(depth + 1)
            return self._object(token, depth + 1, "}" if token.text == "{" else ")", None)
        shown = token.text if token.kind != "end" else "end of input"
        raise self.lexer.fail(f"expected a value (got {shown!r})", token.offset)

    def _number(self, token: Token) -> Value:
        if "." not in token.text:
            return int(token.text)
        value = float(token.text)
        if not math.isfinite(value):
            raise self.lexer.fail("number out of range", token.offset)
        return value

    def _object(
        self, opening: Token, depth: int, close: str, places: dict[str, int] | None
    ) -> Fields:
        fields: Fields = {}
        token = self.lexer.next()
        if token.kind == "punct" and token.text == close:
            return fields
        while True:
            if places is not None:
                self.field = token.text if token.kind == "name" else None
            if token.kind != "name":
                raise self.lexer.fail(_not_a_key(token), token.offset)
            if token.text in fields:
                raise self.lexer.fail(f"field {token.text!r} given twice", token.offset)
            self._expect(":", f"after field name {token.text}")
            if places is not None:
                places[token.text] = token.offset
            key, read = token.text, self.lexer.next()
            fields[key] = self._value(read, depth)
            token = self.lexer.next()
            if token.kind == "punct" and token.text == close:
                return fields
            if token.kind != "punct" or token.text != ",":
                raise self.lexer.fail(
                    _separator(f"',' or {close!r} after the value of {key}", read, token),
                    token.offset,
                )
            token = self.lexer.next()

    def _array(self, depth: int) -> list[Value]:
        items: list[Value] = []
        token = self.lexer.next()
        if token.kind == "punct" and token.text == "]":
            return items
        while True:
            read = token
            items.append(self._value(read, depth))
            token = self.lexer.next()
            if token.kind == "punct" and token.text == "]":
                return items
            if token.kind != "punct" or token.text != ",":
                raise self.lexer.fail(
                    _separator("',' or ']' in an array", read, token), token.offset
                )
            token = self.lexer.next()


def _not_a_key(token: Token) -> str:
    if token.kind == "string":
        shown = token.text[:40]
        return f'a field name is a bare word: write {shown}: rather than "{shown}":'
    return f"expected a field name such as o (got {token.text or 'end of input'!r})"


def _separator(expected: str, value: Token, found: Token) -> str:
    """What should follow a value; after a bare word, how to write text it cannot hold."""
    shown = found.text if found.kind != "end" else "end of input"
    problem = f"expected {expected} (got {shown!r})"
    if value.kind in {"name", "symbol"} and found.kind != "end":
        problem += '; a bare word is letters, digits and _: quote other text, as in "a b-c"'
    return problem
