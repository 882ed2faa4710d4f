"""A message as JSON and back: what `laika llmx parse` prints and `laika llmx encode` reads.

    {"blocks": [{"type": "HEADER", "value": {...}}, ...],
     "warnings": ["custom field x_team in block 2 (REQ) kept", ...],
     "shortcuts": [{"block": 2, "field": "tgt", "text": "p:a.ts#L4", "kind": "path", ...}]}

`warnings` and `shortcuts` are derived: `message_from_json` reads `blocks` only, and the
message it returns has been through `parse`, so every check and warning applies.
"""

from __future__ import annotations

from typing import Any

from .errors import LlmxError
from .model import Block, Message, Value
from .parser import parse
from .serialize import serialize
from .shortcuts import expand_op, expand_target

_PATH_FIELDS = {"CTX": ("f",), "ACT": ("tgt",), "END": ("del",)}


def message_to_json(message: Message) -> dict[str, Any]:
    return {
        "blocks": [block.to_json() for block in message.blocks],
        "warnings": list(message.warnings),
        "shortcuts": shortcuts(message),
    }


def message_from_json(data: Any) -> Message:
    """The message `data` describes, checked as if it had been sent as LLMX text."""
    blocks = data.get("blocks") if isinstance(data, dict) else None
    if not isinstance(blocks, list):
        raise LlmxError('give {"blocks": [{"type": "HEADER", "value": {...}}, ...]}')
    built = []
    for index, item in enumerate(blocks, start=1):
        if not (isinstance(item, dict) and isinstance(item.get("type"), str)):
            raise LlmxError(f"blocks[{index - 1}] needs a string type and a value")
        value = item.get("value")
        if not isinstance(value, dict | list):
            raise LlmxError(f"blocks[{index - 1}]: value must be an object or an array")
        built.append(Block(item["type"], value))
    return parse(serialize(Message(tuple(built))))


def shortcuts(message: Message) -> list[dict[str, Any]]:
    """Each shortcut the message uses, expanded, with the block and field that carry it."""
    found: list[dict[str, Any]] = []
    for number, block in enumerate(message.blocks, start=1):
        fields = block.fields
        if block.type == "ACT" and isinstance(fields.get("op"), str):
            op = expand_op(str(fields["op"]))
            if op.meanings:
                found.append({"block": number, "field": "op", **op.to_json()})
        for name in _PATH_FIELDS.get(block.type, ()):
            for text in _texts(fields.get(name)):
                ref = expand_target(text)
                if ref.kind != "text":
                    found.append({"block": number, "field": name, **ref.to_json()})
    return found


def _texts(value: Value | None) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []
