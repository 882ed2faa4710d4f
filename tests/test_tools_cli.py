"""`laika tools call` and `laika approvals` as a user runs them (real subprocesses, a real
store): an allowed call runs, a write waits for approval (exit 3, its id printed) and runs
once approved, a denied one runs nothing (exit 4), every step is on record."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from laika_host.store import open_store
from laika_host.tools.policy_file import POLICY_FILE

from support import run_laika


def _json(*args: str) -> tuple[int, Any]:
    done = run_laika(*args, "--json")
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else done.stderr


def _calls() -> list[Any]:
    async def main() -> list[Any]:
        async with open_store() as store:
            return [c.to_json() for c in await store.tool_calls.list()]

    return asyncio.run(main())


def test_calculate_is_allowed_and_runs() -> None:
    pytest.importorskip("laika_host.tools.calculate")
    status, outcome = _json("tools", "call", "app.calculate", '{"expression":"2+2"}')
    assert status == 0, outcome
    assert outcome["result"]["value"] == "4"
    call = outcome["tool_call"]
    assert (call["decision"], call["rule_id"], call["status"]) == (
        "allow",
        "default.read_only",
        "executed",
    )


def test_a_write_waits_for_approval_then_runs() -> None:
    done = run_laika("tools", "call", "collection.create", '{"title":"Xylophones"}')
    assert done.returncode == 3, done.stderr
    approval_id = done.stdout.split("laika approvals approve ")[1].split()[0]
    assert approval_id.startswith("call_")
    status, pending = _json("approvals", "list")
    assert status == 0
    assert [p["id"] for p in pending["pending"]] == [approval_id]
    status, collections = _json("collections", "list")
    assert "Xylophones" not in [c["title"] for c in collections["collections"]]
    approved = run_laika("approvals", "approve", approval_id)
    assert approved.returncode == 0, approved.stderr
    status, collections = _json("collections", "list")
    assert "Xylophones" in [c["title"] for c in collections["collections"]]
    again = run_laika("approvals", "approve", approval_id)
    assert again.returncode == 1
    assert "not pending" in again.stderr
    [call] = _calls()
    assert (call["status"], call["rule_id"]) == ("executed", "default.writes")
    assert call["result"]["collection"]["title"] == "Xylophones"


def test_a_denied_approval_runs_nothing() -> None:
    done = run_laika("tools", "call", "collection.create", '{"title":"Never"}')
    approval_id = done.stdout.split("laika approvals approve ")[1].split()[0]
    denied = run_laika("approvals", "deny", approval_id, "--remember", "always")
    assert denied.returncode == 4
    _, collections = _json("collections", "list")
    assert "Never" not in [c["title"] for c in collections["collections"]]
    again = run_laika("tools", "call", "collection.create", '{"title":"Never"}')
    assert again.returncode == 4
    assert "remembered." in again.stderr
    _status, rules = _json("approvals", "rules")
    [rule] = rules["remembered"]
    assert run_laika("approvals", "forget", rule["id"]).returncode == 0
    assert run_laika("tools", "call", "collection.create", '{"title":"Never"}').returncode == 3


@pytest.mark.parametrize(
    ("name", "arguments", "named"),
    [
        ("shell.exec", '{"command": "ls"}', "unknown tool 'shell.exec'"),
        ("search", '{"query": "x", "extra": 1}', "extra"),
        ("browser.navigate", '{"url": "javascript:alert(1)"}', "http(s)"),
        (
            "integration.invoke",
            '{"integration": "n", "operation": "o", "payload": {}}',
            "no integration",
        ),
    ],
)
def test_refused_calls_run_nothing_and_are_recorded(name: str, arguments: str, named: str) -> None:
    done = run_laika("tools", "call", name, arguments)
    assert done.returncode == 4, done.stdout + done.stderr
    assert named in done.stderr
    [call] = _calls()
    assert (call["tool"], call["status"], call["decision"]) == (name, "denied", "deny")


def test_a_browser_tool_is_approved_for_the_extension() -> None:
    done = run_laika("tools", "call", "browser.back")
    approval_id = done.stdout.split("laika approvals approve ")[1].split()[0]
    status, outcome = _json("approvals", "approve", approval_id)
    assert status == 0
    assert outcome["forward_to_extension"] is True
    assert outcome["tool_call"]["status"] == "approved"


def test_a_user_rule_in_policy_json_decides() -> None:
    """policy.json is migrated into the settings registry once; from then on the registry's
    `policy.rules` decide, and a hand-edited registry with a bad rule denies every call."""
    home = Path(os.environ["LAIKA_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    rule = {"id": "mine", "decision": "allow", "when": {"tool": "collection.create"}}
    (home / POLICY_FILE).write_text(json.dumps({"rules": [rule]}))
    status, outcome = _json("tools", "call", "collection.create", '{"title":"Auto"}')
    assert status == 0, outcome
    assert outcome["tool_call"]["rule_id"] == "mine"
    registry = home / "config" / "registry.json"
    document = json.loads(registry.read_text())
    assert document["policy"]["rules"] == [rule]
    document["policy"]["rules"] = [{"id": "mine"}]
    registry.write_text(json.dumps(document))
    done = run_laika("tools", "call", "search", '{"query": "x"}')
    assert done.returncode == 2
    assert str(registry) in done.stderr
    assert "policy.rules.0.decision" in done.stderr
    refused = _calls()[0]
    assert (refused["tool"], refused["status"], refused["rule_id"]) == (
        "search",
        "denied",
        "boundary.policy_file",
    )


def test_arguments_that_are_not_json_are_refused() -> None:
    done = run_laika("tools", "call", "search", "{query}")
    assert done.returncode == 2
    assert "laika:" in done.stderr
