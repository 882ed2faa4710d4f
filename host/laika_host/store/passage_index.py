"""The passage index: sources' passages (`passages.py`) written to FTS5, and searched.

Writing: triggers queue each source whose Markdown changed (`schema_passages.py`); `drain`
cuts and indexes the queue inside the writer's own transaction, so a saved, refreshed or
restored source is searchable when its write commits. `catch_up` indexes what older writes
left queued, in batches, before a search reads the index.

Searching: OR semantics (any content word may match; bm25 ranks pages holding more of them,
and rarer ones, first), title and heading weighted above the body, optionally within one
collection through its scope token.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import aiosqlite

from ._db import Database
from .passages import split_passages
from .search import Query

log = logging.getLogger("laika.store")

BATCH_SOURCES = 100
"""Sources indexed per transaction by `catch_up` (the write lock is held per batch)."""
WEIGHTS = "0.0, 4.0, 2.0, 1.0"
"""bm25 column weights: scope (a filter, no weight), title, heading, body."""
PASSAGE_LIMIT = 200
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class PassageHit:
    """A passage that matched, best first (`score`: bm25, lower is better)."""

    source_id: str
    ordinal: int
    heading: str
    start: int
    end: int
    score: float


def scope_token(collection_id: str) -> str:
    """The FTS token of a collection (`col_<hex>` -> `c<hex>`), as the triggers write it."""
    return "c" + collection_id.removeprefix("col_")


async def drain(connection: aiosqlite.Connection, limit: int | None = None) -> int:
    """Index the queued sources (at most `limit`) in the caller's transaction; how many."""
    sql = "SELECT source_seq FROM passage_queue ORDER BY source_seq"
    cursor = await connection.execute(sql + ("" if limit is None else f" LIMIT {int(limit)}"))
    queued = [int(row[0]) for row in await cursor.fetchall()]
    for seq in queued:
        await _index_source(connection, seq)
    return len(queued)


async def index_source(connection: aiosqlite.Connection, source_id: str) -> None:
    """Index one source now, in the caller's transaction (the queue keeps the rest)."""
    cursor = await connection.execute("SELECT seq FROM sources WHERE id = ?", (source_id,))
    row = await cursor.fetchone()
    if row is not None:
        await _index_source(connection, int(row[0]))


async def _index_source(connection: aiosqlite.Connection, seq: int) -> None:
    await connection.execute("DELETE FROM passages WHERE source_seq = ?", (seq,))
    await connection.execute("DELETE FROM passage_queue WHERE source_seq = ?", (seq,))
    cursor = await connection.execute(
        "SELECT collection_id, title, capture_markdown FROM sources WHERE seq = ?", (seq,)
    )
    row = await cursor.fetchone()
    if row is None or not row[2]:
        return
    scope, title = scope_token(str(row[0])), str(row[1] or "")
    await connection.executemany(
        "INSERT INTO passages (source_seq, ordinal, scope, title, heading, body, start_at, "
        "end_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (seq, p.ordinal, scope, title, p.heading, p.text, p.start, p.end)
            for p in split_passages(str(row[2]))
        ],
    )


class PassageIndex:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def pending(self) -> int:
        row = await self.db.fetch_one("SELECT count(*) FROM passage_queue")
        return int(row[0]) if row else 0

    async def catch_up(self, progress: Progress | None = None) -> int:
        """Index every queued source, a batch per transaction; how many were indexed.
        `progress(done, total)` after each batch (a large store migrated to passages)."""
        total = await self.pending()
        done = 0
        while done < total:
            async with self.db.transaction() as connection:
                indexed = await drain(connection, BATCH_SOURCES)
            if not indexed:
                break
            done += indexed
            if progress is not None:
                progress(done, total)
            elif total > BATCH_SOURCES:
                log.info("indexing passages: %d of %d sources", done, total)
        return done

    async def spans(self, source_ids: list[str]) -> dict[str, dict[int, tuple[int, int, str]]]:
        """Every passage of the sources named: ordinal -> (start, end, heading path)."""
        if not source_ids:
            return {}
        marks = ", ".join("?" for _ in source_ids)
        rows = await self.db.fetch_all(
            "SELECT s.id, p.ordinal, p.start_at, p.end_at, p.heading FROM passages p "
            f"JOIN sources s ON s.seq = p.source_seq WHERE s.id IN ({marks})",
            tuple(source_ids),
        )
        found: dict[str, dict[int, tuple[int, int, str]]] = {}
        for row in rows:
            found.setdefault(str(row[0]), {})[int(row[1])] = (int(row[2]), int(row[3]), str(row[4]))
        return found

    async def search(
        self,
        text: str,
        *,
        collection_id: str | None = None,
        source_ids: Sequence[str] | None = None,
        limit: int = PASSAGE_LIMIT,
    ) -> list[PassageHit]:
        """The best `limit` passages for what the user typed (any of its words); with
        `source_ids`, of those sources only."""
        if await self.pending():
            await self.catch_up()
        query = Query(text)
        match = query.fts("OR")
        if collection_id is not None:
            match = f'scope : "{scope_token(collection_id)}" AND ({match})'
        among = ""
        if source_ids is not None:
            among = (
                "AND rowid IN (SELECT p.seq FROM passages p JOIN sources s "
                "ON s.seq = p.source_seq WHERE s.id IN (SELECT value FROM json_each(:ids))) "
            )
        rows = await self.db.fetch_all(
            "WITH top AS (SELECT rowid AS seq, bm25(passages_fts, "
            f"{WEIGHTS}) AS score FROM passages_fts WHERE passages_fts MATCH :query {among}"
            "ORDER BY score LIMIT :limit) "
            "SELECT s.id AS source_id, p.ordinal, p.heading, p.start_at, p.end_at, top.score "
            "FROM top JOIN passages p ON p.seq = top.seq JOIN sources s ON s.seq = p.source_seq "
            "ORDER BY top.score",
            {"query": match, "limit": limit, "ids": json.dumps(list(source_ids or []))},
        )
        return [
            PassageHit(
                source_id=str(row["source_id"]),
                ordinal=int(row["ordinal"]),
                heading=str(row["heading"]),
                start=int(row["start_at"]),
                end=int(row["end_at"]),
                score=float(row["score"]),
            )
            for row in rows
        ]
