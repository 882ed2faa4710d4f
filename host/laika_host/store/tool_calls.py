"""The Policy Gate's audit trail: one row per proposed tool call, with the decision, the rule
that made it, and what ran.

A proposal is written before anything runs (`record`), so a crash mid-call still leaves it
on record; its status then moves pending -> approved | denied, and approved (or allowed) ->
executed | failed. Arguments and results are untrusted (a page or a model wrote them): they
pass the store's redaction (`redact_row`) and are bounded here, so a secret in an argument
never reaches the file and a huge result cannot grow it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue

from ..redact import redact_prefix
from ._db import Database, Row
from .errors import ConflictError, NotFoundError
from .ids import new_id, now_ms
from .records import Record, loads, required_time, time_of
from .redact import redact_row
from .rows import from_row

ToolCallStatus = Literal["pending", "approved", "denied", "executed", "failed"]
GateDecision = Literal["allow", "ask", "deny"]
CallOrigin = Literal["user", "page", "model", "rule"]

MAX_STORED_JSON = 16_000
"""Characters of arguments or result kept per call; longer ones keep a redacted preview."""
MAX_REASON = 1_000


class ToolCallRecord(Record):
    id: str
    chat_event_id: str | None
    collection_id: str | None
    tool: str
    arguments: JsonValue
    origin: CallOrigin
    untrusted_context: bool
    decision: GateDecision
    rule_id: str
    reason: str
    status: ToolCallStatus
    result: JsonValue
    created_at: str
    decided_at: str | None
    executed_at: str | None


@dataclass(frozen=True)
class Proposed:
    """A proposal as the gate saw it and decided it."""

    tool: str
    arguments: JsonValue
    origin: CallOrigin
    untrusted_context: bool
    decision: GateDecision
    rule_id: str
    reason: str
    chat_event_id: str | None = None
    collection_id: str | None = None


def bounded_json(value: JsonValue) -> str:
    """`value` as JSON, or `{"truncated": true, "preview": ...}` past `MAX_STORED_JSON`
    (the preview redacted before it is cut, so no half of a key survives)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= MAX_STORED_JSON:
        return text
    preview = redact_prefix(text, MAX_STORED_JSON // 2)
    return json.dumps({"truncated": True, "chars": len(text), "preview": preview})


@from_row
def _call(row: Row) -> ToolCallRecord:
    return ToolCallRecord(
        id=row["id"],
        chat_event_id=row["chat_event_id"],
        collection_id=row["collection_id"],
        tool=row["tool"],
        arguments=loads(row["arguments_json"], {}),
        origin=row["origin"],
        untrusted_context=bool(row["untrusted_context"]),
        decision=row["decision"],
        rule_id=row["rule_id"],
        reason=row["reason"],
        status=row["status"],
        result=loads(row["result_json"], None),
        created_at=required_time(row, "created_at"),
        decided_at=time_of(row, "decided_at"),
        executed_at=time_of(row, "executed_at"),
    )


_INITIAL_STATUS: dict[GateDecision, ToolCallStatus] = {
    "allow": "approved",
    "ask": "pending",
    "deny": "denied",
}


class ToolCalls:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def record(self, proposed: Proposed) -> ToolCallRecord:
        """Store a decided proposal: allowed ones `approved`, asked ones `pending`, denied
        ones `denied` (decided now unless pending)."""
        now = now_ms()
        status = _INITIAL_STATUS[proposed.decision]
        values = redact_row(
            {
                "id": new_id("call"),
                "chat_event_id": proposed.chat_event_id,
                "collection_id": proposed.collection_id,
                "tool": proposed.tool[:200],
                "arguments_json": bounded_json(proposed.arguments),
                "origin": proposed.origin,
                "untrusted_context": int(proposed.untrusted_context),
                "decision": proposed.decision,
                "rule_id": proposed.rule_id,
                "reason": proposed.reason[:MAX_REASON],
                "status": status,
                "created_at": now,
                "decided_at": None if status == "pending" else now,
            }
        )
        async with self.db.transaction() as connection:
            await connection.execute(
                f"INSERT INTO tool_calls ({', '.join(values)}) "
                f"VALUES ({', '.join('?' for _ in values)})",
                tuple(values.values()),
            )
        return await self.get(values["id"])

    async def resolve(self, call_id: str, status: Literal["approved", "denied"]) -> ToolCallRecord:
        """A pending call approved or denied by the user; ConflictError when it is not
        pending any more (decided already, maybe by another window)."""
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE tool_calls SET status = ?, decided_at = ? "
                "WHERE id = ? AND status = 'pending'",
                (status, now_ms(), call_id),
            )
            changed = cursor.rowcount == 1
        if not changed:
            current = await self.get(call_id)
            raise ConflictError(
                f"tool call {call_id} is {current.status}, not pending: it was decided "
                "already; `laika approvals list` shows what still waits"
            )
        return await self.get(call_id)

    async def finish(
        self, call_id: str, status: Literal["executed", "failed"], result: JsonValue
    ) -> ToolCallRecord:
        """What an approved call did: its result (or error), redacted and bounded."""
        values = redact_row({"result_json": bounded_json(result)})
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE tool_calls SET status = ?, result_json = ?, executed_at = ? "
                "WHERE id = ? AND status = 'approved'",
                (status, values["result_json"], now_ms(), call_id),
            )
            changed = cursor.rowcount == 1
        if not changed:
            current = await self.get(call_id)
            raise ConflictError(f"tool call {call_id} is {current.status}, not approved")
        return await self.get(call_id)

    async def get(self, call_id: str) -> ToolCallRecord:
        row = await self.db.fetch_one("SELECT * FROM tool_calls WHERE id = ?", (call_id,))
        if row is None:
            raise NotFoundError(
                f"no tool call {call_id!r}; `laika approvals list` shows the pending ones"
            )
        return _call(row)

    async def list(
        self, *, status: ToolCallStatus | None = None, limit: int = 100
    ) -> list[ToolCallRecord]:
        """Newest first; only one status when given."""
        where, params = ("WHERE status = ?", (status,)) if status else ("", ())
        rows = await self.db.fetch_all(
            f"SELECT * FROM tool_calls {where} ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (*params, limit),
        )
        return [_call(row) for row in rows]
