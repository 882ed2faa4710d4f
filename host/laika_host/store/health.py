"""Is the database whole, and a copy of it: `laika db check`, `laika db backup`, `laika doctor`.

Both only read the live file. The check opens it without migrating or switching it to WAL
(a damaged or foreign file keeps every byte); the backup uses SQLite's online backup API,
which copies one consistent state of the file while other processes keep writing (in WAL
mode they do not wait for it), into a private temporary file that takes the target's name
only once it is complete and checked.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ._db import Database
from .errors import InvalidInputError, NotFoundError, StoreError
from .file_check import check_file
from .header import refuse_foreign_wal
from .held_files import HeldConnection, claim
from .sqlite_errors import SQLITE_FAILURES, storage_error

MAX_PROBLEMS = 20  # quick_check / integrity_check stop after this many
_FTS_TABLES = ("sources_fts", "artifacts_fts")


@dataclass(frozen=True)
class CheckResult:
    path: Path
    exists: bool
    full: bool
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "exists": self.exists,
            "check": "integrity_check" if self.full else "quick_check",
            "ok": self.ok,
            "problems": list(self.problems),
        }


async def check_database(path: Path, *, full: bool = False) -> CheckResult:
    """`PRAGMA quick_check` (or `integrity_check` and the FTS indexes' own check with `full`)
    after the identity and schema check every open does; a store error is the problem."""
    if not path.exists():
        return CheckResult(path, exists=False, full=full)
    try:
        database = await Database.open(path)
    except StoreError as error:
        return CheckResult(path, True, full, (str(error),))
    try:
        return CheckResult(path, True, full, tuple(await _problems(database, full)))
    except StoreError as error:
        return CheckResult(path, True, full, (str(error),))
    finally:
        await database.close()


async def _problems(database: Database, full: bool) -> list[str]:
    await check_file(database)
    pragma = "integrity_check" if full else "quick_check"
    rows = await database.fetch_all(f"PRAGMA {pragma}({MAX_PROBLEMS})")
    lines = [line for row in rows for line in str(row[0]).splitlines()]
    problems = [line for line in lines if not _is_noise(line)]
    if full and await _has_tables(database):
        # FTS5's check is an INSERT: rolled back, so a header SQLite would rewrite on commit
        # (a wrong page count in it) keeps every byte too
        async with database.snapshot():
            problems += [
                problem for table in _FTS_TABLES if (problem := await _fts(database, table))
            ]
    return problems


def _is_noise(line: str) -> bool:
    """`ok`, and the `*** in database main ***` banner SQLite puts before its findings."""
    return line == "ok" or (line.startswith("*** in database ") and line.endswith(" ***"))


async def _has_tables(database: Database) -> bool:
    return bool(await database.fetch_all("SELECT 1 FROM sqlite_master LIMIT 1"))


async def _fts(database: Database, table: str) -> str | None:
    """FTS5's own check that its index matches the rows it indexes."""
    try:
        await database.connection.execute(f"INSERT INTO {table}({table}) VALUES('integrity-check')")
    except SQLITE_FAILURES as error:
        return f"{table}: {error}"
    return None


@dataclass(frozen=True)
class BackupResult:
    source: Path
    target: Path
    size: int
    check: CheckResult

    def to_json(self) -> dict[str, Any]:
        return {
            "source": str(self.source),
            "target": str(self.target),
            "bytes": self.size,
            "check": self.check.to_json(),
        }


def backup_database(source: Path, target: Path, *, force: bool = False) -> BackupResult:
    """Copy `source` to `target` (mode 0600) with SQLite's online backup; refuse to replace
    an existing `target` unless `force`. The copy is a standalone file (no -wal)."""
    _refuse_bad_target(source, target, force)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    fd = os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.close(fd)
    try:
        _copy(source, partial)
        _place(partial, target, force)
    finally:
        for leftover in (partial, partial.with_name(partial.name + "-journal")):
            leftover.unlink(missing_ok=True)
    return BackupResult(source, target, target.stat().st_size, CheckResult(target, True, False))


def _refuse_bad_target(source: Path, target: Path, force: bool) -> None:
    if not source.is_file():
        raise NotFoundError(f"there is no database at {source} yet: nothing to back up")
    if not target.parent.is_dir():
        raise InvalidInputError(f"cannot write {target}: {target.parent} is not a directory")
    if target.exists() and target.samefile(source):
        raise InvalidInputError(f"{target} is the database itself; name another file")
    if target.exists() and not force:
        raise InvalidInputError(f"{target} exists; pass --force to replace it, or name another")


def _copy(source: Path, partial: Path) -> None:
    """One backup step over the whole file: a consistent snapshot of the source."""
    with _sqlite(source, read_only=True) as live, _sqlite(partial, read_only=False) as copy:
        try:
            live.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")  # the copy stands alone
            problems = [str(row[0]) for row in copy.execute(f"PRAGMA quick_check({MAX_PROBLEMS})")]
        except SQLITE_FAILURES as error:
            raise (storage_error(error, source) or error) from error
    if problems != ["ok"]:
        raise InvalidInputError(
            f"the copy of {source} fails SQLite's quick_check ({'; '.join(problems)}), so "
            "the database itself is damaged; run `laika db check --full` and see the README's "
            "restore steps"
        )
    with open(partial, "rb") as written:
        os.fsync(written.fileno())


@contextlib.contextmanager
def _sqlite(path: Path, *, read_only: bool) -> Iterator[sqlite3.Connection]:
    """A connection counted in `held_files`; the live file's -wal is judged first (a copy
    would mix a foreign one into it)."""
    uri = f"file:{quote(str(path.absolute()))}" + ("?mode=ro" if read_only else "")
    file_claim = claim(path)
    try:
        if read_only:
            refuse_foreign_wal(path, file_claim.header)
        try:
            connection = sqlite3.connect(
                uri, uri=True, isolation_level=None, timeout=5, factory=HeldConnection
            )
        except SQLITE_FAILURES as error:
            raise (storage_error(error, path) or error) from error
        file_claim.settle()
        try:
            yield connection
        finally:
            connection.close()
    finally:
        file_claim.release()


def _place(partial: Path, target: Path, force: bool) -> None:
    """Give the finished copy its name: atomically, and without replacing a file that
    appeared meanwhile unless `force`."""
    if force:
        os.replace(partial, target)
        return
    try:
        os.link(partial, target)
    except FileExistsError:
        raise InvalidInputError(
            f"{target} exists; pass --force to replace it, or name another"
        ) from None
    except OSError:  # a file system without hard links
        if target.exists():
            raise InvalidInputError(f"{target} exists; pass --force to replace it") from None
        os.rename(partial, target)
