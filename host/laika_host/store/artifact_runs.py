"""Who is making an artifact, and what happens when that process is gone.

A run owns its artifact: `owner` is `host:pid:start:token` (the start time tells a reused pid
from the process that claimed; the token, one per process, tells this process's own runs)
and `heartbeat_at` is refreshed while it works. `recover()` runs when a store opens: an
artifact left `pending` or `running` by a dead process on this machine, or whose heartbeat
stopped longer than `LEASE_MS` ago, is marked `failed` with the reason and what to do,
keeping the items it had. A cancel asked from another process is a flag the owner's
heartbeat reads.
"""

from __future__ import annotations

import json
import uuid

from ._db import Database
from .errors import NotFoundError
from .ids import now_ms
from .jobs import _owner_is_gone, owner_token
from .records import loads

LEASE_MS = 120_000
"""A heartbeat older than this means the run stopped (its owner beats every few seconds)."""
PROCESS_TOKEN = uuid.uuid4().hex[:12]


def process_owner() -> str:
    """This process, as recorded in `artifacts.owner`."""
    return f"{owner_token()}:{PROCESS_TOKEN}"


def owner_is_gone(owner: str | None) -> bool:
    """The owning process is known to be dead (same machine, pid gone or reused)."""
    return _owner_is_gone(owner)


def _pid(owner: str | None) -> str:
    parts = (owner or "").split(":")
    return parts[1] if len(parts) > 1 else "?"


class ArtifactRuns:
    def __init__(self, database: Database, *, lease_ms: int = LEASE_MS) -> None:
        self.db = database
        self.lease_ms = lease_ms
        self.owner = process_owner()

    async def start(self, artifact_id: str) -> None:
        """pending -> running, owned by this process."""
        now = now_ms()
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE artifacts SET status = 'running', owner = ?, heartbeat_at = ?, "
                "updated_at = ? WHERE id = ? AND status = 'pending'",
                (self.owner, now, now, artifact_id),
            )
            if cursor.rowcount != 1:
                raise NotFoundError(f"no pending artifact {artifact_id!r} to start")

    async def beat(self, artifact_id: str) -> bool:
        """Refresh the heartbeat; True when a cancel was asked for."""
        async with self.db.transaction() as connection:
            await connection.execute(
                "UPDATE artifacts SET heartbeat_at = ? WHERE id = ? AND owner = ? "
                "AND status IN ('pending', 'running')",
                (now_ms(), artifact_id, self.owner),
            )
        return await self.cancel_requested(artifact_id)

    async def cancel_requested(self, artifact_id: str) -> bool:
        row = await self.db.fetch_one(
            "SELECT cancel_requested FROM artifacts WHERE id = ?", (artifact_id,)
        )
        return bool(row and row["cancel_requested"])

    async def request_cancel(self, artifact_id: str) -> bool:
        """Ask the owner to stop (it ends the run as `cancelled`, keeping its items); False
        when the artifact is not active."""
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE artifacts SET cancel_requested = 1 "
                "WHERE id = ? AND status IN ('pending', 'running')",
                (artifact_id,),
            )
            return cursor.rowcount == 1

    def abandoned(self, owner: str | None, heartbeat_ms: int | None, now: int) -> bool:
        """The owner is dead, or has not beaten for a lease (another machine's process)."""
        if owner == self.owner:
            return False  # ours: this process is alive and finishes (or fails) it itself
        return owner_is_gone(owner) or (heartbeat_ms or 0) < now - self.lease_ms

    async def recover(self) -> list[str]:
        """Fail the active artifacts whose owner is gone, saying why; returns their ids."""
        if not await self._has_owners():
            return []
        now = now_ms()
        rows = await self.db.fetch_all(
            "SELECT id, owner, heartbeat_at, updated_at, items_json FROM artifacts "
            "WHERE status IN ('pending', 'running')"
        )
        stale = [
            row
            for row in rows
            if self.abandoned(row["owner"], row["heartbeat_at"] or row["updated_at"], now)
        ]
        if not stale:
            return []
        async with self.db.transaction() as connection:
            for row in stale:
                kept = len(loads(row["items_json"], []))
                reason = (
                    f"interrupted: the process making it (pid {_pid(row['owner'])}) stopped "
                    f"before it finished; {kept} item(s) were kept. Run it again."
                )
                await connection.execute(
                    "UPDATE artifacts SET status = 'failed', error = ?, owner = NULL, "
                    "heartbeat_at = NULL, partial = 1, updated_at = ?, completed_at = ?, "
                    "warnings_json = ? WHERE id = ? AND status IN ('pending', 'running')",
                    (reason, now, now, json.dumps([reason]), row["id"]),
                )
        return [row["id"] for row in stale]

    async def _has_owners(self) -> bool:
        """A store opened at an older schema version (as tests of migrations do) has no
        runs to recover."""
        rows = await self.db.fetch_all("SELECT name FROM pragma_table_info('artifacts')")
        return any(row[0] == "owner" for row in rows)
