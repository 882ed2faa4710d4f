"""How deeply a JSON text nests, measured before anything parses it.

Python's JSON decoder, jsonschema, pydantic and pprint all recurse once per level, so text
from outside (a model's reply) that nests a few hundred levels deep raises RecursionError
somewhere, depending on how deep the caller's own stack already is. Measuring first, in
linear time, lets callers refuse such text with a clear message instead.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any, Final

MAX_JSON_DEPTH: Final = 100
"""Deepest nesting read from a model: a valid LLMCP response needs about 70 (a render tree
of the most nodes allowed), and every recursive step after parsing stays far from Python's
stack limit."""

_STRINGS: Final = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?', re.S)
"""A JSON string, closed or running to the end (possessive: it never backtracks)."""
_NOT_BRACKETS: Final = re.compile(r"[^\[\]{}]++")
_STEPS: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """The deepest nesting of `[` and `{` outside strings.

    Counted without clamping at zero: where a `]` comes first, a parser has already failed
    there, so the count never understates how deep a parser could recurse. Two regex passes
    and one running sum, all in C.
    """
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    return max(accumulate(map(_STEPS.__getitem__, brackets)), default=0)


def too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether `text` nests deeper than `limit` (and so is not to be parsed as JSON)."""
    return ("[" in text or "{" in text) and json_depth(text) > limit


def value_depth(value: Any) -> int:
    """How deeply parsed JSON nests (a scalar 0, `[]` 1, as `json_depth` counts its text),
    measured without recursion: for values that arrive already parsed, before anything that
    recurses (redaction, pydantic, `json.dumps`) walks them."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        pending.extend((child, depth + 1) for child in children)
    return deepest
