"""pydantic's validation errors as the sentences Laika shows (one home for the providers',
the settings registry's and the transform settings' messages)."""

from __future__ import annotations

from typing import Any

_PLAIN = {
    "int_parsing": "must be a whole number",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "bool_parsing": "must be true or false",
    "bool_type": "must be true or false",
    "string_type": "must be text",
    "list_type": "must be a list",
    "greater_than_equal": "must be at least {ge}",
    "greater_than": "must be more than {gt}",
    "less_than_equal": "must be at most {le}",
    "less_than": "must be less than {lt}",
    "string_too_short": "must be at least {min_length} characters long",
    "string_too_long": "must be at most {max_length} characters long",
    "too_short": "must hold at least {min_length} items",
    "too_long": "must hold at most {max_length} items",
    "literal_error": "must be one of {expected}",
    "enum": "must be one of {expected}",
}
"""pydantic's error types in words a user reads ("must be at least 1"), with its limits."""


def error_message(item: Any) -> str:
    """One error's message; our own validators' reasons without pydantic's "Value error, "."""
    cause = item.get("ctx", {}).get("error")
    if item.get("type") == "value_error" and isinstance(cause, ValueError):
        return str(cause)
    return str(item["msg"])


def plain_message(item: Any) -> str:
    """`error_message`, with pydantic's common rules said plainly and what was given: "must
    be a whole number (got 'x')" rather than "Input should be a valid integer, unable to
    parse string as an integer"."""
    template = _PLAIN.get(str(item.get("type")))
    if template is None:
        return error_message(item)
    try:
        text = template.format(**(item.get("ctx") or {}))
    except (KeyError, IndexError):
        return error_message(item)
    given = item.get("input")
    if isinstance(given, str | int | float):
        shown = repr(given)
        text += f" (got {shown if len(shown) <= 40 else shown[:37] + '...'})"
    return text
