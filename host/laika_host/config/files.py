"""Where the registry lives and how it is written: atomically, under one cross-process lock.

WHY both: the rename makes every reader see the old or the new file, never a partial one
(readers take no lock); the lock (`fcntl.flock` on a separate file, so the rename never
replaces what is locked) makes read-modify-write-commit one step, so no update is lost and
the git history has the same order as `version`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..errors import NoSpaceError
from ..paths import data_dir, ensure_private_dir

_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))

CONFIG_DIR = "config"
REGISTRY_FILE = "registry.json"
LOCK_FILE = ".registry.lock"


class SettingsFullError(NoSpaceError):
    """The disk holding the settings is full."""


def full_disk(error: BaseException, path: Path) -> SettingsFullError | None:
    """The error a full disk (or quota) gave while writing `path`, said plainly; None for
    any other error."""
    if not isinstance(error, OSError) or error.errno not in _FULL:
        return None
    return SettingsFullError(
        f"cannot write {path}: the disk is full ({error.strerror}). Free some space on that "
        "disk and retry; nothing saved before is lost."
    )


def config_dir() -> Path:
    return data_dir() / CONFIG_DIR


def registry_path(directory: Path | None = None) -> Path:
    return (directory or config_dir()) / REGISTRY_FILE


def write_atomic(path: Path, data: bytes) -> None:
    """Temp file in the same directory, fsync, rename over `path`, fsync of the directory."""
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise full_disk(error, path) or error from None
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise full_disk(error, path) or error from None
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    if os.name != "posix":
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold the registry's exclusive lock (blocking) for the `with` body."""
    ensure_private_dir(directory)
    with open(directory / LOCK_FILE, "a+b") as stream:
        if os.name == "posix":
            import fcntl

            fcntl.flock(stream.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            if os.name == "posix":
                fcntl.flock(stream.fileno(), fcntl.LOCK_UN)
