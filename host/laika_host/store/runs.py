"""LLM runs: one row per model call, for audit and cost; payloads are stored redacted."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue

from ..redact import redact_text, redact_value
from ._db import Database, Row
from .errors import NotFoundError
from .ids import new_id, now_ms
from .records import LlmRun, loads, required_time
from .rows import from_row


@dataclass
class RunLinks:
    """What a run was about; each link becomes NULL when its target is deleted."""

    collection_id: str | None = None
    source_id: str | None = None
    artifact_id: str | None = None
    chat_event_id: str | None = None


@dataclass
class RunUsage:
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    duration_ms: int | None = None

    @property
    def total_tokens(self) -> int | None:
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)


@from_row
def _run(row: Row) -> LlmRun:
    return LlmRun(
        id=row["id"],
        kind=row["kind"],
        provider_id=row["provider_id"],
        model_id=row["model_id"],
        collection_id=row["collection_id"],
        source_id=row["source_id"],
        artifact_id=row["artifact_id"],
        chat_event_id=row["chat_event_id"],
        status=row["status"],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        total_tokens=row["total_tokens"],
        cost_usd=row["cost_usd"],
        duration_ms=row["duration_ms"],
        request_redacted=loads(row["request_redacted_json"], None),
        response_redacted=loads(row["response_redacted_json"], None),
        error=row["error"],
        created_at=required_time(row, "created_at"),
    )


def _dump(value: JsonValue) -> str | None:
    return None if value is None else json.dumps(redact_value(value))


class Runs:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def append(
        self,
        kind: str,
        *,
        provider_id: str | None = None,
        model_id: str | None = None,
        links: RunLinks | None = None,
        usage: RunUsage | None = None,
        status: Literal["ok", "partial", "error"] = "ok",
        request: JsonValue = None,
        response: JsonValue = None,
        error: str | None = None,
    ) -> LlmRun:
        links, usage = links or RunLinks(), usage or RunUsage()
        run_id = new_id("run")
        async with self.db.transaction() as connection:
            await connection.execute(
                "INSERT INTO llm_runs (id, kind, provider_id, model_id, collection_id, "
                "source_id, artifact_id, chat_event_id, status, input_tokens, output_tokens, "
                "total_tokens, cost_usd, duration_ms, request_redacted_json, "
                "response_redacted_json, error, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    kind,
                    provider_id,
                    model_id,
                    links.collection_id,
                    links.source_id,
                    links.artifact_id,
                    links.chat_event_id,
                    status,
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.total_tokens,
                    usage.cost_usd,
                    usage.duration_ms,
                    _dump(request),
                    _dump(response),
                    redact_text(error) if error else None,
                    now_ms(),
                ),
            )
        row = await self.db.fetch_one("SELECT * FROM llm_runs WHERE id = ?", (run_id,))
        assert row is not None
        return _run(row)

    async def get(self, run_id: str) -> LlmRun:
        row = await self.db.fetch_one("SELECT * FROM llm_runs WHERE id = ?", (run_id,))
        if row is None:
            raise NotFoundError(f"no run {run_id!r}; `laika logs list` shows them")
        return _run(row)

    async def list(self, *, collection_id: str | None = None, limit: int = 100) -> list[LlmRun]:
        where, params = ("WHERE collection_id = ?", (collection_id,)) if collection_id else ("", ())
        rows = await self.db.fetch_all(
            f"SELECT * FROM llm_runs {where} ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (*params, limit),
        )
        return [_run(row) for row in rows]
