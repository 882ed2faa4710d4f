"""Load, change and revert the registry. Every change, whoever asks, goes through `mutate`:
it checks the tool's allowed paths, refuses secrets, validates the whole document, bumps
`version`, writes atomically and commits, all under the registry's lock.

Readers take no lock: `load` returns a cached document until the file's (mtime_ns, size,
inode) changes, so checking for another process's change costs one `stat`.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from ..errors import ClashError, PolicyDeniedError, RefusedError, UnreadableError
from ..json_depth import MAX_JSON_DEPTH, value_depth
from ..pydantic_errors import error_message
from ..strict_json import NotJsonError, loads_strict
from . import dotted, history
from .files import config_dir, locked, registry_path, write_atomic
from .legacy import legacy_sections
from .schema import Registry
from .secrets import refuse_secrets

Who = Literal["cli", "panel", "rule", "model"]
MAX_REGISTRY_BYTES = 5_000_000
MAX_WHERE = 120
READ_ONLY = ("version", "schema_version")
REMOVE = dotted.MISSING
"""Pass as a value to `mutate` to remove a key (a `user.preferences` entry)."""


class RegistryFileError(UnreadableError):
    """registry.json cannot be used; the message names the file and the fix."""


class ConfigValueError(RefusedError):
    """A change the schema refuses; the message names the field and the rule."""


class OutsideAclError(PolicyDeniedError):
    """A tool tried to write a path it did not declare."""


class RevertConflictError(ClashError):
    """A later change touched what the reverted commit changed."""


@dataclass(frozen=True)
class Change:
    version: int
    commit: str
    paths: list[str]
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "commit": self.commit,
            "paths": self.paths,
            "message": self.message,
        }


@dataclass
class _Cache:
    entries: dict[Path, tuple[tuple[int, int, int], Registry]] = field(default_factory=dict)


_CACHE = _Cache()


def signature(path: Path) -> tuple[int, int, int] | None:
    """What changes whenever the file is replaced: (mtime_ns, size, inode); None if absent."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_mtime_ns, status.st_size, status.st_ino


def load(directory: Path | None = None) -> Registry:
    """The registry (created, with the old files migrated, when there is none yet)."""
    directory = directory or config_dir()
    path = registry_path(directory)
    stamp = signature(path)
    cached = _CACHE.entries.get(path)
    if stamp is not None and cached is not None and cached[0] == stamp:
        return cached[1]
    if stamp is None:
        with locked(directory):
            _read_or_create(directory)
        return load(directory)
    registry = _parse(path, _read(path))
    _CACHE.entries[path] = (stamp, registry)
    return registry


def peek(directory: Path | None = None) -> Registry | None:
    """The registry if there is one (never created here: for readers of a default that
    must not write the data directory); RegistryFileError when it cannot be used."""
    directory = directory or config_dir()
    return None if signature(registry_path(directory)) is None else load(directory)


def document(directory: Path | None = None) -> dict[str, Any]:
    """The registry as JSON data (what `laika config get` shows)."""
    return load(directory).model_dump(mode="json")


def mutate(
    changes: Mapping[str, Any],
    *,
    who: Who,
    tool: str,
    allowed_paths: Sequence[str] | None = None,
    directory: Path | None = None,
    note: str = "",
) -> Change:
    """Set each path to its value (REMOVE removes it) as one commit.

    `allowed_paths` (a curated tool's ACL): every path must be one of them or under one.
    """
    if not changes:
        raise ConfigValueError("no setting to change")
    _check_changes(changes, tool, allowed_paths)
    change = update(
        lambda _current: changes,
        who=who,
        tool=tool,
        allowed_paths=allowed_paths,
        directory=directory,
        note=note,
    )
    assert change is not None  # changes is not empty
    return change


def update(
    compute: Callable[[dict[str, Any]], Mapping[str, Any]],
    *,
    who: Who,
    tool: str,
    allowed_paths: Sequence[str] | None = None,
    directory: Path | None = None,
    note: str = "",
    skip_unchanged: bool = False,
) -> Change | None:
    """`mutate` with changes computed from the current document under the lock, so that a
    read-modify-write (append to a list) loses no concurrent update. Every change is checked
    (ACL, secrets) as given; `skip_unchanged` then drops those that set a value already so.
    None when no change is left (nothing is committed)."""
    directory = directory or config_dir()
    with locked(directory):
        current = _read_or_create(directory).model_dump(mode="json")
        changes = compute(current)
        _check_changes(changes, tool, allowed_paths)
        if skip_unchanged:
            changes = _differing(current, changes)
        if not changes:
            return None
        updated = current
        for path, value in changes.items():
            updated = dotted.with_value(updated, path, value)
        return _commit(directory, updated, sorted(changes), who=who, tool=tool, note=note)


def _differing(current: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """The changes that set a value other than the current one (or remove a present one)."""
    kept: dict[str, Any] = {}
    absent = object()
    for path, value in changes.items():
        before = dotted.get(current, path, absent)
        if value is REMOVE:
            unchanged = before is absent
        else:
            unchanged = before is not absent and dotted.same(before, value)
        if not unchanged:
            kept[path] = value
    return kept


def _check_changes(
    changes: Mapping[str, Any], tool: str, allowed_paths: Sequence[str] | None
) -> None:
    for path, value in changes.items():
        _check_path(path, tool, allowed_paths)
        if value is not REMOVE:
            _check_depth(path, value)
            refuse_secrets(path, value)


def _check_depth(path: str, value: Any) -> None:
    """Refuse a value nested deeper than any setting needs before anything recursive (the
    secret check, validation, the writer) walks it: 900 levels overflowed Python's stack."""
    depth = value_depth(value)
    if depth > MAX_JSON_DEPTH:
        raise ConfigValueError(
            f"the value for {path!r} nests {depth} levels deep; a setting nests at most "
            f"{MAX_JSON_DEPTH}: give a flatter value"
        )


def revert(commit_id: str, *, who: Who, directory: Path | None = None) -> Change:
    """A new commit undoing what `commit_id` changed; refused when a later change touched
    the same setting (revert that one first, or set the value yourself)."""
    directory = directory or config_dir()
    with locked(directory):
        current = _read_or_create(directory).model_dump(mode="json")
        entry = history.find(directory, commit_id)
        before, after = _documents_at(directory, entry.commit)
        if before is None:
            raise ConfigValueError(
                f"commit {entry.commit[:12]} created the registry; there is nothing to revert"
            )
        touched = _touched(before, after)
        now, old, new = dotted.leaves(current), dotted.leaves(before), dotted.leaves(after)
        later = [
            p
            for p in touched
            if (p in now) != (p in new) or not dotted.same(now.get(p), new.get(p))
        ]
        if later:
            raise RevertConflictError(
                f"cannot revert {entry.commit[:12]}: a later change also set "
                + ", ".join(later[:10])
                + "; revert that change first, or set the value with `laika config set`"
            )
        for leaf in touched:
            if leaf in old:
                now[leaf] = old[leaf]
            else:
                now.pop(leaf, None)
        note = f"reverts {entry.commit[:12]} ({entry.message.splitlines()[0][:120]})"
        return _commit(
            directory, dotted.from_leaves(now), touched, who=who, tool="config.revert", note=note
        )


def commit_paths(commit_id: str, directory: Path | None = None) -> list[str]:
    """The settings a commit (a full id) changed; every setting for the first one."""
    before, after = _documents_at(directory or config_dir(), commit_id)
    return _touched(before or {}, after)


def _documents_at(directory: Path, commit_id: str) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    path = registry_path(directory)
    before, after = history.file_at(directory, commit_id)
    parsed = None if before is None else _parse(path, before).model_dump(mode="json")
    return parsed, _parse(path, after).model_dump(mode="json")


def _touched(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [p for p in dotted.changed_paths(before, after) if p not in READ_ONLY]


def _check_path(path: str, tool: str, allowed_paths: Sequence[str] | None) -> None:
    dotted.split(path)
    if path in READ_ONLY:
        raise ConfigValueError(f"{path!r} is kept by Laika and cannot be set")
    if allowed_paths is None:
        return
    if not any(path == allowed or path.startswith(allowed + ".") for allowed in allowed_paths):
        raise OutsideAclError(
            f"tool {tool!r} may change only {', '.join(allowed_paths) or 'nothing'}, not {path!r}"
        )


def _commit(
    directory: Path,
    updated: dict[str, Any],
    paths: list[str],
    *,
    who: Who,
    tool: str,
    note: str = "",
) -> Change:
    """Validate, bump the version, write atomically, commit (the lock is held)."""
    try:
        registry = Registry.model_validate(updated)
    except ValidationError as error:
        raise ConfigValueError(_reasons(error)) from None
    registry = registry.model_copy(update={"version": registry.version + 1})
    history.ready(directory)
    _write(directory, registry)
    message = f"{tool}: {', '.join(paths) or 'nothing'} (asked by {who})"
    body = f"{message}\n\nversion {registry.version}" + (f"\n{note}" if note else "")
    commit_id = history.commit(directory, body)
    return Change(registry.version, commit_id, paths, message)


def _reasons(error: ValidationError) -> str:
    lines = []
    for item in error.errors(include_url=False)[:5]:
        where = ".".join(str(part) for part in item["loc"]) or "the registry"
        if len(where) > MAX_WHERE:  # a location 900 levels deep is no help, and 6 KB long
            where = f"{where[: MAX_WHERE // 2]}...{where[-MAX_WHERE // 2 :]}"
        lines.append(f"{where}: {error_message(item)}")
    return "; ".join(lines) + " (`laika config get` shows the current settings)"


def _write(directory: Path, registry: Registry) -> None:
    write_atomic(registry_path(directory), _encoded(registry))


def _encoded(registry: Registry) -> bytes:
    """The file's bytes, read back as every reader will first: a document the reader would
    refuse (a number coerced to Infinity, an integer past the digit limit, more than
    MAX_REGISTRY_BYTES) is never written, so no change can leave the settings unusable."""
    data = (json.dumps(registry.model_dump(mode="json"), indent=2) + "\n").encode()
    problem = _decode(data)
    if isinstance(problem, str):
        raise ConfigValueError(
            f"this change would leave the settings file unreadable (it {problem}), so it "
            "was not made: give a smaller or plainer value (`laika config get` shows the "
            "current settings)"
        )
    return data


def _read_or_create(directory: Path) -> Registry:
    """The registry as on disk now (the lock is held); created from the old files if absent."""
    path = registry_path(directory)
    try:
        raw = _read(path)
    except FileNotFoundError:
        return _create(directory)
    return _parse(path, raw)


def _read(path: Path) -> bytes:
    """The file's bytes, at most one past the bound (a hand-made registry.json may be a
    directory, a FIFO, a link to /dev/zero or a 2 GB file: it is named, never read whole or
    waited on)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO opens without a writer
    try:
        with open(os.open(path, flags), "rb", buffering=0) as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                raise _unusable(path, "is not a regular file")
            return stream.read(MAX_REGISTRY_BYTES + 1)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise _unusable(path, "is not a regular file") from None
    except OSError as error:
        raise _unusable(path, f"cannot be read ({error.strerror})") from None


def _create(directory: Path) -> Registry:
    sections, found = legacy_sections(directory.parent)
    try:
        registry = Registry.model_validate(sections)
    except ValidationError as error:
        raise ConfigValueError(f"migrating {', '.join(found)}: {_reasons(error)}") from None
    history.ready(directory)
    _write(directory, registry)
    migrated = f"; migrated {', '.join(found)}" if found else ""
    history.commit(directory, f"laika: created the settings registry{migrated}")
    return registry


def _parse(path: Path, raw: bytes) -> Registry:
    registry = _decode(raw)
    if isinstance(registry, str):
        raise _unusable(path, registry)
    return registry


def _decode(raw: bytes) -> Registry | str:
    """The registry in `raw`, or what makes it unusable (one reading for readers and writer)."""
    if len(raw) > MAX_REGISTRY_BYTES:
        return f"is larger than {MAX_REGISTRY_BYTES:,} bytes"
    try:
        return Registry.model_validate(loads_strict(raw))
    except NotJsonError as error:
        return f"is not JSON ({error})"
    except ValidationError as error:
        return _reasons(error)


def _unusable(path: Path, problem: str) -> RegistryFileError:
    return RegistryFileError(
        f"settings file {path} {problem}: fix it, or restore a good version from its history "
        f"(`git -C {path.parent} log`, `git -C {path.parent} checkout HEAD -- {path.name}`)"
    )


def registry_file(directory: Path | None = None) -> Path:
    return registry_path(directory or config_dir())


__all__ = [
    "REMOVE",
    "Change",
    "Who",
    "commit_paths",
    "document",
    "load",
    "mutate",
    "peek",
    "revert",
    "signature",
    "update",
]
