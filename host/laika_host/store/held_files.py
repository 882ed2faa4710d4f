"""The database files this process holds through SQLite, and the one safe moment to read a
file's header outside SQLite.

POSIX advisory locks belong to a process and a file, not to a descriptor: closing ANY
descriptor of the file drops every lock the process holds on it, SQLite's included. A
Python `open(db).read()` of the header while a connection of this process had the file open
let another process believe it was alone; its last connection then checkpointed and reset
the -wal under ours, and pages were lost ("database disk image is malformed"; sqlite.org,
"How To Corrupt An SQLite Database File", 2.2).

So every SQLite connection the package makes to a file is counted here, by the file itself
(its device and inode: a file moved over the path is another file, with no locks of ours).
The header is read only when this process holds no connection to that file, under a lock
that keeps other threads from connecting meanwhile; a later connection to a file already
held reuses the bytes read when it was first claimed. `tests/store_file_guard.py` fails any
test in which package code opens a store file that this process has open.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HEADER_BYTES = 20  # through the read version (offset 19); see `header.py`

_guard = threading.Lock()
_FileKey = tuple[int, int]  # (st_dev, st_ino)


@dataclass
class _Holding:
    connections: int
    header: bytes


_held: dict[_FileKey, _Holding] = {}
_pending: dict[str, int] = {}  # real path -> connections being made to a file not yet there


@dataclass(frozen=True)
class Header:
    """A file's first bytes as claimed: `fresh` when read for this claim (no connection of
    this process had the file), else the bytes read when the file was first claimed."""

    data: bytes
    fresh: bool


@dataclass
class Claim:
    """One connection's hold on a file; `settle` once connected, `release` once closed."""

    path: Path
    header: Header
    _key: _FileKey | None
    _real: str = field(default="")
    _released: bool = False

    def settle(self) -> None:
        """A file SQLite created for this connection: count it by its inode from now on."""
        if self._key is not None:
            return
        with _guard:
            key = _file_key(self.path)
            _drop_pending(self._real)
            if key is not None:
                _count(key, self.header.data)
            self._key = key

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        with _guard:
            if self._key is None:
                _drop_pending(self._real)
                return
            holding = _held.get(self._key)
            if holding is not None:
                holding.connections -= 1
                if holding.connections <= 0:
                    del _held[self._key]


class HeldConnection(sqlite3.Connection):
    """sqlite3's connection, whose `close` closes every cursor it made first: sqlite3's own
    leaves the file open while a statement of a cursor lives on (one that an exception's
    traceback keeps), and the claim released then would let a header read drop its locks.
    Pass as `factory=` to `sqlite3.connect` or `aiosqlite.connect`; the package's code (and
    aiosqlite) runs statements through `execute*`, which track their cursors."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cursors: weakref.WeakSet[sqlite3.Cursor] = weakref.WeakSet()

    def _tracked(self) -> sqlite3.Cursor:
        made = self.cursor()
        self._cursors.add(made)
        return made

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return self._tracked().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        return self._tracked().executemany(sql, parameters)

    def executescript(self, script: str, /) -> sqlite3.Cursor:
        return self._tracked().executescript(script)

    def close(self) -> None:
        for made in list(self._cursors):
            made.close()
        super().close()


def claim(path: Path) -> Claim:
    """Count a connection about to be made to `path`, reading its header first when no
    connection of this process holds the file (the only time an extra descriptor of it is
    harmless). Call before connecting; `Claim.release` after closing (or a failed connect)."""
    with _guard:
        key = _file_key(path)
        real = os.path.realpath(path)
        if key is None:  # no file yet: SQLite creates it; nothing to read
            _pending[real] = _pending.get(real, 0) + 1
            return Claim(path, Header(b"", fresh=True), None, real)
        holding = _held.get(key)
        if holding is not None:
            header = Header(holding.header, fresh=False)
        elif _pending.get(real):  # another thread is creating this very file: it is held
            header = Header(b"", fresh=False)
        else:
            header = Header(_read_header(path), fresh=True)
        _count(key, header.data)
        return Claim(path, header, key, real)


def _count(key: _FileKey, header: bytes) -> None:
    holding = _held.setdefault(key, _Holding(0, header))
    holding.connections += 1


def _drop_pending(real: str) -> None:
    left = _pending.get(real, 0) - 1
    if left > 0:
        _pending[real] = left
    else:
        _pending.pop(real, None)


def _file_key(path: Path) -> _FileKey | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _read_header(path: Path) -> bytes:
    """Only with `_guard` held and no connection of this process to the file."""
    try:
        with path.open("rb") as file:
            return file.read(HEADER_BYTES)
    except OSError:  # SQLite opens it next: what it cannot read is reported by the reads
        return b""
