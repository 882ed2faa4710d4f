"""Strict JSON decoding shared by `laika validate` and the native host.

Stricter than `json.loads`: UTF-8 only, no NaN/Infinity and no number too large for a 64-bit
float (not JSON, or not portable), no integer longer than the interpreter's digit limit (4,300
by default; longer ones cost quadratic time), no lone UTF-16 surrogate in a string (not
Unicode: it cannot be written back out as UTF-8, RFC 7493), no key twice in one object (parsers
disagree on which wins, which an attacker can exploit), and no nesting deep enough to exhaust
the interpreter's stack. Whatever the input, `loads_strict` returns a value or raises
`NotJsonError`, never anything else.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

from .errors import MalformedError

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_QUOTE_LIMIT = 60


class NotJsonError(MalformedError, ValueError):
    """The input is not a JSON document at all (as opposed to JSON that breaks a schema)."""


def loads_strict(text: str | bytes, *, allow_lone_surrogates: bool = False) -> Any:
    """The JSON value of `text`, or NotJsonError naming the problem.

    `allow_lone_surrogates` is for model replies, which are repaired rather than refused:
    the caller replaces what `\\ud800`-style escapes decoded to (agent/parse.py).
    """
    text = _as_text(text, allow_lone_surrogates=allow_lone_surrogates)
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            object_pairs_hook=_unique_keys,
        )
    except NotJsonError:
        raise
    except json.JSONDecodeError as exc:
        raise NotJsonError(f"input is not JSON: {exc}") from None
    except RecursionError:
        raise NotJsonError("input nests arrays or objects too deeply") from None
    except ValueError:  # the only other one: int() refusing a digit string over its limit
        raise NotJsonError(
            f"input has an integer with more than {sys.get_int_max_str_digits()} digits; "
            "send such a value as a string"
        ) from None
    if not allow_lone_surrogates and _SURROGATE_ESCAPE.search(text):
        # only an escape can decode to a surrogate
        _reject_lone_surrogates(value)
    return value


def _as_text(text: str | bytes, *, allow_lone_surrogates: bool) -> str:
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8-sig")  # the UTF-8 codec refuses encoded surrogates
        except UnicodeDecodeError as exc:
            raise NotJsonError(f"input is not UTF-8 text: {exc}") from None
    found = None if allow_lone_surrogates else _LONE_SURROGATE.search(text)
    if found:
        raise _surrogate_error(found.group())
    return text


def _reject_lone_surrogates(value: Any) -> None:
    """Walk the decoded value without recursion; a surrogate left in any string is lone (the
    decoder joins a valid escaped pair into one code point)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _LONE_SURROGATE.search(item)
            if found:
                raise _surrogate_error(found.group())
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def _surrogate_error(char: str) -> NotJsonError:
    return NotJsonError(
        f"input has a lone UTF-16 surrogate (\\u{ord(char):04x}) in a string, which is not "
        "Unicode text; send valid UTF-8 (or both halves of a surrogate pair)"
    )


def _reject_constant(name: str) -> Any:
    raise NotJsonError(f"input is not strict JSON: {name} is not a JSON number")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise NotJsonError(
            f"input has the number {_quote(literal)}, too large for a 64-bit float "
            "(at most about 1.8e308); send such a value as a string"
        )
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise NotJsonError(f"input has the key {_quote(key)} twice in one object")
        result[key] = value
    return result


def _quote(text: str) -> str:
    """`text` for an error message: quoted, escaped, and short whatever its length."""
    if len(text) <= _QUOTE_LIMIT:
        return ascii(text)
    return ascii(text[:_QUOTE_LIMIT]) + f"... ({len(text)} characters)"
