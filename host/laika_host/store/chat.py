"""Chat events: the durable, collection-scoped conversation (user and assistant turns)."""

from __future__ import annotations

import json

from pydantic import JsonValue

from ._db import Database, Row
from .errors import InvalidInputError
from .ids import new_id, now_ms
from .records import ChatEvent, ChatRole, loads, required_time
from .redact import redact_row
from .rows import from_row

MAX_CHAT_MARKDOWN = 200_000


@from_row
def _event(row: Row) -> ChatEvent:
    return ChatEvent(
        id=row["id"],
        collection_id=row["collection_id"],
        role=row["role"],
        markdown=row["markdown"],
        citations=loads(row["citations_json"], []),
        tool_calls=loads(row["tool_calls_json"], []),
        tool_results=loads(row["tool_results_json"], []),
        model=loads(row["model_json"], None),
        created_at=required_time(row, "created_at"),
    )


class Chat:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def append(
        self,
        collection_id: str,
        role: ChatRole,
        markdown: str,
        *,
        citations: list[JsonValue] | None = None,
        tool_calls: list[JsonValue] | None = None,
        tool_results: list[JsonValue] | None = None,
        model: JsonValue = None,
    ) -> ChatEvent:
        if len(markdown) > MAX_CHAT_MARKDOWN:
            raise InvalidInputError(f"a chat message is at most {MAX_CHAT_MARKDOWN:,} characters")
        event_id = new_id("chat")
        values = redact_row(
            {
                "id": event_id,
                "collection_id": collection_id,
                "role": role,
                "markdown": markdown,
                "citations_json": json.dumps(citations or []),
                "tool_calls_json": json.dumps(tool_calls or []),
                "tool_results_json": json.dumps(tool_results or []),
                "model_json": None if model is None else json.dumps(model),
                "created_at": now_ms(),
            }
        )
        async with self.db.transaction() as connection:
            await connection.execute(
                f"INSERT INTO chat_events ({', '.join(values)}) "
                f"VALUES ({', '.join('?' for _ in values)})",
                tuple(values.values()),
            )
        row = await self.db.fetch_one("SELECT * FROM chat_events WHERE id = ?", (event_id,))
        assert row is not None
        return _event(row)

    async def list(self, collection_id: str, *, limit: int = 200) -> list[ChatEvent]:
        """The latest `limit` events, oldest first (the order to show and to pack)."""
        rows = await self.db.fetch_all(
            "SELECT * FROM (SELECT rowid AS r, * FROM chat_events WHERE collection_id = ? "
            "ORDER BY created_at DESC, r DESC LIMIT ?) ORDER BY created_at, r",
            (collection_id, limit),
        )
        return [_event(row) for row in rows]
