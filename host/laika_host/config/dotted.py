"""Paths into the registry document: `providers.default`, `user.preferences.theme`.

A path names dictionary keys only; lists (providers, rules) are replaced whole, so a path's
value and a diff between two documents are both simple.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import RefusedError

MAX_PATH = 200
_SEGMENT = re.compile(r"[A-Za-z0-9_-]{1,64}")
_UNSET = object()


class ConfigPathError(RefusedError):
    """A path that is not `word.word...`."""


def split(path: str) -> list[str]:
    parts = path.split(".") if len(path) <= MAX_PATH else []
    if not parts or not all(_SEGMENT.fullmatch(part) for part in parts):
        raise ConfigPathError(
            f"config path {path[:MAX_PATH]!r} is not dotted names (letters, digits, _ or -),"
            " e.g. `providers.default` or `user.preferences.theme`"
        )
    return parts


def get(document: dict[str, Any], path: str, default: Any = _UNSET) -> Any:
    """The value at `path`; `default` (else ConfigPathError) when it is absent."""
    node: Any = document
    for part in split(path):
        if not isinstance(node, dict) or part not in node:
            if default is _UNSET:
                raise ConfigPathError(f"no setting {path!r}; `laika config get` shows them all")
            return default
        node = node[part]
    return node


def with_value(document: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `document` with `path` set (`value` is _UNSET: removed); parents are made."""
    parts = split(path)
    copy = dict(document)
    node = copy
    for part in parts[:-1]:
        child = node.get(part)
        child = dict(child) if isinstance(child, dict) else {}
        node[part] = child
        node = child
    if value is _UNSET:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value
    return copy


def without(document: dict[str, Any], path: str) -> dict[str, Any]:
    return with_value(document, path, _UNSET)


def leaves(document: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf path -> value: lists and scalars are leaves; dicts are not, and an empty one
    has none (the schema gives every section and mapping a default, so it comes back)."""
    if not isinstance(document, dict):
        return {prefix: document}
    found: dict[str, Any] = {}
    for key, value in document.items():
        found.update(leaves(value, f"{prefix}.{key}" if prefix else str(key)))
    return found


def changed_paths(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The leaf paths whose value differs (present in one only counts), sorted."""
    old, new = leaves(before), leaves(after)
    return sorted(
        path
        for path in old.keys() | new.keys()
        if not same(old.get(path), new.get(path)) or (path in old) != (path in new)
    )


def same(first: Any, second: Any) -> bool:
    """JSON equality (`1`, `1.0` and `true` differ, as they do in the file)."""
    return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def from_leaves(found: dict[str, Any]) -> dict[str, Any]:
    """The document `leaves` came from (without its empty dicts)."""
    document: dict[str, Any] = {}
    for path, value in found.items():
        parts = path.split(".")
        node = document
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return document


MISSING = _UNSET
