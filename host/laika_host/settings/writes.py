"""How a settings tool writes: its changes are computed from the current registry under the
registry's lock and handed to `registry.update` with the tool's own name and ACL, so a
handler can change nothing outside the paths its tool declares, and a read-modify-write (an
appended rule, an added name) loses no concurrent change."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..config import registry
from ..config.registry import Change, Who
from .tool import Handler
from .wording import with_summary

if TYPE_CHECKING:
    from ..store import Store

Compute = Callable[[Any, dict[str, Any]], Mapping[str, Any]]
"""`(arguments, current document) -> {path: new value}` (REMOVE removes a key)."""


def writer(name: str, allowed_paths: Sequence[str], compute: Compute) -> Handler:
    """The handler of a writing tool: `compute`'s changes, each checked against
    `allowed_paths`, then those that differ from the current values committed as one change
    under `name`."""

    async def run(arguments: Any, who: Who, _store: Store) -> dict[str, Any]:
        def changes(current: dict[str, Any]) -> Mapping[str, Any]:
            return compute(arguments, current)

        change = await asyncio.to_thread(
            registry.update,
            changes,
            who=who,
            tool=name,
            allowed_paths=tuple(allowed_paths),
            skip_unchanged=True,
        )
        return result(name, change, arguments)

    return run


def result(name: str, change: Change | None, arguments: Any, **more: Any) -> dict[str, Any]:
    """What a writing tool returns: the change (None: every value was already so), and a
    `summary` that says it in words."""
    found = {"tool": name, "change": None if change is None else change.to_json(), **more}
    return with_summary(name, arguments, found)
