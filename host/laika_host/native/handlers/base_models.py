"""The base of every request payload model: strict types, no unknown keys, bounded integers.

An integer reaches SQLite (an offset, a limit) or JavaScript (an id echoed back); past
2^63 - 1 SQLite raises OverflowError, past 2^53 - 1 JavaScript rounds. So every integer a
payload takes must declare bounds within +/-(2^53 - 1), and a model that forgets is refused
when its class is defined: an out-of-range number is then always a `bad_request` naming its
field, never an `internal` error from deep inside a handler.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

MAX_PAYLOAD_INT = 2**53 - 1


class StrictPayload(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        unbounded = unbounded_integers(cls.model_json_schema())
        if unbounded:
            raise TypeError(
                f"{cls.__name__}: integer field(s) {', '.join(unbounded)} need ge/le bounds "
                f"within +/-{MAX_PAYLOAD_INT} (what JavaScript and SQLite both hold)"
            )


def unbounded_integers(schema: Any, path: str = "$") -> list[str]:
    """JSON-schema paths of integer nodes without both bounds inside +/-MAX_PAYLOAD_INT."""
    found: list[str] = []
    pending: list[tuple[Any, str]] = [(schema, path)]
    while pending:
        node, where = pending.pop()
        if isinstance(node, dict):
            if node.get("type") == "integer" and not _bounded(node):
                found.append(where)
            pending.extend((child, f"{where}/{key}") for key, child in node.items())
        elif isinstance(node, list):
            pending.extend((child, f"{where}[{i}]") for i, child in enumerate(node))
    return sorted(found)


def _bounded(node: dict[str, Any]) -> bool:
    low, high = node.get("minimum"), node.get("maximum")
    return (
        isinstance(low, int)
        and isinstance(high, int)
        and low >= -MAX_PAYLOAD_INT
        and high <= MAX_PAYLOAD_INT
    )
