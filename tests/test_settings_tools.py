"""The curated settings tools on a real registry and store: whatever arguments they are given
(valid or not), they change only the settings their tool declares; a handler that tries to
write elsewhere is refused in code; unknown argument keys are refused at the gate's boundary
naming the key; and the gate's defaults for the family hold (reads allow, writes ask, a
model's `policy.*` proposal always asks, even after "always allow")."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from laika_host.config import dotted, registry
from laika_host.config.registry import READ_ONLY, OutsideAclError
from laika_host.errors import LaikaError
from laika_host.llm.config import ProviderConfig, save_providers
from laika_host.paths import data_dir
from laika_host.settings.catalog import SETTINGS_TOOLS
from laika_host.settings.writes import writer
from laika_host.store import Store, open_store
from laika_host.tools import gate
from laika_host.tools import registry as tool_registry
from laika_host.tools.policy import GateContext, Proposal, decide
from laika_host.tools.policy_rules import SETTINGS_PREFIXES, SETTINGS_READ_TOOLS

T = TypeVar("T")
NAMES = sorted(SETTINGS_TOOLS)
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=12)
KEYS = st.sampled_from(["language", "speed", "compact"]) | WORDS | st.just("bad.key")
DOMAINS = st.from_regex(r"[a-z]{1,8}\.(org|com|example)", fullmatch=True)
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)
VALID: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "settings.set_default_provider": st.fixed_dictionaries(
        {"provider": st.sampled_from(["offline", "local-llama", "cloud", "nope"])}
    ),
    "settings.set_capture_limit": st.fixed_dictionaries(
        {"max_chars": st.integers(1000, 10_000_000) | st.integers(0, 20_000_000)}
    ),
    "settings.set_default_collection": st.fixed_dictionaries(
        {"collection": st.text(min_size=0, max_size=30)}
    ),
    "settings.set_redaction": st.fixed_dictionaries(
        {},
        optional={
            "add_secret_names": st.lists(WORDS, max_size=3),
            "remove_secret_names": st.lists(WORDS, max_size=3),
        },
    ),
    "settings.set_theme": st.fixed_dictionaries(
        {"theme": st.sampled_from(["system", "light", "dark", "neon"])}
    ),
    "settings.set_citations": st.fixed_dictionaries({"show": st.booleans()}),
    "settings.set_preference": st.fixed_dictionaries(
        {"key": KEYS, "value": st.text(max_size=20) | st.integers(-5, 5) | st.booleans()}
    ),
    "settings.forget_preference": st.fixed_dictionaries({"key": KEYS}),
    "settings.show": st.fixed_dictionaries(
        {}, optional={"path": st.sampled_from(["ui", "capture.max_chars", "nope.x"])}
    ),
    "policy.allow_domain": st.fixed_dictionaries(
        {"domain": DOMAINS | st.sampled_from(["not a domain", "x", "a..b"])},
        optional={"tools": st.lists(st.sampled_from(["browser.navigate", "source.capture", "rm"]))},
    ),
    "policy.forget_decision": st.fixed_dictionaries(
        {"rule_id": DOMAINS.map(lambda d: "allow-" + d) | st.sampled_from(["rule_missing"])}
    ),
    "rules.create": st.fixed_dictionaries(
        {
            "trigger": st.sampled_from(["source.captured", "collection.created", "nope"]),
            "actions": st.lists(
                st.fixed_dictionaries(
                    {
                        "tool": st.sampled_from(["collection.create", "settings.set_theme", "rm"]),
                        "params": st.sampled_from(
                            [{"title": "$event.title"}, {"theme": "dark"}, {"x": 1}]
                        ),
                    }
                ),
                max_size=2,
            ),
        },
        optional={
            "id": st.sampled_from(["r1", "bad id", "research"]),
            "conditions": st.sampled_from([{}, {"domain": ["example.org"]}, {"nope": 1}]),
        },
    ),
    "rules.delete": st.fixed_dictionaries({"id": st.sampled_from(["r1", "research", ""])}),
    "rules.list": st.just({}),
}
"""Per tool: arguments around its schema (some valid, some out of range or unknown)."""
INTRUDERS = st.dictionaries(
    st.sampled_from(["path", "policy", "rules", "value", "paths", "ui", "events"]),
    ANY_JSON,
    min_size=1,
    max_size=2,
)


def on_store(work: Callable[[Store], Awaitable[T]]) -> T:
    async def main() -> T:
        async with open_store(data_dir() / "laika.db") as store:
            return await work(store)

    return asyncio.run(main())


def _providers() -> None:
    local = ProviderConfig(
        id="local-llama", kind="openai_compatible", model="m", base_url="http://127.0.0.1:9/v1"
    )
    cloud = ProviderConfig(id="cloud", kind="openai", model="m")
    save_providers([local, cloud])


def test_every_settings_tool_is_gated_by_the_family_defaults() -> None:
    for name, tool in SETTINGS_TOOLS.items():
        assert any(name.startswith(prefix) for prefix in SETTINGS_PREFIXES)
        assert (name in SETTINGS_READ_TOOLS) == tool.read_only
        for origin in ("user", "model"):
            verdict = decide(Proposal(name=name), GateContext(origin=origin)).decision
            assert verdict == ("allow" if tool.read_only else "ask"), (name, origin)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(NAMES),
    data=st.data(),
)
def test_a_tool_changes_only_its_declared_paths(name: str, data: st.DataObject) -> None:
    """Valid or invalid arguments, a run either fails with a named error or changes settings
    within the tool's allowed paths only (the registry's own diff says so)."""
    _providers()
    tool = SETTINGS_TOOLS[name]
    intruded = VALID[name].map(lambda a: {**a, **data.draw(INTRUDERS)})
    arguments = data.draw(VALID[name] | intruded)
    before = registry.document()

    async def run(store: Store) -> None:
        try:
            validated = tool_registry.validate(name, arguments)
            await tool.run(validated, "model", store)
        except LaikaError:
            pass

    on_store(run)
    changed = [p for p in dotted.changed_paths(before, registry.document()) if p not in READ_ONLY]
    event("changed settings" if changed else "changed nothing")
    for path in changed:
        assert any(path == a or path.startswith(a + ".") for a in tool.allowed_paths), (
            name,
            arguments,
            path,
        )
    if tool.read_only:
        assert changed == []


def _inside(tool_name: str, path: str) -> bool:
    allowed = SETTINGS_TOOLS[tool_name].allowed_paths
    return any(path == a or path.startswith(a + ".") for a in allowed)


OUTSIDE = [
    (name, path)
    for name in NAMES
    if not SETTINGS_TOOLS[name].read_only
    for path in (
        "policy.rules",
        "providers.default",
        "user.preferences.x",
        "ui.theme",
        "capture.allow_private_addresses",
    )
    if not _inside(name, path)
]


APPLIED: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "settings.set_default_provider": ({"provider": "local-llama"}, {"providers.default": "local-llama"}),
    "settings.set_capture_limit": ({"max_chars": 5000}, {"capture.max_chars": 5000}),
    "settings.set_default_collection": ({"collection": "Research"}, {"capture.default_collection": "Research"}),
    "settings.set_redaction": ({"add_secret_names": ["session_ref"]}, {"redaction.extra_secret_names": ["session_ref"]}),
    "settings.set_theme": ({"theme": "dark"}, {"ui.theme": "dark"}),
    "settings.set_citations": ({"show": False}, {"ui.show_citations": False}),
    "settings.set_preference": ({"key": "language", "value": "French"}, {"user.preferences.language": "French"}),
    "settings.forget_preference": ({"key": "language"}, {"user.preferences.language": None}),
    "policy.allow_domain": ({"domain": "example.org"}, {"policy.rules": 1}),
    "policy.forget_decision": ({"rule_id": "allow-example.org"}, {"policy.rules": 0}),
    "rules.create": ({"id": "r1", "trigger": "collection.created", "actions": [{"tool": "settings.set_theme", "params": {"theme": "dark"}}]}, {"events.rules": 1}),
    "rules.delete": ({"id": "r1"}, {"events.rules": 0}),
}  # fmt: skip
"""A valid call of each writing tool, in an order where each one changes something, and
what it sets (None: removed; for `policy.rules` and `events.rules`, how many are left)."""


def test_each_writing_tool_applies_a_valid_call_as_one_commit() -> None:
    _providers()
    assert set(APPLIED) == {n for n in NAMES if not SETTINGS_TOOLS[n].read_only}
    for name, (arguments, expected) in APPLIED.items():
        tool = SETTINGS_TOOLS[name]
        before = registry.document()
        result = on_store(lambda store, t=tool, a=arguments: t.run(t.arguments(**a), "cli", store))
        after = registry.document()
        assert result["change"]["paths"] == sorted(expected), name
        assert after["version"] == before["version"] + 1
        for path, value in expected.items():
            found = dotted.get(after, path, None)
            counted = path in ("policy.rules", "events.rules")
            assert (len(found) if counted else found) == value, (name, path)


@pytest.mark.parametrize(("name", "outside"), OUTSIDE)
def test_a_handler_writing_outside_its_acl_is_refused(name: str, outside: str) -> None:
    """The handler of tool `name` made to write another path (even one whose value would
    not change): OutsideAclError naming both, nothing saved."""
    tool = SETTINGS_TOOLS[name]
    rogue = writer(
        name,
        tool.allowed_paths,
        lambda _arguments, current: {outside: dotted.get(current, outside, [])},
    )
    before = registry.document()
    with pytest.raises(OutsideAclError) as caught:
        on_store(lambda store: rogue(None, "model", store))
    assert outside in str(caught.value)
    assert name in str(caught.value)
    assert registry.document() == before


def test_no_settings_tool_can_let_a_model_fetch_private_addresses() -> None:
    """`capture.allow_private_addresses` is the user's alone (`laika config set`, the panel):
    no curated tool declares it or a parent of it, so a model's proposal cannot turn it on."""
    assert [name for name in NAMES if _inside(name, "capture.allow_private_addresses")] == []


@pytest.mark.parametrize(
    ("domain", "said"),
    [
        ("127.0.0.1", "a loopback address (127.0.0.1)"),
        ("127.1", "a loopback address (127.0.0.1)"),
        ("0x7f.0.0.1", "a loopback address (127.0.0.1)"),
        ("0177.0.0.1", "a loopback address (127.0.0.1)"),
        ("2130706433", "a loopback address (127.0.0.1)"),
        ("localhost", "a name for this machine"),
        ("admin.localhost", "a name for this machine"),
        ("10.0.0.1.", "a private address (10.0.0.1)"),
        ("192.168.1.1", "a private address (192.168.1.1)"),
        ("169.254.169.254", "a link-local address (169.254.169.254)"),
        ("100.64.0.1", "a shared (carrier-grade NAT) address"),
        ("8.8.8.8", "is an address, not a domain"),
    ],
)
def test_allow_domain_refuses_an_address_or_this_machine(domain: str, said: str) -> None:
    """A model could otherwise allow itself `127.0.0.1` (issue #24): the domain rule takes
    names only, and says why an address on the user's machine or network never passes."""
    allow = SETTINGS_TOOLS["policy.allow_domain"]
    with pytest.raises(ValueError, match="not a domain") as refused:
        allow.arguments.model_validate({"domain": domain})
    assert said in str(refused.value)
    proposal = Proposal(name="policy.allow_domain", arguments={"domain": domain})
    before = registry.document()
    outcome = on_store(lambda store: gate.propose(store, proposal, GateContext(origin="model")))
    assert outcome.call.status == "denied"
    assert registry.document() == before


def test_extra_keys_are_refused_at_the_boundary_naming_the_key() -> None:
    proposal = Proposal(
        name="settings.set_theme", arguments={"theme": "dark", "path": "policy.rules"}
    )
    before = registry.document()
    outcome = on_store(lambda store: gate.propose(store, proposal, GateContext(origin="model")))
    assert outcome.call.status == "denied"
    assert outcome.call.rule_id == "boundary.invalid"
    assert "path" in outcome.call.reason
    assert registry.document() == before


def test_a_models_policy_change_asks_even_when_always_allowed() -> None:
    """`policy.*` from a model: the guard asks before any remembered decision is read."""
    proposal = Proposal(name="policy.allow_domain", arguments={"domain": "example.org"})

    async def work(store: Store) -> tuple[Any, Any]:
        await store.tool_rules.remember("policy.allow_domain", "allow")
        by_model = await gate.propose(store, proposal, GateContext(origin="model"))
        by_user = await gate.propose(store, proposal, GateContext(origin="user"))
        return by_model, by_user

    by_model, by_user = on_store(work)
    assert (by_model.call.status, by_model.call.rule_id) == ("pending", "guard.policy_write")
    assert by_user.call.status == "executed"  # the user's remembered choice holds for them
    rules = registry.load().policy.rules
    assert [rule.id for rule in rules] == ["allow-example.org"]
    assert rules[0].decision == "allow"
    assert rules[0].when.url_domain == ["example.org"]


def test_forget_decision_removes_a_remembered_decision_or_a_rule() -> None:
    async def work(store: Store) -> tuple[Any, Any, list[Any]]:
        remembered = await store.tool_rules.remember("collection.create", "allow")
        allow = SETTINGS_TOOLS["policy.allow_domain"]
        forget = SETTINGS_TOOLS["policy.forget_decision"]
        await allow.run(allow.arguments.model_validate({"domain": "example.org"}), "cli", store)
        first = await forget.run(
            forget.arguments.model_validate({"rule_id": remembered.id}), "cli", store
        )
        second = await forget.run(
            forget.arguments.model_validate({"rule_id": "allow-example.org"}), "cli", store
        )
        return first, second, await store.tool_rules.list()

    first, second, left = on_store(work)
    assert first["forgotten"]["tool"] == "collection.create"
    assert second["change"]["paths"] == ["policy.rules"]
    assert left == []
    assert registry.load().policy.rules == []


def test_a_change_names_the_tool_and_who_asked_in_the_history() -> None:
    tool = SETTINGS_TOOLS["settings.set_redaction"]
    arguments = tool.arguments.model_validate({"add_secret_names": ["session_id", "Session_ID"]})
    result = on_store(lambda store: tool.run(arguments, "panel", store))
    assert result["change"]["message"] == (
        "settings.set_redaction: redaction.extra_secret_names (asked by panel)"
    )
    assert registry.load().redaction.extra_secret_names == ["session_id"]
    again = on_store(lambda store: tool.run(arguments, "panel", store))
    assert again["change"] is None  # nothing to change: no commit
