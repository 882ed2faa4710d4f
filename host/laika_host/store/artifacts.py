"""Artifacts: durable transform results (briefs, tables, ...), one active per dedupe key."""

from __future__ import annotations

import json
import sqlite3

from pydantic import JsonValue

from ..redact import redact_text, redact_value
from ._db import Database, Row
from .errors import ConflictError, NotFoundError
from .ids import new_id, now_ms
from .records import Artifact, ArtifactStatus, loads, required_time, time_of
from .rows import from_row

FINAL = ("completed", "failed", "cancelled")


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
    ) -> Artifact:
        """A pending artifact; ConflictError while one with this dedupe key is in progress."""
        artifact_id, now = new_id("art"), now_ms()
        try:
            async with self.db.transaction() as connection:
                await connection.execute(
                    "INSERT INTO artifacts (id, collection_id, type, title, dedupe_key, status, "
                    "source_ids_json, config_json, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)",
                    (
                        artifact_id,
                        collection_id,
                        type,
                        redact_text(title),
                        dedupe_key,
                        json.dumps(source_ids or []),
                        json.dumps(redact_value(config or {})),
                        now,
                        now,
                    ),
                )
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
