"""pydantic's validation errors as the sentences Laika shows (one home for both the
providers' and the settings registry's messages)."""

from __future__ import annotations

from typing import Any


def error_message(item: Any) -> str:
    """One error's message; our own validators' reasons without pydantic's "Value error, "."""
    cause = item.get("ctx", {}).get("error")
    if item.get("type") == "value_error" and isinstance(cause, ValueError):
        return str(cause)
    return str(item["msg"])
