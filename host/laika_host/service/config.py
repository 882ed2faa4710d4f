"""Settings: read, change, list the history of and revert the registry. One orchestration for
`laika config` and the native `config.*` messages, so the two cannot drift."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config import dotted, history, registry
from ..config.files import config_dir
from ..config.registry import Change, Who
from ..strict_json import NotJsonError, loads_strict

DEFAULT_HISTORY_LIMIT = 100
MAX_HISTORY_LIMIT = 10_000

__all__ = ["Change", "Who", "get", "history_of", "parse_value", "revert", "set_value"]


def get(path: str | None = None) -> Any:
    """The whole registry, or the value at `path` (ConfigPathError names a missing one)."""
    document = registry.document()
    return document if not path else dotted.get(document, path)


def get_versioned(path: str | None = None) -> tuple[Any, int]:
    """`get` and the registry's version it was read at."""
    document = registry.document()
    return (document if not path else dotted.get(document, path)), int(document["version"])


def parse_value(text: str) -> Any:
    """A command-line value: JSON when it parses (`true`, `3`, `["a"]`), else the string."""
    try:
        return loads_strict(text)
    except NotJsonError:
        return text


def set_value(path: str, value: Any, *, who: Who) -> Change:
    return registry.mutate({path: value}, who=who, tool="config.set")


def revert(commit_id: str, *, who: Who) -> Change:
    return registry.revert(commit_id, who=who)


@dataclass(frozen=True)
class HistoryItem:
    commit: str
    message: str
    time: int

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "message": self.message, "time": self.time}


def history_of(path: str | None = None, *, limit: int = DEFAULT_HISTORY_LIMIT) -> list[HistoryItem]:
    """The registry's commits, newest first; with `path`, only those that changed it (or a
    setting under or above it)."""
    if path:
        dotted.split(path)
    registry.load()  # creates the registry (and its first commit) when there is none
    found: list[HistoryItem] = []
    for entry in history.log(config_dir()):
        if len(found) >= limit:
            break
        if path and not any(_related(path, p) for p in registry.commit_paths(entry.commit)):
            continue
        found.append(HistoryItem(entry.commit, entry.message, entry.time))
    return found


def _related(wanted: str, changed: str) -> bool:
    return wanted == changed or changed.startswith(wanted + ".") or wanted.startswith(changed + ".")
