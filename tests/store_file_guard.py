"""A guard over the whole suite: package code never opens a SQLite file (or its -wal, -shm,
-journal) that this process already has open.

Closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's
included, and that corrupted the store when two processes wrote at once (`held_files`). The
guard sees every `open` through an audit hook (`sys.addaudithook`: `open()`, `os.open`,
`io.open_code`); when the opener's stack runs through `laika_host` and the file is one this
process connected to with `sqlite3.connect` and still has a descriptor of
(`/proc/self/fd`), the open is recorded. `conftest.py` fails the test that did it.

Independent of the package's own bookkeeping on purpose: it asks the kernel what is open.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from pathlib import Path
from types import FrameType
from typing import Any

import laika_host

PACKAGE = str(Path(laika_host.__file__).resolve().parent) + os.sep
SUFFIXES = ("-wal", "-shm", "-journal")
FD_DIR = Path("/proc/self/fd")

_connected: set[str] = set()  # real paths of every file `sqlite3.connect` opened here
_violations: list[str] = []
_lock = threading.Lock()
_installed: list[bool] = []  # one hook per process


def install() -> None:
    """Once per process (audit hooks cannot be removed); a no-op without /proc."""
    if _installed or not FD_DIR.is_dir():
        return
    _installed.append(True)
    sys.addaudithook(_hook)


def take_violations() -> list[str]:
    """What was recorded since the last call, and forget it."""
    with _lock:
        found = list(_violations)
        _violations.clear()
    return found


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "sqlite3.connect":
        _remember(args[0])
    elif event == "open":
        _check(args[0])


def _remember(database: Any) -> None:
    name = _name(database)
    if name is not None and name.startswith("file:"):
        name = _uri_path(name)
    if name and name != ":memory:":
        with _lock:
            _connected.add(os.path.realpath(name))


def _uri_path(uri: str) -> str | None:
    from urllib.parse import unquote, urlsplit

    return unquote(urlsplit(uri).path) or None


def _check(target: Any) -> None:
    name = _name(target)
    if name is None:
        return
    real = os.path.realpath(name)
    base = next((real[: -len(s)] for s in SUFFIXES if real.endswith(s)), real)
    with _lock:
        if base not in _connected:
            return
    frame = sys._getframe(2)
    if not _through_package(frame):
        return
    held = _held_descriptors({base, *(base + suffix for suffix in SUFFIXES)})
    if held:
        stack = "".join(traceback.format_stack(frame, limit=12))
        with _lock:
            _violations.append(
                f"opened {real} while this process holds {', '.join(sorted(held))}:\n{stack}"
            )


def _name(target: Any) -> str | None:
    if isinstance(target, int) or target is None:
        return None
    try:
        return os.fsdecode(target)
    except TypeError:
        return None


def _through_package(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith(PACKAGE):
            return True
        frame = frame.f_back
    return False


def _held_descriptors(paths: set[str]) -> set[str]:
    found = set()
    for entry in os.listdir(FD_DIR):
        try:
            target = os.readlink(FD_DIR / entry)
        except OSError:
            continue
        if target in paths:
            found.add(target)
    return found
