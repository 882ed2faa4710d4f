"""Strict JSON decoding shared by `laika validate` and the native host.

Stricter than `json.loads`: UTF-8 only, no NaN/Infinity (not JSON), no key twice in one object
(parsers disagree on which wins, which an attacker can exploit), and no nesting deep enough to
exhaust the interpreter's stack.
"""

from __future__ import annotations

import json
from typing import Any


class NotJsonError(ValueError):
    """The input is not a JSON document at all (as opposed to JSON that breaks a schema)."""


def loads_strict(text: str | bytes) -> Any:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise NotJsonError(f"input is not UTF-8 text: {exc}") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise NotJsonError(f"input is not JSON: {exc}") from None
    except RecursionError:
        raise NotJsonError("input nests arrays or objects too deeply") from None


def _reject_constant(name: str) -> Any:
    raise NotJsonError(f"input is not strict JSON: {name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise NotJsonError(f"input has the key {key!r} twice in one object")
        result[key] = value
    return result
