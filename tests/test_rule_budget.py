"""Event rules multiply (#24): the depth limit bounds a chain, not its breadth. One user
operation's rules run at most `ACTION_BUDGET` actions in all; past it their actions wait for
approval (the gate's `allow` becomes `ask`), past as many more they are skipped, and one
warning names the rules cut and how to change them."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.config.schema import EventAction, EventCondition, EventRule
from laika_host.events.budget import ACTION_BUDGET, operation
from laika_host.events.engine import matches
from laika_host.events.event import MAX_DEPTH, Event
from laika_host.service.collections import create_collection
from laika_host.store import open_store

from support import run_laika


def _rule_calls(db: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT tool, arguments_json, decision, status FROM tool_calls "
            "WHERE origin = 'rule' ORDER BY rowid"
        ).fetchall()


def test_a_rule_of_nine_collection_creates_stays_within_the_budget() -> None:
    """The reproduction: 9 actions a rule, one `collections create`, was 820 collections."""
    actions = [
        arg for i in range(1, 10) for arg in ("--do", f"collection.create title=$event.title a{i}")
    ]
    done = run_laika("rules", "add", "fan", "--on", "collection.created", *actions)
    assert done.returncode == 0, done.stderr

    done = run_laika("collections", "create", "Start")

    assert done.returncode == 0, done.stderr
    listed = json.loads(run_laika("collections", "list", "--json").stdout)["collections"]
    assert len(listed) == 1 + ACTION_BUDGET
    calls = _rule_calls(Path(os.environ["LAIKA_HOME"]) / "laika.db")
    ran = [c for c in calls if c[3] in ("executed", "failed")]
    waiting = [c for c in calls if c[3] == "pending"]
    assert len(ran) == ACTION_BUDGET
    assert {(c[2], c[3]) for c in ran} == {("allow", "executed")}
    assert 0 < len(waiting) <= ACTION_BUDGET
    assert {c[2] for c in waiting} == {"ask"}
    # the user is told, once, which rule was cut, what waits and what to do
    warning = [line for line in done.stderr.splitlines() if "stopped after" in line]
    assert len(warning) == 1, done.stderr
    assert f"event rules stopped after {ACTION_BUDGET} actions" in warning[0]
    assert "'fan' (" in warning[0]
    assert f"{len(waiting)} of them wait for your approval" in warning[0]
    assert "laika rules delete ID" in warning[0]
    assert "laika approvals list" in warning[0]
    # and the depth limit is warned of once, the other runs it stopped counted in the report
    warnings = [line for line in done.stderr.splitlines() if line.startswith("laika: warning:")]
    assert len(warnings) == 2, done.stderr
    assert "more runs stopped at the depth limit, as warned above: 'fan'" in warning[0]

    # what waits is the user's to run: approving one runs it (a new operation, a new budget)
    pending = json.loads(run_laika("approvals", "list", "--json").stdout)
    first = pending["pending"][0]
    assert "action budget" in first["reason"]
    approved = run_laika("approvals", "approve", first["id"])
    assert approved.returncode == 0, approved.stderr


# --- the property: any rule set, any chain shape --------------------------------------------

TOKENS = ("x", "y", "z")
"""Letters no collection id holds (a UUID is hex), so `contains` reads the titles only."""


@st.composite
def rule_sets(draw: st.DrawFn) -> list[EventRule]:
    """Rules on `collection.created`: each action creates a collection (whose event sets the
    rules off again, one level deeper) or computes (sets nothing off); a rule may hold only
    for titles holding a token, and a created title may add one, so chains take any shape."""
    rules = []
    for number in range(draw(st.integers(0, 5))):
        actions = []
        for index in range(draw(st.integers(1, 12))):
            if draw(st.booleans()):
                token = draw(st.sampled_from(("", *TOKENS)))
                title = f"$event.title r{number}a{index}{token}"
                actions.append(EventAction(tool="collection.create", params={"title": title}))
            else:
                actions.append(EventAction(tool="app.calculate", params={"expression": "1+1"}))
        contains = draw(st.sampled_from((None, *TOKENS)))
        rules.append(
            EventRule(
                id=f"r{number}",
                trigger="collection.created",
                conditions=EventCondition(contains=contains),
                actions=actions,
                enabled=draw(st.booleans()) or number == 0,
            )
        )
    return rules


def planned(rules: list[EventRule], limit: int) -> list[tuple[str, Any]]:
    """The actions the rules run without a budget, in order (depth first, as the engine),
    up to `limit + 1` of them (enough to tell whether the budget cuts)."""
    out: list[tuple[str, Any]] = []

    def fire(title: str, depth: int) -> None:
        payload = {"collection_id": "col_0", "title": title, "collection": title}
        event = Event("collection.created", payload, ("r",) * depth)
        for rule in rules:
            if not rule.enabled or not matches(rule, event) or depth >= MAX_DEPTH:
                continue
            for action in rule.actions:
                if len(out) > limit:
                    return
                params = dict(action.params)
                if action.tool == "collection.create":
                    params["title"] = str(params["title"]).replace("$event.title", title)
                out.append((action.tool, params))
                if action.tool == "collection.create":
                    fire(str(params["title"]), depth + 1)

    fire("root", 0)
    return out


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rule_sets(), st.integers(1, 15))
def test_no_operation_runs_more_actions_than_its_budget(
    tmp_path: Path, rules: list[EventRule], limit: int
) -> None:
    db = tmp_path / f"budget-{os.urandom(4).hex()}.db"
    plan = planned(rules, limit)

    async def main() -> None:
        async with open_store(db) as store:
            with operation(limit) as budget:
                await create_collection(store, "root")
            assert bool(budget.cut) == (len(plan) > limit)

    with mock.patch(
        "laika_host.events.bus.rules_for",
        lambda name: [r for r in rules if r.enabled and r.trigger == name],
    ):
        asyncio.run(main())

    calls = _rule_calls(db)
    ran = [
        (tool, json.loads(arguments))
        for tool, arguments, _, status in calls
        if status in ("executed", "failed")
    ]
    # never more than the budget; under it, exactly what ran before, in the same order
    assert ran == plan[:limit]
    assert all(status == "executed" for *_, status in calls if status != "pending")
    waiting = [c for c in calls if c[3] == "pending"]
    assert len(waiting) <= limit
    if len(plan) <= limit:
        assert waiting == []


def test_an_operation_is_shared_inside_and_never_outlives_itself() -> None:
    """A rule's action emitting an event spends from the same budget; a task that outlives
    its operation (a job the request queued) starts its own."""

    async def main() -> None:
        with operation(3) as outer:
            with operation() as inner:
                assert inner is outer
            leftover = asyncio.get_running_loop().create_future()

            async def later() -> None:
                await leftover
                with operation() as own:
                    assert own is not outer
                    assert own.limit == ACTION_BUDGET

            task = asyncio.create_task(later())
        leftover.set_result(None)
        await task

    asyncio.run(main())
