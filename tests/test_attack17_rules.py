"""Event rule conditions under attack (issue #17 item 5). A rule nesting 20 `any` children 8
deep was accepted (3.6 MB, 160,000 `contains`) and each leaf case-folded the event's text
again: 4 s for one event with 10,000-character fields. Now a rule has at most
MAX_CONDITION_NODES parts, the text is folded once per evaluation, and the result is the
same as reading the definition leaf by leaf."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from laika_host.config.schema import (
    MAX_CONDITION_DEPTH,
    MAX_CONDITION_NODES,
    EventCondition,
    EventRule,
)
from laika_host.events.conditions import MAX_FIELD_CHARS, holds

WORDS = ["a", "Ab", "ß", "SS", "x.org", "İ", "café"]
texts = st.text(
    st.sampled_from(["a", "b", "A", "ß", "S", "s", "İ", "i", "̇", " ", "."]), max_size=12
)
leaves = st.fixed_dictionaries(
    {},
    optional={
        "contains": st.sampled_from(WORDS),
        "fields": st.lists(st.sampled_from(["title", "url", "question"]), max_size=2),
        "domain": st.lists(st.sampled_from(["x.org", "Y.ORG."]), min_size=1, max_size=2),
        "signals": st.lists(st.sampled_from(["paywall", "Login_Wall"]), min_size=1, max_size=2),
    },
)
conditions = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.builds(lambda items: {"all": items}, st.lists(children, max_size=4)),
        st.builds(lambda items: {"any": items}, st.lists(children, max_size=4)),
        st.builds(lambda item: {"not": item}, children),
    ),
    max_leaves=40,
)
payloads = st.fixed_dictionaries(
    {
        "title": texts,
        "url": texts,
        "question": st.one_of(texts, st.integers()),
        "domain": st.sampled_from(["x.org", "www.x.org", "y.org", "", "x.org.evil"]),
        "signals": st.lists(st.sampled_from(["paywall", "login_wall", "other"]), max_size=2),
    }
)


def _reference(condition: dict[str, Any], payload: Mapping[str, Any]) -> bool:
    """The documented meaning, read leaf by leaf with no sharing between leaves."""
    if "contains" in condition:
        fields = condition.get("fields")
        found = [
            value[:MAX_FIELD_CHARS].casefold()
            for key, value in payload.items()
            if isinstance(value, str) and (fields is None or key in fields)
        ]
        if not any(condition["contains"].casefold() in text for text in found):
            return False
    if "domain" in condition:
        host = str(payload.get("domain", "")).lower().rstrip(".")
        targets = [item.lower().strip(".") for item in condition["domain"]]
        if not host or not any(host == t or host.endswith("." + t) for t in targets):
            return False
    if "signals" in condition:
        present = {item.casefold() for item in payload["signals"]}
        if not any(item.casefold() in present for item in condition["signals"]):
            return False
    if "all" in condition and not all(_reference(c, payload) for c in condition["all"]):
        return False
    if "any" in condition and not any(_reference(c, payload) for c in condition["any"]):
        return False
    return "not" not in condition or not _reference(condition["not"], payload)


def _size(condition: dict[str, Any]) -> int:
    children = [*condition.get("all", []), *condition.get("any", [])]
    children += [condition["not"]] if "not" in condition else []
    return 1 + sum(_size(child) for child in children)


def _rule(condition: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "r",
        "trigger": "source.captured",
        "conditions": condition,
        "actions": [{"tool": "collection.create"}],
    }


@settings(max_examples=300, deadline=None)
@given(conditions, payloads)
def test_a_condition_holds_exactly_as_defined(
    condition: dict[str, Any], payload: dict[str, Any]
) -> None:
    parsed = EventCondition.model_validate(condition)
    assert holds(parsed, payload) == _reference(condition, payload)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(1, 20), st.sampled_from(["all", "any", "not"]))
def test_a_rule_of_more_parts_than_the_bound_is_refused_naming_it(
    depth: int, width: int, key: str
) -> None:
    condition: dict[str, Any] = {"contains": "needle"}
    for _ in range(depth - 1):
        if key != "not" and _size(condition) * width > 5000:  # as JSON: a few hundred KB
            width = 1
        condition = {key: condition} if key == "not" else {key: [condition] * width}
    try:
        rule = EventRule.model_validate(_rule(condition))
    except ValidationError as refused:
        message = str(refused)
        assert _size(condition) > MAX_CONDITION_NODES or depth > MAX_CONDITION_DEPTH
        assert (
            f"at most {MAX_CONDITION_NODES} parts" in message
            or f"at most {MAX_CONDITION_DEPTH} levels" in message
        )
    else:
        assert _size(condition) <= MAX_CONDITION_NODES
        assert rule.conditions.size() == _size(condition)


@pytest.mark.slow  # 500 rules of the largest size, one event
def test_the_largest_rules_cost_little_per_event() -> None:
    """500 rules (the registry's most) of MAX_CONDITION_NODES `contains` that never match,
    on an event whose text fields are 10,000 characters: well under 2 s (4 s was one rule)."""
    leaf = {"contains": "needle-never-there"}
    condition = {"any": [{"any": [leaf] * 8}] * 11}
    assert _size(condition) <= MAX_CONDITION_NODES
    rule = EventRule.model_validate(_rule(condition))
    payload = {
        "title": "Ab" * 5000,
        "url": "https://x.org/" + "q" * 10_000,
        "question": "é" * 10_000,
    }
    started = time.perf_counter()
    assert not any(holds(rule.conditions, payload) for _ in range(500))
    assert time.perf_counter() - started < 2.0
