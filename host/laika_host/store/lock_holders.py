"""Which other processes have a file open: named in the "locked" error so the user knows what
to close (a sqlite3 shell, a database browser, a backup tool), not just that something is.

Linux only (`/proc/<pid>/fd`); elsewhere, and for processes of other users, nothing is named.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_NAMED = 5


def lock_holders(path: Path) -> list[str]:
    """`pid N (command)` for each other process with `path` (or its -wal/-shm) open."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    wanted = {os.path.realpath(path) + suffix for suffix in ("", "-wal", "-shm", "-journal")}
    found = []
    for entry in proc.iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid() and _has_open(entry, wanted):
            found.append(f"pid {entry.name} ({_command(entry)})")
            if len(found) == MAX_NAMED:
                break
    return found


def _has_open(process: Path, wanted: set[str]) -> bool:
    try:
        descriptors = list((process / "fd").iterdir())
    except OSError:  # gone, or another user's
        return False
    for descriptor in descriptors:
        try:
            if os.readlink(descriptor) in wanted:
                return True
        except OSError:
            continue
    return False


def _command(process: Path) -> str:
    try:
        return (process / "comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return "?"
