"""SQLite failures that are the file's state, not a bug, as store errors that say what to do.

A full disk, a damaged or foreign file and a file we cannot open or write are each reported
with the file's path and the fix; everything else stays a plain `sqlite3.Error` (a bug).
Python's sqlite3 decodes SQLite's messages as UTF-8, so damage that puts other bytes in one
(a table's SQL text quoted in "malformed database schema (...)") raises `UnicodeDecodeError`
instead: `SQLITE_FAILURES` is what a call into SQLite can raise about the file.
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
# What SQLite says when a statement needs a part of the schema the file no longer has (a
# table renamed or dropped by another tool, a column dropped, an FTS index's shadow table
# gone). Laika's own statements all run in the test suite against the whole schema.
_SCHEMA_GONE = (
    "no such table",
    "no such column",
    "has no column named",
    "no such index",
    "vtable constructor failed",
)


# SQLite's words (with SQLITE_ERROR, not SQLITE_CORRUPT) for a header it cannot read: the
# schema format number or another header field holds a value no SQLite writes.
_HEADER_DAMAGED = frozenset({"unsupported file format"})
# FTS5's words (SQLITE_ERROR) when its index's stored format number was overwritten.
_INDEX_DAMAGED = ("invalid fts5 file format",)
_NOT_UTF8 = "Could not decode to UTF-8"
_QUOTED_CHARS = 120  # of a message quoting the file's own damaged bytes

SQLITE_FAILURES = (sqlite3.Error, UnicodeDecodeError)


def _column_named(error: sqlite3.Error) -> str:
    """`column 'body'` from Python's decode error, without the damaged text it quotes."""
    return str(error).removeprefix(_NOT_UTF8).partition(" with text ")[0].strip()[:100]


def primary_code(error: sqlite3.Error) -> int | None:
    """SQLite's primary result code (extended codes such as SQLITE_IOERR_WRITE folded)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def damaged_error(path: Path, problem: str) -> StoreCorruptError:
    """A Laika file that lost part of itself: say what, and how to get the data back."""
    return StoreCorruptError(
        f"{path} is a damaged Laika database: {problem}. It was not changed. Restore it "
        f"from a backup, or move it aside (mv '{path}' '{path}.broken') and Laika starts a "
        f"new one; `sqlite3 '{path}.broken' .recover` can save what is still readable."
    )


def foreign_error(path: Path, problem: str) -> StoreCorruptError:
    """Another program's SQLite file where Laika keeps its own: never write into it."""
    return StoreCorruptError(
        f"{path} is not a Laika database: {problem}. It was not changed. If another program "
        "uses it, give Laika its own data directory (set LAIKA_HOME); otherwise move it "
        f"aside (mv '{path}' '{path}.other') and Laika starts a new one there."
    )


def one_line(text: str) -> str:
    """Text quoted from the file (damaged, so anything) as one short printable line."""
    flat = " ".join(text.split())
    return "".join(char if char.isprintable() else "?" for char in flat[:_QUOTED_CHARS])


def _undecodable(error: UnicodeDecodeError) -> str:
    """SQLite's message, with its bytes that are not UTF-8 (and controls) made visible."""
    raw = error.object if isinstance(error.object, bytes) else bytes(error.object)
    return one_line(raw.decode("utf-8", "replace"))


def storage_error(error: sqlite3.Error | UnicodeDecodeError, path: Path) -> StoreError | None:
    """The store error for a failure caused by the file or its disk, else None."""
    if isinstance(error, UnicodeDecodeError):
        return damaged_error(
            path, f"SQLite reads bytes that are not text in it ({_undecodable(error)})"
        )
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
    if code is None and str(error).startswith(_NOT_UTF8):  # Python's, reading a bad row
        return damaged_error(path, f"a stored text ({_column_named(error)}) is not valid UTF-8")
    if code == sqlite3.SQLITE_ERROR and str(error) in _HEADER_DAMAGED:
        return damaged_error(path, f"its header is damaged ({error})")
    if code == sqlite3.SQLITE_ERROR and str(error).startswith(_INDEX_DAMAGED):
        return damaged_error(path, f"its search index is damaged ({error})")
    if code == sqlite3.SQLITE_ERROR and any(words in str(error) for words in _SCHEMA_GONE):
        return damaged_error(path, f"part of its schema is missing or was changed ({error})")
    if code in _UNAVAILABLE:
        return StoreUnavailableError(
            f"cannot use {path} ({error}): check that its disk is mounted and writable and "
            "that you can read and write the file and its directory."
        )
    return None
