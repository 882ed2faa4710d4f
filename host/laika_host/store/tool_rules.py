"""Decisions a user asked the gate to remember always: `allow` or `deny` for one tool, kept
until revoked. (Remembered for the session only, they never reach the file.)"""

from __future__ import annotations

from typing import Literal

from ._db import Database, Row
from .errors import NotFoundError
from .ids import new_id, now_ms
from .records import Record, required_time
from .rows import from_row

Remembered = Literal["allow", "deny"]


class RememberedRule(Record):
    id: str
    tool: str
    decision: Remembered
    created_at: str


@from_row
def _rule(row: Row) -> RememberedRule:
    return RememberedRule(
        id=row["id"],
        tool=row["tool"],
        decision=row["decision"],
        created_at=required_time(row, "created_at"),
    )


class ToolRules:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def remember(self, tool: str, decision: Remembered) -> RememberedRule:
        """Replace what was remembered for `tool` (one decision per tool)."""
        rule_id = new_id("rule")
        async with self.db.transaction() as connection:
            await connection.execute("DELETE FROM tool_rules WHERE tool = ?", (tool,))
            await connection.execute(
                "INSERT INTO tool_rules (id, tool, decision, created_at) VALUES (?, ?, ?, ?)",
                (rule_id, tool, decision, now_ms()),
            )
        row = await self.db.fetch_one("SELECT * FROM tool_rules WHERE id = ?", (rule_id,))
        assert row is not None
        return _rule(row)

    async def list(self) -> list[RememberedRule]:
        """Newest first: the order the gate reads them in."""
        rows = await self.db.fetch_all(
            "SELECT * FROM tool_rules ORDER BY created_at DESC, rowid DESC"
        )
        return [_rule(row) for row in rows]

    async def forget(self, rule_id: str) -> RememberedRule:
        row = await self.db.fetch_one("SELECT * FROM tool_rules WHERE id = ?", (rule_id,))
        if row is None:
            raise NotFoundError(
                f"no remembered decision {rule_id!r}; `laika approvals rules` lists them"
            )
        async with self.db.transaction() as connection:
            await connection.execute("DELETE FROM tool_rules WHERE id = ?", (rule_id,))
        return _rule(row)
