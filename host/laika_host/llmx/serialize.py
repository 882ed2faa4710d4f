"""`Message` -> LLMX text in the one canonical form: `parse(serialize(m)) == m`.

One block a line, no spaces, fields in their order. Strings are quoted, except the fields
the spec's examples write bare (`f:Claude`, `s:OK`, `op:edit`; `blocks.bare_fields`) when the
text is a word that reads back as the same string. PLAN steps are tuples `(...)`. Numbers
never use exponents (the grammar has none). What LLMX cannot hold (null, a key that is not a
word, a number past the literal bound) is refused with `LlmxError`, never written wrongly.
"""

from __future__ import annotations

import math
from decimal import Decimal

from .blocks import PLAN, bare_fields
from .errors import LlmxError
from .lexer import NAME, SHORTCUT_CHARS
from .limits import MAX_DEPTH, MAX_NUMBER_CHARS
from .model import Block, Message, Value

_CONTROL = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def serialize(message: Message) -> str:
    """The message's canonical LLMX text, one block a line."""
    return "\n".join(serialize_block(block) for block in message.blocks)


def serialize_block(block: Block) -> str:
    if not NAME.fullmatch(block.type):
        raise LlmxError(f"block type {block.type!r} is not a word (letters, digits, _)")
    bare = bare_fields(block.type)
    if isinstance(block.value, list):
        steps = block.type == PLAN
        items = [_value(item, 2, bare if steps else frozenset(), steps) for item in block.value]
        return f"{block.type}:[{','.join(items)}]"
    if isinstance(block.value, dict):
        return f"{block.type}:{_object(block.value, 1, bare, '{}')}"
    raise LlmxError(f"block {block.type} must hold an object or an array")


def quote(text: str) -> str:
    """`text` as an LLMX string literal (JSON's escapes). Every control character and line
    separator is escaped, so a message is one block a line for any line splitter."""
    out = []
    for char in text:
        escaped = _CONTROL.get(char)
        if escaped is None and (char < " " or "\x7f" <= char <= "\x9f" or char in "\u2028\u2029"):
            escaped = f"\\u{ord(char):04x}"
        out.append(escaped or char)
    return '"' + "".join(out) + '"'


def _is_bare(text: str) -> bool:
    if NAME.fullmatch(text):
        return text not in ("true", "false", "null")
    if not text or text[0] not in SHORTCUT_CHARS:
        return False
    head = len(text) - len(text.lstrip(SHORTCUT_CHARS))
    rest = text[head:]
    return (not rest or (rest.replace("_", "a").isalnum() and rest.isascii())) and not (
        text[0] == "-" and rest[:1].isdigit() and head == 1
    )


def _object(fields: dict[str, Value], depth: int, bare: frozenset[str], marks: str) -> str:
    parts = []
    for key, value in fields.items():
        if not isinstance(key, str) or not NAME.fullmatch(key):
            raise LlmxError(f"key {key!r} is not an LLMX field name (letters, digits, _)")
        if key in bare and isinstance(value, str) and _is_bare(value):
            parts.append(f"{key}:{value}")
        else:
            parts.append(f"{key}:{_value(value, depth + 1, frozenset(), False)}")
    return marks[0] + ",".join(parts) + marks[1]


def _value(value: Value, depth: int, bare: frozenset[str], as_tuple: bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _checked_number(str(value))
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return quote(value)
    if depth > MAX_DEPTH:
        raise LlmxError(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, list):
        return "[" + ",".join(_value(item, depth + 1, frozenset(), False) for item in value) + "]"
    if isinstance(value, dict):
        return _object(value, depth, bare, "()" if as_tuple else "{}")
    raise LlmxError(f"{type(value).__name__} has no LLMX form (null is not part of LLMX)")


def _float(value: float) -> str:
    try:
        return number_text(value)
    except ValueError as error:
        raise LlmxError(str(error)) from None


def number_text(value: float) -> str:
    """A finite float in the grammar's form (no exponent); ValueError past the length bound."""
    if not math.isfinite(value):
        raise ValueError(f"{value} has no LLMX form (numbers are finite)")
    text = repr(value)
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
    if "." not in text:
        text += ".0"
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"number {text[:20]}... is longer than {MAX_NUMBER_CHARS} characters")
    return text


def _checked_number(text: str) -> str:
    if len(text) > MAX_NUMBER_CHARS:
        raise LlmxError(f"number {text[:20]}... is longer than {MAX_NUMBER_CHARS} characters")
    return text
