"""`$event.<field>` in a rule's action parameters: data copied from the event, never code.

A string that is exactly `$event.<field>` becomes the field's value (any JSON type); inside
a longer string each `$event.<field>` is replaced by the value as text. One left-to-right
pass over the rule's own strings: the event's values are inserted, never read again, so a
page title holding `$event.url` stays those characters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..errors import RefusedError

PLACEHOLDER = re.compile(r"\$event\.([A-Za-z_][A-Za-z0-9_]{0,63})")
"""Linear: a literal prefix and one bounded character class, no nesting."""


class UnknownEventFieldError(RefusedError):
    """A `$event.<field>` the trigger's events do not carry."""


def substitute(value: Any, payload: Mapping[str, Any]) -> Any:
    """`value` (a rule's parameters) with every placeholder replaced from `payload`."""
    if isinstance(value, str):
        return _text(value, payload)
    if isinstance(value, list):
        return [substitute(item, payload) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, payload) for key, item in value.items()}
    return value


def placeholders(value: Any) -> list[str]:
    """Every field named by a placeholder in `value`, in order (for the check at `rules add`)."""
    if isinstance(value, str):
        return PLACEHOLDER.findall(value)
    if isinstance(value, list):
        return [name for item in value for name in placeholders(item)]
    if isinstance(value, dict):
        return [name for item in value.values() for name in placeholders(item)]
    return []


def _text(text: str, payload: Mapping[str, Any]) -> Any:
    whole = PLACEHOLDER.fullmatch(text)
    if whole is not None:
        return _field(whole.group(1), payload)
    return PLACEHOLDER.sub(lambda match: _as_text(_field(match.group(1), payload)), text)


def _field(name: str, payload: Mapping[str, Any]) -> Any:
    if name not in payload:
        raise UnknownEventFieldError(
            f"$event.{name}: this event has no field {name!r}; it has "
            + ", ".join(f"$event.{key}" for key in payload)
        )
    return payload[name]


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
