"""Capture jobs: a durable queue of URL sources to (re)capture, shared by all processes.

A job is claimed by one process at a time (status `running`, its owner and a lease). Failures
retry with exponential backoff up to `max_attempts`. A process that dies mid-job leaves it
`running`; `recover()` (run when a store opens) puts such jobs back in the queue when their
owner is gone: a dead process on this machine, or an expired lease.
"""

from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path
from typing import Literal

import aiosqlite

from ..defaults import LIST_LIMIT
from ..redact import redact_text
from ._db import Database, Row
from .errors import ConflictError, InvalidInputError, NotFoundError
from .ids import new_id, now_ms
from .records import CaptureJob, JobStatus, SaveOutcome, required_time, time_of
from .rows import from_row

MAX_ATTEMPTS = 3
RETRY_BASE_MS = 5_000
LEASE_MS = 120_000
ACTIVE = ("queued", "running")


def dedupe_key(collection_id: str, normalized_url: str, capture_version: int) -> str:
    material = f"capture:{collection_id}:{normalized_url}:{capture_version}"
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def owner_token() -> str:
    """host:pid:start - the start time tells a reused pid from the process that claimed."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_process_start(pid) or 0}"


def _process_start(pid: int) -> str | None:
    """The process's start time in clock ticks (Linux /proc), or None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    if fields[0] == "Z":  # a zombie: it died and nobody reaped it yet
        return "zombie"
    return fields[19]


def _owner_is_gone(owner: str | None) -> bool:
    if not owner:
        return True
    host, pid, start = [*owner.split(":"), "", "", ""][:3]
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's process: only its lease can tell
    if Path("/proc/self/stat").exists():
        return _process_start(int(pid)) != start
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


@from_row
def _job(row: Row) -> CaptureJob:
    return CaptureJob(
        id=row["id"],
        source_id=row["source_id"],
        collection_id=row["collection_id"],
        status=row["status"],
        attempt_count=row["attempt_count"],
        max_attempts=row["max_attempts"],
        last_error=row["last_error"],
        outcome=row["outcome"],
        outcome_reason=row["outcome_reason"],
        dedupe_key=row["dedupe_key"],
        run_after=required_time(row, "run_after"),
        created_at=required_time(row, "created_at"),
        updated_at=required_time(row, "updated_at"),
        started_at=time_of(row, "started_at"),
        finished_at=time_of(row, "finished_at"),
    )


class Jobs:
    def __init__(
        self, database: Database, *, retry_base_ms: int = RETRY_BASE_MS, lease_ms: int = LEASE_MS
    ) -> None:
        self.db = database
        self.retry_base_ms = retry_base_ms
        self.lease_ms = lease_ms
        self.owner = owner_token()

    async def queue(self, source_id: str, *, max_attempts: int = MAX_ATTEMPTS) -> CaptureJob:
        """Queue a capture of this URL source; an active job for it is returned as is."""
        now = now_ms()
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "SELECT collection_id, kind, normalized_url, capture_version "
                "FROM sources WHERE id = ?",
                (source_id,),
            )
            source = await cursor.fetchone()
            if source is None:
                raise NotFoundError(f"no source {source_id!r}")
            if source["kind"] != "url":
                raise InvalidInputError(
                    f"source {source_id} is a {source['kind']}: only URLs are captured"
                )
            key = dedupe_key(
                source["collection_id"], source["normalized_url"], source["capture_version"]
            )
            await connection.execute(
                "INSERT OR IGNORE INTO capture_jobs (id, source_id, collection_id, status, "
                "max_attempts, dedupe_key, run_after, created_at, updated_at) "
                "VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?)",
                (
                    new_id("job"),
                    source_id,
                    source["collection_id"],
                    max_attempts,
                    key,
                    now,
                    now,
                    now,
                ),
            )
        active = await self.active_for(source_id)
        assert active is not None
        return active

    async def active_for(self, source_id: str) -> CaptureJob | None:
        row = await self.db.fetch_one(
            "SELECT * FROM capture_jobs WHERE source_id = ? AND status IN ('queued', 'running')",
            (source_id,),
        )
        return _job(row) if row else None

    async def claim(self) -> CaptureJob | None:
        """The next due job, now `running` and owned by this process (None if none is due)."""
        now = now_ms()
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "SELECT id FROM capture_jobs WHERE status = 'queued' AND run_after <= ? "
                "ORDER BY run_after, created_at LIMIT 1",
                (now,),
            )
            row = await cursor.fetchone()
            if row is None:
                return None
            await self._take(connection, row["id"], now)
        return await self.get(row["id"])

    async def claim_job(self, job_id: str) -> CaptureJob | None:
        """Claim this job now if it is queued (due or not); None if someone else has it."""
        async with self.db.transaction() as connection:
            taken = await self._take(connection, job_id, now_ms())
        return await self.get(job_id) if taken else None

    async def _take(self, connection: aiosqlite.Connection, job_id: str, now: int) -> bool:
        cursor = await connection.execute(
            "UPDATE capture_jobs SET status = 'running', attempt_count = attempt_count + 1, "
            "claimed_by = ?, lease_until = ?, started_at = ?, updated_at = ? "
            "WHERE id = ? AND status = 'queued'",
            (self.owner, now + self.lease_ms, now, now, job_id),
        )
        return cursor.rowcount == 1

    async def complete(
        self, job_id: str, *, outcome: SaveOutcome | None = None, reason: str | None = None
    ) -> CaptureJob:
        """The job ran; `outcome` is what storing its capture did (`kept`: why in `reason`)."""
        return await self._finish(job_id, "succeeded", None, outcome=(outcome, reason))

    async def cancel(self, job_id: str) -> CaptureJob:
        return await self._finish(job_id, "cancelled", None, allowed=ACTIVE)

    async def fail(self, job_id: str, error: str, *, final: bool = False) -> CaptureJob:
        """Record a failed attempt: queued again after a backoff, or `failed` for good (at
        once when `final`: a retry would fail the same way)."""
        job = await self.get(job_id)
        if final or job.attempt_count >= job.max_attempts:
            return await self._finish(job_id, "failed", error)
        now = now_ms()
        delay = self.retry_base_ms * 4 ** (job.attempt_count - 1)
        async with self.db.transaction() as connection:
            await connection.execute(
                "UPDATE capture_jobs SET status = 'queued', last_error = ?, run_after = ?, "
                "claimed_by = NULL, lease_until = NULL, updated_at = ? "
                "WHERE id = ? AND status = 'running'",
                (redact_text(error)[:2000], now + delay, now, job_id),
            )
        return await self.get(job_id)

    async def _finish(
        self,
        job_id: str,
        status: Literal["succeeded", "failed", "cancelled"],
        error: str | None,
        *,
        allowed: tuple[str, ...] = ("running",),
        outcome: tuple[SaveOutcome | None, str | None] = (None, None),
    ) -> CaptureJob:
        now = now_ms()
        saved, reason = outcome
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                f"UPDATE capture_jobs SET status = ?, last_error = coalesce(?, last_error), "
                "finished_at = ?, updated_at = ?, claimed_by = NULL, lease_until = NULL, "
                "outcome = ?, outcome_reason = ? "
                f"WHERE id = ? AND status IN ({', '.join('?' for _ in allowed)})",
                (
                    status,
                    error and redact_text(error)[:2000],
                    now,
                    now,
                    saved,
                    reason,
                    job_id,
                    *allowed,
                ),
            )
            changed = cursor.rowcount
        job = await self.get(job_id)
        if not changed:
            raise ConflictError(f"job {job_id} is {job.status}; it cannot become {status}")
        return job

    async def recover(self) -> int:
        """Put `running` jobs whose owner is gone back in the queue; returns how many."""
        now = now_ms()
        rows = await self.db.fetch_all(
            "SELECT id, claimed_by, lease_until FROM capture_jobs WHERE status = 'running'"
        )
        stale = [
            row["id"]
            for row in rows
            if (row["lease_until"] or 0) < now or _owner_is_gone(row["claimed_by"])
        ]
        if not stale:
            return 0
        async with self.db.transaction() as connection:
            await connection.executemany(
                "UPDATE capture_jobs SET status = 'queued', claimed_by = NULL, "
                "lease_until = NULL, run_after = ?, updated_at = ? "
                "WHERE id = ? AND status = 'running'",
                [(now, now, job_id) for job_id in stale],
            )
        return len(stale)

    async def get(self, job_id: str) -> CaptureJob:
        row = await self.db.fetch_one("SELECT * FROM capture_jobs WHERE id = ?", (job_id,))
        if row is None:
            raise NotFoundError(f"no capture job {job_id!r}; `laika jobs list` shows them")
        return _job(row)

    async def list(
        self,
        *,
        status: JobStatus | None = None,
        collection_id: str | None = None,
        limit: int = LIST_LIMIT,
    ) -> list[CaptureJob]:
        clauses: list[str] = []
        params: list[str] = []
        if status:
            clauses.append("status = ?")
            params.append(status)
        if collection_id:
            clauses.append("collection_id = ?")
            params.append(collection_id)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = await self.db.fetch_all(
            f"SELECT * FROM capture_jobs {where} ORDER BY created_at DESC LIMIT ?",
            (*params, limit),
        )
        return [_job(row) for row in rows]

    async def counts(self) -> dict[str, int]:
        rows = await self.db.fetch_all(
            "SELECT status, count(*) AS n FROM capture_jobs GROUP BY status"
        )
        return {row["status"]: row["n"] for row in rows}
