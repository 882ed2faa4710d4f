"""Artifacts: durable transform results (briefs, tables, ...), one active per dedupe key."""

from __future__ import annotations

import builtins
import json
import sqlite3
from dataclasses import dataclass, field

from pydantic import JsonValue

from ..redact import redact_text, redact_value
from ._db import Database, Row
from .errors import ConflictError, NotFoundError
from .ids import new_id, now_ms
from .records import Artifact, ArtifactStatus, loads, required_time, time_of
from .rows import from_row

FINAL = ("completed", "failed", "cancelled")
APPEND_BATCH = 50
"""Items appended per statement (two SQL function arguments each; SQLite allows 127)."""


@from_row
def _artifact(row: Row) -> Artifact:
    return Artifact(
        id=row["id"],
        collection_id=row["collection_id"],
        type=row["type"],
        title=row["title"],
        dedupe_key=row["dedupe_key"],
        status=row["status"],
        error=row["error"],
        content_markdown=row["content_markdown"],
        source_ids=loads(row["source_ids_json"], []),
        citations=loads(row["citations_json"], []),
        config=loads(row["config_json"], {}),
        created_at=required_time(row, "created_at"),
        updated_at=required_time(row, "updated_at"),
        completed_at=time_of(row, "completed_at"),
        items=loads(row["items_json"], []),
        sources=loads(row["sources_json"], []),
        provider=row["provider"],
        progress=loads(row["progress_json"], {}),
        warnings=loads(row["warnings_json"], []),
        partial=bool(row["partial"]),
        owner=row["owner"],
        heartbeat_at=time_of(row, "heartbeat_at"),
        cancel_requested=bool(row["cancel_requested"]),
    )


class Artifacts:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def create(
        self,
        collection_id: str,
        type: str,
        title: str,
        *,
        dedupe_key: str,
        source_ids: list[str] | None = None,
        config: dict[str, JsonValue] | None = None,
        sources: list[dict[str, JsonValue]] | None = None,
        provider: str | None = None,
        owner: str | None = None,
        reuse: bool = False,
    ) -> Artifact:
        """A pending artifact; ConflictError while one with this dedupe key is in progress.
        `sources` are the `{source_id, content_hash}` it is built from; `owner` the process
        that will run it (it gets a heartbeat now, so a crash before it starts is found).
        With `reuse`, a completed artifact with this key and provider is returned instead
        (checked in the same transaction, so a run finishing meanwhile is not made twice)."""
        artifact_id, now = new_id("art"), now_ms()
        if source_ids is None and sources is not None:
            source_ids = [str(entry["source_id"]) for entry in sources]
        try:
            async with self.db.transaction() as connection:
                if reuse:
                    cursor = await connection.execute(
                        "SELECT id FROM artifacts WHERE dedupe_key = ? AND status = 'completed' "
                        "AND provider IS ? ORDER BY completed_at DESC, seq DESC LIMIT 1",
                        (dedupe_key, provider),
                    )
                    found = await cursor.fetchone()
                    if found is not None:
                        artifact_id = found["id"]
                        raise _Reused
                await connection.execute(
                    "INSERT INTO artifacts (id, collection_id, type, title, dedupe_key, status, "
                    "source_ids_json, config_json, sources_json, provider, owner, heartbeat_at, "
                    "created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        artifact_id,
                        collection_id,
                        type,
                        redact_text(title),
                        dedupe_key,
                        json.dumps(source_ids or []),
                        json.dumps(redact_value(config or {})),
                        json.dumps(sources or []),
                        provider,
                        owner,
                        now if owner else None,
                        now,
                        now,
                    ),
                )
        except _Reused:
            pass  # nothing was written: the transaction rolled back
        except sqlite3.IntegrityError as error:
            if "dedupe_key" not in str(error):
                raise
            raise ConflictError(
                f"an artifact with dedupe key {dedupe_key} is already being made; wait for it"
            ) from None
        return await self.get(artifact_id)

    async def update_status(
        self,
        artifact_id: str,
        status: ArtifactStatus,
        *,
        content_markdown: str | None = None,
        citations: list[JsonValue] | None = None,
        error: str | None = None,
    ) -> Artifact:
        current = await self.get(artifact_id)
        if current.status in FINAL:
            raise ConflictError(f"artifact {artifact_id} is already {current.status}")
        now = now_ms()
        async with self.db.transaction() as connection:
            await connection.execute(
                "UPDATE artifacts SET status = ?, updated_at = ?, "
                "content_markdown = coalesce(?, content_markdown), "
                "citations_json = coalesce(?, citations_json), error = coalesce(?, error), "
                "completed_at = CASE WHEN ? IN ('completed', 'failed', 'cancelled') "
                "THEN ? ELSE completed_at END WHERE id = ?",
                (
                    status,
                    now,
                    None if content_markdown is None else redact_text(content_markdown),
                    None if citations is None else json.dumps(redact_value(citations)),
                    None if error is None else redact_text(error),
                    status,
                    now,
                    artifact_id,
                ),
            )
        return await self.get(artifact_id)

    async def get(self, artifact_id: str) -> Artifact:
        row = await self.db.fetch_one("SELECT * FROM artifacts WHERE id = ?", (artifact_id,))
        if row is None:
            raise NotFoundError(f"no artifact {artifact_id!r}")
        return _artifact(row)

    async def list(self, collection_id: str, *, limit: int = 100) -> list[Artifact]:
        rows = await self.db.fetch_all(
            "SELECT * FROM artifacts WHERE collection_id = ? "
            "ORDER BY created_at DESC, seq DESC LIMIT ?",
            (collection_id, limit),
        )
        return [_artifact(row) for row in rows]

    async def active_for(self, dedupe_key: str) -> Artifact | None:
        """The artifact being made under this key (pending or running), if any."""
        row = await self.db.fetch_one(
            "SELECT * FROM artifacts WHERE dedupe_key = ? AND status IN ('pending', 'running')",
            (dedupe_key,),
        )
        return _artifact(row) if row else None

    async def completed_for(self, dedupe_key: str) -> builtins.list[Artifact]:
        """Completed artifacts made under this key, newest first."""
        rows = await self.db.fetch_all(
            "SELECT * FROM artifacts WHERE dedupe_key = ? AND status = 'completed' "
            "ORDER BY completed_at DESC, seq DESC LIMIT 20",
            (dedupe_key,),
        )
        return [_artifact(row) for row in rows]

    async def append_items(
        self,
        artifact_id: str,
        items: builtins.list[dict[str, JsonValue]],
        *,
        start: int,
        progress: dict[str, JsonValue],
    ) -> bool:
        """Add a run's items from index `start` on to an active artifact, and record where
        the run is. Each item is redacted once, here, and appended by SQLite, so a run of n
        items costs O(n). False (nothing written) when the stored list does not hold exactly
        `start` items (an earlier save was cut short): then `replace_items`."""
        texts = [json.dumps(redact_value(item)) for item in items]
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE artifacts SET progress_json = ?, updated_at = ? WHERE id = ? "
                "AND status IN ('pending', 'running') AND json_array_length(items_json) = ?",
                (json.dumps(progress), now_ms(), artifact_id, start),
            )
            if cursor.rowcount != 1:
                return False
            for first in range(0, len(texts), APPEND_BATCH):
                batch = texts[first : first + APPEND_BATCH]
                pairs = ", ".join("'$[#]', json(?)" for _ in batch)
                await connection.execute(
                    f"UPDATE artifacts SET items_json = json_insert(items_json, {pairs}) "
                    "WHERE id = ?",
                    (*batch, artifact_id),
                )
        return True

    async def replace_items(
        self,
        artifact_id: str,
        items: builtins.list[dict[str, JsonValue]],
        *,
        progress: dict[str, JsonValue],
    ) -> None:
        """All of an active artifact's items at once (redacted)."""
        async with self.db.transaction() as connection:
            await connection.execute(
                "UPDATE artifacts SET items_json = ?, progress_json = ?, updated_at = ? "
                "WHERE id = ? AND status IN ('pending', 'running')",
                (json.dumps(redact_value(items)), json.dumps(progress), now_ms(), artifact_id),
            )

    async def finish(
        self,
        artifact_id: str,
        status: ArtifactStatus,
        *,
        outcome: ArtifactOutcome,
    ) -> Artifact:
        """End an active artifact: `completed`, `failed` or `cancelled`, with what it made.
        Items are kept whatever the status (`outcome.items` replaces them when given); the
        owner and heartbeat are cleared."""
        now = now_ms()
        items = None if outcome.items is None else json.dumps(redact_value(outcome.items))
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE artifacts SET status = ?, content_markdown = ?, "
                "items_json = coalesce(?, items_json), "
                "citations_json = ?, warnings_json = ?, partial = ?, progress_json = ?, "
                "error = ?, owner = NULL, heartbeat_at = NULL, updated_at = ?, completed_at = ? "
                "WHERE id = ? AND status IN ('pending', 'running')",
                (
                    status,
                    None if outcome.markdown is None else redact_text(outcome.markdown),
                    items,
                    json.dumps(redact_value(outcome.citations)),
                    json.dumps([redact_text(w) for w in outcome.warnings]),
                    int(outcome.partial),
                    json.dumps(outcome.progress),
                    None if outcome.error is None else redact_text(outcome.error)[:2000],
                    now,
                    now,
                    artifact_id,
                ),
            )
            changed = cursor.rowcount
        artifact = await self.get(artifact_id)
        if not changed:
            raise ConflictError(f"artifact {artifact_id} is already {artifact.status}")
        return artifact

    async def delete(self, artifact_id: str) -> Artifact:
        artifact = await self.get(artifact_id)
        async with self.db.transaction() as connection:
            await connection.execute("DELETE FROM artifacts WHERE id = ?", (artifact_id,))
        return artifact


class _Reused(Exception):  # noqa: N818 - a signal, not an error
    """Leaves `create`'s transaction when a completed artifact can be reused."""


@dataclass
class ArtifactOutcome:
    """What a run leaves in its artifact when it ends."""

    markdown: str | None = None
    items: list[dict[str, JsonValue]] | None = None  # None: keep the items appended so far
    citations: list[JsonValue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    partial: bool = False
    progress: dict[str, JsonValue] = field(default_factory=dict)
    error: str | None = None
