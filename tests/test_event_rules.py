"""Event rules (issue #17 item 5): trigger -> conditions -> actions through the Policy Gate,
end to end with the real CLI, store and registry, and the engine's parts as properties."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.config.schema import EventCondition, EventRule
from laika_host.events.check import RuleCheckError
from laika_host.events.conditions import holds
from laika_host.events.rule_tools import TOOLS, RuleCreateArguments
from laika_host.events.substitute import substitute
from laika_host.service import rules as service
from laika_host.store import open_store
from laika_host.tools.registry import REGISTRY

from html_server import serve
from strategies import json_values
from support import run_laika

PAGE = """<html><head><title>Rust ownership explained</title></head><body><article>
<h1>Rust ownership explained</h1>
<p>Ownership is a set of rules that govern how a Rust program manages memory. Every value
has a single owner, and the value is dropped when the owner goes out of scope.</p>
<p>Borrowing lets code use a value without taking ownership. References must always be
valid, and the borrow checker enforces this at compile time.</p>
<p>Moves transfer ownership between variables. After a move, the original variable can no
longer be used, which prevents double frees.</p></article></body></html>"""

RESEARCH_ACTIONS = (
    "--do",
    'collection.add_sources collectionId=Research sources=[{"type": "url", "url": "$event.url"}]',
    "--do",
    "transform.run collectionId=Research type=key-takeaways",
)


def _db() -> Path:
    return Path(os.environ["LAIKA_HOME"]) / "laika.db"


def _calls() -> list[tuple[str, str, str, str]]:
    with contextlib.closing(sqlite3.connect(_db())) as connection, connection:
        return connection.execute(
            "SELECT tool, origin, decision, status FROM tool_calls ORDER BY created_at"
        ).fetchall()


def _ok(*args: str) -> str:
    done = run_laika(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _capture(tmp_path: Path, url: str, collection: str) -> dict[str, Any]:
    page = tmp_path / "page.html"
    page.write_text(PAGE, encoding="utf-8")
    saved: dict[str, Any] = json.loads(
        _ok("capture", str(page), "--url", url, "-c", collection, "--json")
    )
    return saved


def test_a_page_from_example_org_into_inbox_lands_in_research_with_key_takeaways(
    tmp_path: Path,
) -> None:
    _ok("collections", "create", "Research")
    _ok("rules", "add", "research", "--on", "source.captured", "--if", "domain=example.org",
        "--if", "collection=Inbox", *RESEARCH_ACTIONS)  # fmt: skip

    _capture(tmp_path, "https://www.example.org/rust", "Inbox")

    research = json.loads(_ok("sources", "list", "-c", "Research", "--json"))
    assert [s["url"] for s in research["sources"]] == ["https://www.example.org/rust"]
    assert research["sources"][0]["capture_status"] == "captured"
    artifacts = json.loads(_ok("artifacts", "list", "--json"))["artifacts"]
    assert [(a["type"], a["status"]) for a in artifacts] == [("key-takeaways", "completed")]
    assert _calls() == [
        ("collection.add_sources", "rule", "allow", "executed"),
        ("transform.run", "rule", "allow", "executed"),
    ]

    _capture(tmp_path, "https://example.com/rust", "Inbox")  # another domain
    _capture(tmp_path, "https://example.org/rust", "Reading")  # another collection
    assert len(_calls()) == 2


def test_a_self_triggering_rule_stops_at_the_depth_limit_with_a_logged_reason() -> None:
    _ok("rules", "add", "echo", "--on", "collection.created",
        "--do", "collection.create title=$event.title x")  # fmt: skip
    done = run_laika("collections", "create", "Start")
    assert done.returncode == 0, done.stderr
    assert "event rule 'echo' not run" in done.stderr
    assert "depth limit (3)" in done.stderr
    assert "echo -> echo -> echo" in done.stderr
    titles = {c["title"] for c in json.loads(_ok("collections", "list", "--json"))["collections"]}
    assert titles == {"Start", "Start x", "Start x x", "Start x x x"}
    assert _calls() == [("collection.create", "rule", "allow", "executed")] * 3


def test_rules_test_prints_the_plan_and_runs_nothing() -> None:
    _ok("rules", "add", "research", "--on", "source.captured", "--if", "domain=example.org",
        *RESEARCH_ACTIONS)  # fmt: skip
    event = {"source_id": "src_1", "url": "https://example.org/a", "domain": "example.org"}
    shown = _ok("rules", "test", "research", "--event", json.dumps(event))
    assert "rule research: matches the event" in shown
    assert '"url": "https://example.org/a"' in shown
    assert shown.count("gate: allow (default.rule_writes") == 2
    assert "nothing was run" in shown
    plan = json.loads(_ok("rules", "test", "research", "--event", '{"domain": "x.org"}', "--json"))
    assert plan["matched"] is False
    assert plan["actions"] == []
    assert _calls() == []
    assert json.loads(_ok("collections", "list", "--json"))["collections"] == []


def test_a_failing_action_never_fails_the_capture(tmp_path: Path) -> None:
    _ok("rules", "add", "broken", "--on", "source.captured",
        "--do", "transform.run collectionId=Nowhere type=key-takeaways",
        "--do", "collection.create title=never")  # fmt: skip
    saved = _capture(tmp_path, "https://example.org/rust", "Inbox")
    assert saved["outcome"] == "new"
    assert _calls() == [("transform.run", "rule", "allow", "failed")]  # the rule stopped there
    inbox = json.loads(_ok("sources", "list", "-c", "Inbox", "--json"))["sources"]
    assert [s["id"] for s in inbox] == [saved["source"]["id"]]


def test_the_rule_tools_write_only_events_rules_and_name_the_tool_in_history() -> None:
    create, delete, listing = (next(t for t in TOOLS if t.name == n) for n in
                               ("rules.create", "rules.delete", "rules.list"))  # fmt: skip
    assert create.allowed_paths == delete.allowed_paths == ("events.rules",)
    assert listing.read_only

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        arguments = RuleCreateArguments.model_validate(
            {
                "trigger": "artifact.completed",
                "conditions": {"any": [{"collection": ["Inbox"]}, {"contains": "takeaways"}]},
                "actions": [{"tool": "collection.create", "params": {"title": "$event.type"}}],
            }
        )
        async with open_store() as store:
            made = await create.run(arguments, "model", store)
            listed = await listing.run(listing.arguments(), "model", store)
            gone = await delete.run(
                delete.arguments.model_validate({"id": made["rule"]["id"]}), "cli", store
            )
        return made, listed, gone

    made, listed, gone = asyncio.run(scenario())
    assert made["rule"]["created_by"] == "model"
    assert made["change"]["paths"] == ["events.rules"]
    assert made["change"]["message"].startswith("rules.create: events.rules (asked by model)")
    assert [rule["id"] for rule in listed["rules"]] == [made["rule"]["id"]]
    assert gone["change"]["message"].startswith("rules.delete: events.rules (asked by cli)")
    assert service.list_rules() == []


tool_names = st.text(min_size=1, max_size=40).filter(lambda name: name not in REGISTRY)
param_keys = st.from_regex(r"[a-z][A-Za-z]{0,15}", fullmatch=True).filter(
    lambda key: key not in ("collectionId", "type", "config")
)


@settings(max_examples=30, deadline=None)
@given(tool=tool_names, key=param_keys)
def test_a_rule_that_could_not_run_is_refused_at_add_naming_the_field(tool: str, key: str) -> None:
    unknown = {"trigger": "source.captured", "actions": [{"tool": tool, "params": {}}]}
    with pytest.raises(RuleCheckError, match=r"actions\[0\]\.tool: unknown tool"):
        service.add(unknown, who="cli")
    extra = {"collectionId": "Research", "type": "key-takeaways", key: "$event.url"}
    bad = {"trigger": "source.captured", "actions": [{"tool": "transform.run", "params": extra}]}
    with pytest.raises(RuleCheckError, match=rf"actions\[0\]\.params: .*{key}"):
        service.add(bad, who="cli")
    assert service.list_rules() == []


texts = st.text(max_size=60)
names = st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=3)
leaves = st.builds(
    EventCondition,
    domain=st.none() | names,
    collection=st.none() | names,
    contains=st.none() | st.text(min_size=1, max_size=12),
    fields=st.none() | names,
    signals=st.none() | names,
)
conditions = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.builds(EventCondition, all_of=st.lists(inner, max_size=3)),
        st.builds(EventCondition, any_of=st.lists(inner, max_size=3)),
        st.builds(EventCondition, not_=inner),
    ),
    max_leaves=8,
)
payloads = st.dictionaries(
    st.sampled_from(["domain", "collection", "collection_id", "title", "signals", "chars"])
    | st.text(max_size=8),
    json_values,
    max_size=8,
)


@settings(max_examples=200)
@given(condition=conditions, payload=payloads)
def test_conditions_over_any_event_never_raise(
    condition: EventCondition, payload: dict[str, Any]
) -> None:
    result = holds(condition, payload)
    assert isinstance(result, bool)
    if condition.not_ is not None and condition == EventCondition(not_=condition.not_):
        assert result is not holds(condition.not_, payload)


@given(domain=st.from_regex(r"[a-z]{1,10}(\.[a-z]{1,10}){0,2}", fullmatch=True), sub=texts)
def test_domain_holds_for_the_domain_and_its_subdomains_only(domain: str, sub: str) -> None:
    wanted = EventCondition(domain=[domain.upper()])
    assert holds(wanted, {"domain": domain})
    assert holds(wanted, {"domain": f"www.{domain}"})
    assert not holds(wanted, {"domain": f"not{domain}"})


def test_contains_is_linear_in_the_text_it_reads() -> None:
    needle = "a" * 150 + "b"
    condition = EventCondition(contains=needle)

    def prepare(size: int) -> Any:
        payload = {"title": "a" * size, "question": "A" * size}
        return lambda: holds(condition, payload)

    assert_linear(prepare, 20_000, 160_000, bound=24)


@given(values=st.dictionaries(st.sampled_from(["a", "b", "c"]), st.text(max_size=30) | json_values))
def test_substitution_copies_values_and_never_reads_them_again(values: dict[str, Any]) -> None:
    payload = {"a": "$event.b", "b": "$event.a", **values}
    for name, value in payload.items():
        assert substitute(f"$event.{name}", payload) == value
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        assert substitute(f"<$event.{name}>", payload) == f"<{text}>"
        nested = substitute({"k": [f"$event.{name}", 1, None]}, payload)
        assert nested == {"k": [value, 1, None]}


def test_the_rule_schema_keeps_conditions_as_written() -> None:
    rule = EventRule.model_validate(
        {
            "id": "r",
            "trigger": "chat.answered",
            "conditions": {"not": {"any": [{"contains": "x", "fields": ["question"]}]}},
            "actions": [{"tool": "search", "params": {"query": "$event.question"}}],
        }
    )
    dumped = rule.model_dump(mode="json")
    assert dumped["conditions"] == {"not": {"any": [{"contains": "x", "fields": ["question"]}]}}
    assert EventRule.model_validate(dumped) == rule


def test_a_queued_capture_run_later_fires_rules_and_follows_the_capture_limit() -> None:
    """`laika jobs run` (the queue, as the host runs it) stores with the user's capture bound,
    then fires `source.captured`; a settings action the rule runs is on record as the
    rule's (who asked: rule)."""
    long_page = PAGE.replace(
        "</article>", "<p>" + "Lifetimes name scopes. " * 400 + "</p></article>"
    )
    _ok("config", "set", "capture.max_chars", "1500")
    _ok(
        "rules", "add", "remember-title", "--on", "source.captured",
        "--do", "settings.set_preference key=last_capture value=$event.title",
    )  # fmt: skip
    with serve(lambda path: long_page if path == "/rust" else None) as server:
        queued = json.loads(
            _ok(
                "sources",
                "add",
                f"{server}/rust",
                "--queue-only",
                "--allow-private-address",
                "--json",
            )
        )  # the job may fetch from this machine: the user allowed it for this capture
        assert queued["job"]["status"] == "queued"
        assert json.loads(_ok("config", "get", "user.preferences")) == {}  # nothing ran yet
        ran = json.loads(_ok("jobs", "run", "--json"))
    assert len(ran["succeeded"]) == 1
    source_id = queued["source"]["id"]
    shown = json.loads(_ok("sources", "show", source_id, "--json"))
    assert 0 < len(shown["markdown"]) <= 1500 + 200  # the bound, plus the truncation note
    preference = json.loads(_ok("config", "get", "user.preferences.last_capture"))
    assert preference == "Rust ownership explained"
    [latest] = json.loads(_ok("config", "history", "user.preferences", "--json"))["commits"][:1]
    assert "settings.set_preference" in latest["message"]
    assert "rule" in latest["message"]
