"""One aiosqlite connection with Laika's pragmas and short, retried write transactions.

Several processes share the file (one host per browser port, plus the CLI). WAL lets readers
run beside one writer; every write transaction starts with `BEGIN IMMEDIATE`, so a writer
takes the lock up front (waiting up to `busy_timeout`) instead of failing halfway when a
read would have to be upgraded. If the lock is still taken after that, the whole transaction
is retried with backoff until `write_deadline` seconds have passed; only then does a caller
see an error (`StoreBusyError`), never a bare "database is locked". Reads retry the same way;
one still blocked at the deadline means another program holds the file exclusively
(`StoreUnavailableError`, naming the processes that have it open).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from .errors import StoreBusyError, StoreCorruptError, StoreError, StoreUnavailableError
from .header import refuse_foreign_wal
from .held_files import Claim, Header, HeldConnection, claim
from .lock_holders import lock_holders
from .rows import DamagedValueError, row_type
from .sqlite_errors import SQLITE_FAILURES, damaged_error, one_line, storage_error

log = logging.getLogger("laika.store")

BUSY_TIMEOUT_MS = 5_000
PAGE_SIZE = 8192
WRITE_DEADLINE_SECONDS = 60.0
_BUSY_WORDS = ("database is locked", "database is busy", "database table is locked")
_RULES = ("CHECK constraint failed", "NOT NULL constraint failed", "FOREIGN KEY constraint failed")
_FINDINGS = 3  # quick_check stops after this many

Row = sqlite3.Row
Params = tuple[Any, ...] | dict[str, Any]


def write_deadline_seconds() -> float:
    """How long a lock held by another process is waited for: `LAIKA_LOCK_WAIT_SECONDS`, else
    60 s (a migration of a big file in another Laika process may take that long)."""
    try:
        return max(0.0, float(os.environ.get("LAIKA_LOCK_WAIT_SECONDS", WRITE_DEADLINE_SECONDS)))
    except ValueError:
        return WRITE_DEADLINE_SECONDS


def busy_error(path: Path, waited: float, *, writing: bool) -> StoreError:
    """Locked for longer than we wait: say by whom when we can see it, and what to do.

    Laika's writes are short and in WAL mode its readers never wait for them, so a *read*
    kept waiting means another program holds the file exclusively (a sqlite3 shell in
    exclusive locking mode, a database browser): `StoreUnavailableError`, native
    `unavailable`. A write kept waiting may be other Laika processes: `StoreBusyError`, retry.
    """
    holders = lock_holders(path)
    held = f" (open in {', '.join(holders)})" if holders else ""
    fix = (
        "nothing was changed. Close the program that holds it (a sqlite3 shell or database "
        "browser with the file open, or a Laika command still running) and retry."
    )
    if writing:
        return StoreBusyError(
            f"another process kept {path} locked for writing for {waited:.0f} s{held}; {fix}"
        )
    return StoreUnavailableError(
        f"another program holds {path} locked, so it cannot be read (waited {waited:.0f} s)"
        f"{held}; {fix}"
    )


def _breaks_a_rule(error: BaseException) -> bool:
    return isinstance(error, sqlite3.IntegrityError) and str(error).startswith(_RULES)


def is_busy(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and any(
        word in str(error) for word in _BUSY_WORDS
    )


async def _run_to_end(work: Awaitable[None]) -> None:
    """Await `work` to its end even if the caller is cancelled meanwhile (cleanup must finish
    before the write lock is released); a cancel that arrived is raised afterwards."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while True:
        try:
            await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.done():
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


@contextmanager
def _reported(path: Path) -> Iterator[None]:
    """Raise a full disk, a damaged file or an unusable one as the store error naming it."""
    try:
        yield
    except DamagedValueError as error:  # a stored value read inside a transaction
        raise damaged_error(path, f"a stored row holds {error.problem}") from error
    except SQLITE_FAILURES as error:
        translated = storage_error(error, path)
        if translated is None:
            raise
        raise translated from error


class Database:
    """The connection; use `transaction()` for writes and `fetch_*` for reads."""

    def __init__(
        self,
        connection: aiosqlite.Connection,
        path: Path,
        *,
        write_deadline: float,
        claim: Claim | None = None,
    ) -> None:
        self.connection = connection
        self.path = path
        self.write_deadline = write_deadline
        self._claim = claim  # None for ":memory:"
        self._write_lock = asyncio.Lock()  # one write transaction at a time per connection

    @property
    def header(self) -> Header:
        """The file's first bytes, read safely when it was claimed (`held_files`)."""
        return self._claim.header if self._claim else Header(b"", fresh=False)

    @classmethod
    async def open(cls, path: Path, *, write_deadline: float | None = None) -> Database:
        """Connect with this connection's settings; nothing is written to the file yet (a
        file from a newer Laika must be refused untouched: see `prepare_file`). Locks are
        waited for `write_deadline` seconds in all (default: `write_deadline_seconds()`).
        A -wal that is not the file's own is refused before connecting: the first read would
        replay it, and closing the connection would checkpoint it into the file."""
        file_claim = None if path == Path(":memory:") else claim(path)
        try:
            if file_claim is not None:
                refuse_foreign_wal(path, file_claim.header)
            return await cls._connect(path, write_deadline, file_claim)
        except BaseException:
            if file_claim is not None:
                file_claim.release()
            raise

    @classmethod
    async def _connect(
        cls, path: Path, write_deadline: float | None, file_claim: Claim | None
    ) -> Database:
        deadline = write_deadline_seconds() if write_deadline is None else write_deadline
        busy_ms = int(min(BUSY_TIMEOUT_MS, max(100.0, deadline * 1000)))  # never past it
        with _reported(path):
            connection = await aiosqlite.connect(
                path, isolation_level=None, timeout=busy_ms / 1000, factory=HeldConnection
            )
        if file_claim is not None:
            file_claim.settle()
        connection.row_factory = row_type(path)  # rows name their file (`rows.from_row`)
        database = cls(connection, path, write_deadline=deadline, claim=file_claim)
        try:
            for pragma in (
                f"PRAGMA busy_timeout = {busy_ms}",
                "PRAGMA foreign_keys = ON",
                "PRAGMA synchronous = NORMAL",
            ):  # these read the file: a lock another program holds already shows here
                await database._retry_busy(functools.partial(connection.execute, pragma))
        except BaseException:
            await connection.close()
            raise
        return database

    async def prepare_file(self) -> None:
        """The settings stored in the file: page size (a new file only) and WAL mode. The
        first writes to the file: call it only once the file is known to be Laika's or new
        (`file_check.check_file`)."""
        row = await self.fetch_one("PRAGMA page_count")
        if row is not None and row[0] == 0:  # a new file: pages fit 24k-char sources better
            await self.connection.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        await self._retry_busy(self._enable_wal)

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        """A read transaction: the reads inside see one state of the file, so a migration
        another process commits meanwhile lands wholly before or after them."""
        async with self._write_lock:
            await self._retry_busy(lambda: self.connection.execute("BEGIN DEFERRED"))
            try:
                yield
            finally:
                await _run_to_end(self._rollback())

    async def _enable_wal(self) -> None:
        cursor = await self.connection.execute("PRAGMA journal_mode = WAL")
        row = await cursor.fetchone()
        if row is None or str(row[0]).lower() != "wal":
            log.warning("SQLite refused WAL mode for %s (got %r)", self.path, row)

    async def close(self) -> None:
        try:
            await self.connection.close()
        finally:
            if self._claim is not None:
                self._claim.release()

    async def _retry_busy(self, work: Any, *, writing: bool = False) -> Any:
        started = time.monotonic()
        attempt = 0
        while True:
            try:
                with _reported(self.path):
                    return await work()
            except sqlite3.OperationalError as error:
                if not is_busy(error):
                    raise
                waited = time.monotonic() - started
                if waited >= self.write_deadline:
                    raise busy_error(self.path, waited, writing=writing) from error
                attempt += 1
                await asyncio.sleep(min(0.5, 0.01 * 2**attempt) * (0.5 + random.random()))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """A short write transaction: `BEGIN IMMEDIATE` ... `COMMIT` (rolled back on error).

        The body must not await anything slow (network, models): other processes wait for it.
        A cancel may land at any await here; whatever the connection's thread still runs then
        (a BEGIN waiting for the lock, a body statement, COMMIT) is followed by a ROLLBACK that
        we wait for, so no transaction outlives the cancelled caller.
        """
        async with self._write_lock:
            try:
                await self._retry_busy(
                    lambda: self.connection.execute("BEGIN IMMEDIATE"), writing=True
                )
                with _reported(self.path):
                    yield self.connection
                await self._retry_busy(lambda: self.connection.execute("COMMIT"), writing=True)
            except BaseException as error:
                await _run_to_end(self._rollback())
                if _breaks_a_rule(error) and (finding := await self._rule_broken_in_file()):
                    raise damaged_error(
                        self.path, f"a write hit {error}, and SQLite's check finds: {finding}"
                    ) from error
                raise

    async def _rule_broken_in_file(self) -> str | None:
        """What `integrity_check` finds when a write broke a CHECK, NOT NULL or FOREIGN KEY
        rule. Laika checks what it writes, so a rule broken by a value computed from a stored
        one (a count damaged below 0, plus 1), or by a damaged index that no longer finds the
        parent row, is the file's damage, and the check finds it there. Only on this failing
        path: the check reads the whole file. None when the file is whole (then the write
        itself was wrong, or raced a delete: raised as it is)."""
        try:
            rows = await self.fetch_all(f"PRAGMA integrity_check({_FINDINGS})")
        except StoreCorruptError as error:  # too damaged for the check to read it all
            return one_line(str(error.__cause__ or error))
        except StoreError:
            return None
        findings = [str(row[0]) for row in rows if str(row[0]) != "ok"]
        return one_line("; ".join(findings)) if findings else None

    async def _rollback(self) -> None:
        """End whatever transaction is open once the thread's queued statements are done.

        The thread runs statements in order, so this ROLLBACK runs after a BEGIN or COMMIT the
        cancelled caller left behind; "no transaction is active" means nothing was left open.
        """
        try:
            await self.connection.execute("ROLLBACK")
        except sqlite3.OperationalError as error:
            if "no transaction is active" not in str(error):
                log.warning("ROLLBACK failed on %s: %s", self.path, error)

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        cursor = await self._retry_busy(lambda: self.connection.execute(sql, params))
        with _reported(self.path):
            row: Row | None = await cursor.fetchone()
        return row

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        cursor = await self._retry_busy(lambda: self.connection.execute(sql, params))
        with _reported(self.path):
            rows: Iterable[Row] = await cursor.fetchall()
        return list(rows)
