"""Collections: named groups of sources. Titles are unique, ignoring case (`titles`)."""

from __future__ import annotations

import json
import sqlite3

from ._db import Database, Row
from .errors import ConflictError, NotFoundError
from .ids import new_id, now_ms
from .records import Collection, loads, required_time
from .rows import from_row
from .titles import clean_title, title_key

NAMED_IN_ERRORS = 20
_SELECT = (
    "SELECT c.*, (SELECT count(*) FROM sources s WHERE s.collection_id = c.id) AS source_count "
    "FROM collections c"
)


@from_row
def _record(row: Row) -> Collection:
    return Collection(
        id=row["id"],
        title=row["title"],
        tags=loads(row["tags_json"], []),
        source_count=row["source_count"],
        created_at=required_time(row, "created_at"),
        updated_at=required_time(row, "updated_at"),
    )


class Collections:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def create(self, title: str, tags: list[str] | None = None) -> Collection:
        title = clean_title(title)
        now = now_ms()
        try:
            async with self.db.transaction() as connection:
                await connection.execute(
                    "INSERT INTO collections (id, title, title_key, tags_json, created_at, "
                    "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (new_id("col"), title, title_key(title), json.dumps(tags or []), now, now),
                )
        except sqlite3.IntegrityError:
            raise ConflictError(
                f"a collection named {title!r} already exists; pick another name"
            ) from None
        return await self.get(title)

    async def ensure(self, title: str) -> Collection:
        """The collection with this title, created if missing (safe under concurrency)."""
        title = clean_title(title)
        found = await self.find(title)
        if found is not None:
            return found
        now = now_ms()
        async with self.db.transaction() as connection:
            await connection.execute(
                "INSERT OR IGNORE INTO collections (id, title, title_key, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?)",
                (new_id("col"), title, title_key(title), now, now),
            )
        return await self.get(title)

    async def find(self, id_or_title: str) -> Collection | None:
        """By id, else by title: the exact title first (two an older Laika let in stay
        apart), then the same title in another case or form."""
        title = " ".join(id_or_title.split())
        row = await self.db.fetch_one(
            f"{_SELECT} WHERE c.id = :ref OR c.title = :title OR c.title_key = :key "
            "ORDER BY c.id = :ref DESC, c.title = :title DESC LIMIT 1",
            {"ref": id_or_title, "title": title, "key": title_key(title)},
        )
        return _record(row) if row else None

    async def get(self, id_or_title: str) -> Collection:
        found = await self.find(id_or_title)
        if found is None:
            raise NotFoundError(f"no collection {id_or_title!r}; {await self._existing()}")
        return found

    async def _existing(self) -> str:
        """The collections there are, for an error that names a missing one (a typo is then
        seen at once); bounded, most recently changed first."""
        rows = await self.db.fetch_all(
            "SELECT title FROM collections ORDER BY updated_at DESC, title LIMIT :n",
            {"n": NAMED_IN_ERRORS + 1},
        )
        titles = [repr(row["title"]) for row in rows]
        if not titles:
            return "there are none yet: `laika capture PAGE -c TITLE` creates one"
        more = ", …" if len(titles) > NAMED_IN_ERRORS else ""
        listed = ", ".join(titles[:NAMED_IN_ERRORS]) + more
        return f"the collections are: {listed} (`laika collections list` shows them)"

    async def list(self) -> list[Collection]:
        rows = await self.db.fetch_all(f"{_SELECT} ORDER BY c.updated_at DESC, c.title")
        return [_record(row) for row in rows]

    async def rename(self, id_or_title: str, new_title: str) -> Collection:
        collection = await self.get(id_or_title)
        new_title = clean_title(new_title)
        try:
            async with self.db.transaction() as connection:
                await connection.execute(
                    "UPDATE collections SET title = ?, title_key = ?, updated_at = ? WHERE id = ?",
                    (new_title, title_key(new_title), now_ms(), collection.id),
                )
        except sqlite3.IntegrityError:
            raise ConflictError(f"a collection named {new_title!r} already exists") from None
        return await self.get(collection.id)

    async def delete(self, id_or_title: str) -> Collection:
        """Delete the collection with its sources, jobs, chat events and artifacts.

        LLM runs stay (their links become NULL): they are the audit trail.
        """
        collection = await self.get(id_or_title)
        async with self.db.transaction() as connection:
            await connection.execute("DELETE FROM collections WHERE id = ?", (collection.id,))
        return collection

    async def touch(self, collection_id: str, at: int) -> None:
        """Called inside write transactions that change a collection's contents."""
        await self.db.connection.execute(
            "UPDATE collections SET updated_at = ? WHERE id = ?", (at, collection_id)
        )
