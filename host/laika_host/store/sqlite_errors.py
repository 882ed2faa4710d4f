"""SQLite failures that are the file's state, not a bug, as store errors that say what to do.

A full disk, a damaged or foreign file and a file we cannot open or write are each reported
with the file's path and the fix; everything else stays a plain `sqlite3.Error` (a bug).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .errors import StoreCorruptError, StoreError, StoreFullError, StoreUnavailableError

_UNAVAILABLE = {
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_PERM,
    sqlite3.SQLITE_READONLY,
}


def primary_code(error: sqlite3.Error) -> int | None:
    """SQLite's primary result code (extended codes such as SQLITE_IOERR_WRITE folded)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def storage_error(error: sqlite3.Error, path: Path) -> StoreError | None:
    """The store error for a failure caused by the file or its disk, else None."""
    code = primary_code(error)
    if code == sqlite3.SQLITE_FULL:
        return StoreFullError(
            f"cannot write to {path}: the disk is full ({error}). Free some space on that "
            "disk and retry; everything saved before is kept."
        )
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return StoreCorruptError(
            f"{path} is damaged or is not a Laika database ({error}). Move it aside "
            f"(mv '{path}' '{path}.broken') and Laika starts a new one, or restore it from a "
            f"backup; `sqlite3 '{path}.broken' .recover` can save what is still readable."
        )
    if code in _UNAVAILABLE:
        return StoreUnavailableError(
            f"cannot use {path} ({error}): check that its disk is mounted and writable and "
            "that you can read and write the file and its directory."
        )
    return None
