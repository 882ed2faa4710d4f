"""The Policy Gate as a pure function, over generated rules, calls and contexts: first match
wins; nothing runs without the user while untrusted content is in context; a non-http(s)
URL, a password or card field, and an unconfigured integration are denied whatever the
rules say; one row per tool for the shipped defaults; the user's `policy.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.tools.gate import Session, rule_order
from laika_host.tools.policy import (
    Condition,
    GateContext,
    Proposal,
    Rule,
    decide,
    matches,
    tool_matches,
)
from laika_host.tools.policy_file import PolicyFileError, load_user_rules
from laika_host.tools.policy_rules import DEFAULT_RULES, GUARD_RULES
from laika_host.tools.registry import family
from tool_cases import DEFAULT_DECISIONS, VALID

NAMES = family("llmcp")  # the settings family: tests/test_settings_gate.py
verdicts = st.sampled_from(["allow", "ask", "deny"])
patterns = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(["browser.", "collection.", "source.", "artifact.", "transform.", "x."]),
)
schemes = st.sampled_from(
    ["http", "https", "HTTPS", "javascript", "file", "data", "ftp", "chrome", "", " java\tscript"]
)
urls = st.builds(
    lambda s, h: f"{s}:{'//' if s.strip() else ''}{h}/p",
    schemes,
    st.sampled_from(["example.com", "www.example.com", "evil.test", "127.0.0.1"]),
)
origins = st.sampled_from(["user", "page", "model"])
field_kinds = st.sampled_from(["credential", "payment", "identity", "other"])


@st.composite
def proposals(draw: st.DrawFn) -> Proposal:
    name = draw(st.sampled_from([*NAMES, "shell.exec", "browser.eval"]))
    arguments: dict[str, Any] = dict(VALID.get(name, {}))
    if draw(st.booleans()):
        arguments["url"] = draw(urls)
    if draw(st.booleans()):
        arguments["handleId"] = draw(st.sampled_from(["h1", "h2"]))
    return Proposal(name=name, arguments=arguments)


contexts = st.builds(
    GateContext,
    origin=origins,
    untrusted_context=st.booleans(),
    collection=st.none() | st.sampled_from(["Reading", "col_1"]),
    field_kinds=st.dictionaries(st.sampled_from(["h1", "h2"]), field_kinds, max_size=2),
)


@st.composite
def tool_rules(draw: st.DrawFn) -> list[Rule]:
    """Rules on the tool name only: their matching is plain string logic the test can
    compute by itself."""
    count = draw(st.integers(0, 6))
    return [
        Rule(id=f"r{i}", decision=draw(verdicts), when=Condition(tool=draw(patterns)))
        for i in range(count)
    ]


conditions = st.recursive(
    st.builds(
        Condition,
        tool=st.none() | patterns,
        url_scheme=st.none() | st.lists(st.sampled_from(["http", "https", "file"]), max_size=2),
        url_domain=st.none() | st.lists(st.sampled_from(["example.com", "evil.test"]), max_size=2),
        origin=st.none() | st.lists(origins, max_size=2),
        untrusted_context=st.none() | st.booleans(),
        field_kind=st.none() | st.lists(field_kinds, max_size=2),
    ),
    lambda inner: st.builds(
        Condition,
        any_of=st.none() | st.lists(inner, max_size=3),
        all_of=st.none() | st.lists(inner, max_size=3),
        not_=st.none() | inner,
    ),
    max_leaves=8,
)
any_rules = st.lists(
    st.builds(
        lambda i, v, c: Rule(id=f"u{i}", decision=v, when=c),
        st.integers(0, 99),
        verdicts,
        conditions,
    ),
    max_size=6,
)


def _guarded(proposal: Proposal, context: GateContext) -> bool:
    return any(matches(rule.when, proposal, context) for rule in GUARD_RULES)


@given(proposals(), contexts, tool_rules())
def test_the_first_matching_rule_decides(
    proposal: Proposal, context: GateContext, rules: list[Rule]
) -> None:
    decision = decide(proposal, context, rules)
    if _guarded(proposal, context):
        assert decision.rule_id.startswith("guard.")
        assert decision.decision == "deny"
        return
    first = next((r for r in rules if _string_match(r.when.tool or "", proposal.name)), None)
    if first is None:
        assert decision.rule_id.startswith("default.")
        return
    assert decision.rule_id == first.id
    untrusted = context.untrusted_context or context.origin == "page"
    expected = "ask" if first.decision == "allow" and untrusted else first.decision
    assert decision.decision == expected
    assert decision.forced_ask == (first.decision == "allow" and untrusted)


def _string_match(pattern: str, name: str) -> bool:
    """The oracle: an exact name, or a prefix that ends in a dot."""
    return name.startswith(pattern) if pattern[-1:] == "." else name == pattern


@given(proposals(), contexts, any_rules)
def test_untrusted_content_in_context_never_yields_allow(
    proposal: Proposal, context: GateContext, rules: list[Rule]
) -> None:
    everything = [Rule(id="allow-all", decision="allow"), *rules]
    for untrusted in (
        context.model_copy(update={"untrusted_context": True}),
        context.model_copy(update={"origin": "page"}),
    ):
        for ordered in (rules, everything):
            decision = decide(proposal, untrusted, ordered)
            assert decision.decision != "allow"
    allowed = decide(proposal, context.model_copy(update={"untrusted_context": True}), everything)
    if allowed.rule_id == "allow-all":
        assert allowed.forced_ask
        assert "allow-all" in allowed.reason
        assert "untrusted" in allowed.reason


@given(
    st.sampled_from(["browser.navigate", "browser.open_tab", "source.capture"]),
    urls,
    contexts,
    any_rules,
)
def test_a_url_that_is_not_http_is_always_denied(
    name: str, url: str, context: GateContext, rules: list[Rule]
) -> None:
    proposal = Proposal(name=name, arguments={**VALID[name], "url": url})
    everything = [Rule(id="allow-all", decision="allow"), *rules]
    decision = decide(
        proposal,
        context.model_copy(update={"origin": "user", "untrusted_context": False}),
        everything,
    )
    scheme = url.split(":", 1)[0].replace("\t", "").strip().lower()
    if scheme in ("http", "https"):
        assert decision.rule_id != "guard.url_scheme"
    else:
        assert (decision.decision, decision.rule_id) == ("deny", "guard.url_scheme")


@given(
    st.sampled_from(["browser.click", "browser.type", "browser.select"]),
    st.sampled_from(["credential", "payment", "identity"]),
    any_rules,
)
def test_sensitive_fields_are_denied_even_after_remembered_approvals(
    name: str, kind: Any, rules: list[Rule]
) -> None:
    session = Session()
    for tool in NAMES:
        session.remember(tool, "allow")
    remembered = [Rule(id="remembered.x", decision="allow", when=Condition(tool=name))]
    context = GateContext(origin="user", field_kinds={"h1": kind})
    proposal = Proposal(name=name, arguments={**VALID[name], "handleId": "h1"})
    decision = decide(proposal, context, rule_order(rules, session.rules, remembered))
    assert (decision.decision, decision.rule_id) == ("deny", "guard.sensitive_field")


@given(st.sampled_from(NAMES), st.lists(st.sampled_from(NAMES), max_size=8), contexts)
def test_a_deny_rule_is_not_overridden_by_session_approvals_of_other_tools(
    denied: str, approved: list[str], context: GateContext
) -> None:
    session = Session()
    for tool in approved:
        if tool != denied:
            session.remember(tool, "allow")
    user = [Rule(id="no", decision="deny", when=Condition(tool=denied))]
    proposal = Proposal(name=denied, arguments=VALID[denied])
    decision = decide(proposal, context, rule_order(user, session.rules, []))
    assert decision.decision == "deny"
    assert decision.rule_id in ("no", *(rule.id for rule in GUARD_RULES))


@given(conditions, proposals(), contexts)
@settings(max_examples=200)
def test_combinators_mean_any_all_and_not(
    condition: Condition, proposal: Proposal, context: GateContext
) -> None:
    result = matches(condition, proposal, context)
    if condition.not_ is not None and matches(condition.not_, proposal, context):
        assert not result
    if condition.any_of is not None and not any(
        matches(c, proposal, context) for c in condition.any_of
    ):
        assert not result
    if condition.all_of is not None and not all(
        matches(c, proposal, context) for c in condition.all_of
    ):
        assert not result
    if condition.tool is not None and not tool_matches(condition.tool, proposal.name):
        assert not result


@pytest.mark.parametrize("name", list(DEFAULT_DECISIONS))
def test_the_default_table(name: str) -> None:
    decision = decide(Proposal(name=name, arguments=VALID[name]), GateContext(origin="user"))
    assert decision.decision == DEFAULT_DECISIONS[name], decision
    assert decision.rule_id.startswith(("default.", "guard."))


@pytest.mark.parametrize(
    ("name", "arguments", "context", "expected"),
    [
        (
            "artifact.share",
            {"artifactId": "a", "format": "csv", "target": "file", "filename": "a.csv"},
            {},
            ("ask", "default.share_file"),
        ),
        (
            "integration.invoke",
            VALID["integration.invoke"],
            {"integrations": frozenset({"notes"})},
            ("ask", "default.ask"),
        ),
        (
            "browser.type",
            {"handleId": "h1", "text": "x"},
            {"field_kinds": {"h1": "other"}},
            ("ask", "default.browser_actions"),
        ),
        (
            "browser.type",
            {"handleId": "h1", "text": "x"},
            {"field_kinds": {"h1": "payment"}},
            ("deny", "guard.sensitive_field"),
        ),
        ("shell.exec", {"command": "ls"}, {}, ("deny", "guard.unknown_tool")),
    ],
)
def test_defaults_that_depend_on_the_arguments(
    name: str, arguments: dict[str, Any], context: dict[str, Any], expected: tuple[str, str]
) -> None:
    decision = decide(
        Proposal(name=name, arguments=arguments), GateContext(origin="user", **context)
    )
    assert (decision.decision, decision.rule_id) == expected


def test_shipped_rule_ids_are_unique_and_the_defaults_end_in_a_catch_all() -> None:
    ids = [rule.id for rule in (*GUARD_RULES, *DEFAULT_RULES)]
    assert len(ids) == len(set(ids))
    assert DEFAULT_RULES[-1].when == Condition()


def test_domain_rules_hold_for_subdomains_only(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    rule = {
        "id": "docs",
        "decision": "allow",
        "when": {"tool": "browser.navigate", "url_domain": ["example.com"]},
    }
    path.write_text(json.dumps({"rules": [rule]}))
    rules = load_user_rules(path)
    for url, allowed in [
        ("https://example.com/", True),
        ("https://docs.example.com/a", True),
        ("https://example.com.evil.test/", False),
        ("https://notexample.com/", False),
    ]:
        decision = decide(
            Proposal(name="browser.navigate", arguments={"url": url}),
            GateContext(origin="user"),
            rules,
        )
        assert (decision.decision == "allow") == allowed, url


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("{not json", "is not JSON"),
        ('{"rules": [{"id": "a", "decision": "maybe"}]}', "rules.0.decision"),
        (
            '{"rules": [{"id": "a", "decision": "allow", "when": {"toool": "x"}}]}',
            "rules.0.when.toool",
        ),
        ('{"rules": [{"id": "guard.mine", "decision": "allow"}]}', "reserved prefix"),
        (
            '{"rules": [{"id": "a", "decision": "allow"}, {"id": "a", "decision": "deny"}]}',
            "given twice",
        ),
        ('{"rules": {}}', "rules"),
        ("[" * 5000, "is not JSON"),
    ],
)
def test_a_bad_policy_file_is_refused_naming_it(tmp_path: Path, content: str, named: str) -> None:
    path = tmp_path / "policy.json"
    path.write_text(content)
    with pytest.raises(PolicyFileError) as caught:
        load_user_rules(path)
    assert str(path) in str(caught.value)
    assert named in str(caught.value)
    assert "remove it" in str(caught.value)


def test_no_policy_file_means_no_user_rules(tmp_path: Path) -> None:
    assert load_user_rules(tmp_path / "policy.json") == []
