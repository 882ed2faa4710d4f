"""JSON values <-> LLMX values, losslessly.

LLMX has no null and its keys are words (`letter {letter|digit|_}`), so some JSON cannot be
written as LLMX values: a tool's payload with a `"Content-Type"` key, an item whose field is
null. Such a part travels as `{x_json:"<its JSON text>"}` and comes back as it was; everything
else is written as itself, so the compact form stays compact.
"""

from __future__ import annotations

import json
from typing import Any

from .lexer import NAME
from .limits import MAX_DEPTH, MAX_NUMBER_CHARS
from .model import Value

WRAP = "x_json"


DEPTH_BUDGET = MAX_DEPTH - 8
"""Nesting a converted value may use: a block and its field take some of MAX_DEPTH."""


def from_json(value: Any, depth: int = 0) -> Value:
    """`value` (parsed JSON) as an LLMX value."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value if len(str(value)) <= MAX_NUMBER_CHARS else _wrapped(value)
    if isinstance(value, float):
        return value if _writable(value) else _wrapped(value)
    if depth >= DEPTH_BUDGET:
        return _wrapped(value)
    if isinstance(value, list):
        return [from_json(item, depth + 1) for item in value]
    if isinstance(value, dict) and _word_keys(value):
        return {key: from_json(item, depth + 1) for key, item in value.items()}
    return _wrapped(value)


def to_json(value: Value) -> Any:
    """The JSON value that `from_json` turned into `value`."""
    if isinstance(value, list):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        wrapped = value.get(WRAP)
        if len(value) == 1 and isinstance(wrapped, str):
            return json.loads(wrapped)
        return {key: to_json(item) for key, item in value.items()}
    return value


def _word_keys(value: dict[Any, Any]) -> bool:
    if len(value) == 1 and WRAP in value:  # would read back as a wrapper
        return False
    return all(isinstance(key, str) and NAME.fullmatch(key) for key in value)


def _writable(value: float) -> bool:
    from .serialize import number_text

    try:
        number_text(value)
    except ValueError:
        return False
    return True


def _wrapped(value: Any) -> dict[str, Value]:
    return {WRAP: json.dumps(value, ensure_ascii=False, separators=(",", ":"))}
