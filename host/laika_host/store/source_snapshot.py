"""A collection's captured sources as a transform reads them: bodies, metadata and hashes.

Transforms record which content (source id + content hash) an artifact was built from, and
later compare those hashes with the current ones to tell a stale artifact.
"""

from __future__ import annotations

from typing import Any

from ._db import Database
from .records import time_of

MAX_SOURCES = 1000


async def collection_sources(
    database: Database, collection_id: str, *, limit: int = MAX_SOURCES
) -> list[dict[str, Any]]:
    """The captured sources of a collection, oldest first (the order they were collected)."""
    rows = await database.fetch_all(
        "SELECT id, kind, url, title, capture_markdown, capture_text, content_hash, byline, "
        "published, captured_at FROM sources WHERE collection_id = ? "
        "AND capture_status = 'captured' ORDER BY added_at, seq LIMIT ?",
        (collection_id, limit),
    )
    return [
        {
            "source_id": row["id"],
            "kind": row["kind"],
            "url": row["url"] or f"laika:source/{row['id']}",
            "web_url": row["url"],
            "title": row["title"] or "(untitled)",
            "markdown": row["capture_markdown"] or "",
            "text": row["capture_text"] or "",
            "content_hash": row["content_hash"] or "",
            "byline": row["byline"],
            "published": row["published"],
            "captured_at": time_of(row, "captured_at"),
        }
        for row in rows
    ]


async def current_hashes(database: Database, source_ids: list[str]) -> dict[str, str | None]:
    """Each id's content hash now (None: captured no more); ids no longer stored are absent."""
    found: dict[str, str | None] = {}
    for start in range(0, len(source_ids), 500):  # SQLite's parameter limit
        batch = source_ids[start : start + 500]
        marks = ", ".join("?" for _ in batch)
        rows = await database.fetch_all(
            f"SELECT id, content_hash, capture_status FROM sources WHERE id IN ({marks})",
            tuple(batch),
        )
        for row in rows:
            captured = row["capture_status"] == "captured"
            found[row["id"]] = row["content_hash"] if captured else None
    return found
