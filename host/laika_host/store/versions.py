"""Previous captures of a source: archived when replaced, listed and shown on request.

Nothing a refresh replaces is lost: the old capture's Markdown, title, signals and
provenance move to `source_versions` in the same transaction that writes the new one.
"""

from __future__ import annotations

import builtins

import aiosqlite

from ._db import Database, Row
from .errors import NotFoundError
from .records import SourceVersion, SourceVersionDetail, loads, time_of
from .rows import from_row

_COLUMNS = (
    "source_id, version, title, content_hash, signals, truncated, captured_at, "
    "length(capture_markdown) AS markdown_chars"
)
_CURRENT = (
    "SELECT id AS source_id, capture_version AS version, title, content_hash, signals, "
    "truncated, captured_at, length(capture_markdown) AS markdown_chars, NULL AS replaced_at, "
    "1 AS current{markdown} FROM sources WHERE id = ? AND capture_status = 'captured'"
)
_OLD = (
    f"SELECT {_COLUMNS}, replaced_at, 0 AS current{{markdown}} FROM source_versions "
    "WHERE source_id = ?"
)


async def archive(connection: aiosqlite.Connection, source_id: str, now: int) -> None:
    """Keep the source's current capture as a version (inside the replacing transaction)."""
    await connection.execute(
        "INSERT OR IGNORE INTO source_versions (source_id, version, title, content_hash, "
        "capture_markdown, signals, truncated, provenance_json, captured_at, replaced_at) "
        "SELECT id, capture_version, title, content_hash, capture_markdown, "
        "coalesce(signals, '[]'), truncated, coalesce(provenance_json, '{}'), captured_at, ? "
        "FROM sources WHERE id = ? AND capture_status = 'captured' "
        "AND capture_markdown IS NOT NULL",
        (now, source_id),
    )


@from_row
def _version(row: Row) -> SourceVersion:
    return SourceVersion(
        source_id=row["source_id"],
        version=row["version"],
        current=bool(row["current"]),
        title=row["title"],
        content_hash=row["content_hash"],
        signals=loads(row["signals"], []),
        truncated=bool(row["truncated"]),
        markdown_chars=row["markdown_chars"] or 0,
        captured_at=time_of(row, "captured_at"),
        replaced_at=time_of(row, "replaced_at"),
    )


class Versions:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def list(self, source_id: str) -> builtins.list[SourceVersion]:
        """Every capture of the source, oldest first; the last is the current one."""
        rows = await self.db.fetch_all(
            f"{_OLD.format(markdown='')} UNION ALL {_CURRENT.format(markdown='')} ORDER BY version",
            (source_id, source_id),
        )
        if not rows:
            await self._require_source(source_id)
        return [_version(row) for row in rows]

    async def get(self, source_id: str, version: int) -> SourceVersionDetail:
        """One capture with its Markdown (the current one too, by its number)."""
        markdown = ", capture_markdown"
        row = await self.db.fetch_one(
            f"SELECT * FROM ({_OLD.format(markdown=markdown)} UNION ALL "
            f"{_CURRENT.format(markdown=markdown)}) WHERE version = ?",
            (source_id, source_id, version),
        )
        if row is None:
            await self._require_source(source_id)
            raise NotFoundError(
                f"source {source_id} has no version {version}; "
                f"`laika sources versions {source_id}` lists them"
            )
        return SourceVersionDetail(
            **_version(row).model_dump(), markdown=row["capture_markdown"] or ""
        )

    async def _require_source(self, source_id: str) -> None:
        row = await self.db.fetch_one("SELECT 1 FROM sources WHERE id = ?", (source_id,))
        if row is None:
            raise NotFoundError(f"no source {source_id!r}; `laika sources list` shows them")
