"""The tool-call audit trail on a real store: each proposal, decision and result round-trips;
no secret in an argument or a result reaches the file; a huge result is kept bounded; a call
is decided once; remembered decisions are kept and revoked."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from laika_host.store import ConflictError, NotFoundError, Store, open_store
from laika_host.store.migrations import migration_names
from laika_host.store.tool_calls import MAX_STORED_JSON, Proposed
from laika_host.tools import gate
from laika_host.tools.policy import GateContext, Proposal
from secret_corpus import PLANTED

T = TypeVar("T")


def on_store(db: Path, work: Callable[[Store], Awaitable[T]]) -> T:
    async def main() -> T:
        async with open_store(db) as store:
            return await work(store)

    return asyncio.run(main())


def _proposed(arguments: Any, decision: Any = "ask") -> Proposed:
    return Proposed(
        tool="browser.type",
        arguments=arguments,
        origin="page",
        untrusted_context=True,
        decision=decision,
        rule_id="default.browser_actions",
        reason="it acts in your browser tab",
    )


def test_a_call_round_trips_through_its_states(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"

    async def work(store: Store) -> None:
        pending = await store.tool_calls.record(_proposed({"handleId": "h1", "text": "hi"}))
        assert (pending.status, pending.decided_at, pending.executed_at) == ("pending", None, None)
        assert pending.arguments == {"handleId": "h1", "text": "hi"}
        assert (pending.origin, pending.untrusted_context) == ("page", True)
        approved = await store.tool_calls.resolve(pending.id, "approved")
        assert approved.status == "approved"
        assert approved.decided_at is not None
        with pytest.raises(ConflictError, match="not pending"):
            await store.tool_calls.resolve(pending.id, "denied")
        done = await store.tool_calls.finish(pending.id, "executed", {"typed": True})
        assert (done.status, done.result) == ("executed", {"typed": True})
        assert done.executed_at is not None
        with pytest.raises(ConflictError):
            await store.tool_calls.finish(pending.id, "failed", None)
        assert [c.id for c in await store.tool_calls.list(status="executed")] == [pending.id]
        denied = await store.tool_calls.record(_proposed({}, "deny"))
        assert denied.status == "denied"
        assert denied.decided_at is not None
        with pytest.raises(NotFoundError):
            await store.tool_calls.get("call_missing")

    on_store(db, work)
    assert "m006_tool_calls" in migration_names()


def test_no_secret_in_arguments_or_results_reaches_the_file(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"

    async def work(store: Store) -> None:
        for planted in PLANTED:
            arguments = {"handleId": "h1", "text": planted.text, "token": planted.secret}
            call = await store.tool_calls.record(_proposed(arguments, "allow"))
            await store.tool_calls.finish(call.id, "executed", {"echo": planted.text})

    on_store(db, work)
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = connection.execute("SELECT arguments_json, result_json FROM tool_calls").fetchall()
    assert len(rows) == len(PLANTED)
    stored = "\n".join(f"{a}\n{r}" for a, r in rows)
    leaked = [p.kind for p in PLANTED if p.secret in stored]
    assert leaked == []
    raw = db.read_bytes()
    assert [p.kind for p in PLANTED if p.secret.encode() in raw] == []


def test_a_huge_result_is_kept_bounded_and_redacted(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    secret = PLANTED[0]

    async def work(store: Store) -> Any:
        call = await store.tool_calls.record(_proposed({}, "allow"))
        body = secret.text + " word" * 100_000
        return await store.tool_calls.finish(call.id, "executed", {"markdown": body})

    done = on_store(db, work)
    kept = json.dumps(done.result)
    assert len(kept) <= MAX_STORED_JSON
    assert done.result["truncated"] is True
    assert secret.secret not in kept


def test_remembered_decisions_are_rules_until_forgotten(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"

    async def work(store: Store) -> None:
        rule = await store.tool_rules.remember("collection.create", "allow")
        again = await store.tool_rules.remember("collection.create", "deny")
        assert [r.id for r in await gate.list_remembered(store)] == [again.id]
        rules = await gate.remembered_rules(store)
        assert [(r.id, r.decision) for r in rules] == [(f"remembered.{again.id}", "deny")]
        proposal = Proposal(name="collection.create", arguments={"title": "X"})
        outcome = await gate.propose(store, proposal, GateContext(origin="user"))
        assert (outcome.call.status, outcome.call.rule_id) == ("denied", f"remembered.{again.id}")
        await gate.forget(store, again.id)
        assert await gate.list_remembered(store) == []
        with pytest.raises(NotFoundError):
            await gate.forget(store, rule.id)
        asked = await gate.propose(store, proposal, GateContext(origin="user"))
        assert asked.call.status == "pending"

    on_store(db, work)
