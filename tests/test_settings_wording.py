"""The settings in words (`settings.wording`): every call, result and setting reads as a
sentence with no tool id and no JSON, whatever arguments a model proposes; a decline offers
the closest tools in plain words."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from laika_host.config.schema import Registry
from laika_host.settings import wording
from laika_host.settings.catalog import SETTINGS_TOOLS

CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("settings.set_capture_limit", {"max_chars": 50000}, "Set the maximum capture length to 50,000 characters"),
    ("settings.set_default_collection", {"collection": "Research"}, "Send new captures to the collection \u201cResearch\u201d"),
    ("settings.set_theme", {"theme": "dark"}, "Switch the theme to dark"),
    ("settings.set_theme", {"theme": "system"}, "Follow your system's theme"),
    ("settings.set_citations", {"show": False}, "Hide the citations under answers"),
    ("settings.set_default_provider", {"provider": "offline"}, "Answer with the offline runtime (no model) by default"),
    ("settings.set_redaction", {"add_secret_names": ["sid", "ssid"]}, "Hide the values named sid and ssid as secrets"),
    ("settings.set_preference", {"key": "language", "value": "French"}, "Remember that your language is French"),
    ("settings.forget_preference", {"key": "language"}, "Forget your preference language"),
    ("settings.show", {"path": "ui.theme"}, "Show the theme"),
    ("policy.allow_domain", {"domain": "example.org", "tools": ["source.capture"]}, "Let the model capture pages on example.org without asking"),
    ("policy.forget_decision", {"rule_id": "allow-example.org"}, "Forget the decision or rule allow-example.org"),
    ("rules.delete", {"id": "weekly"}, "Delete the event rule weekly"),
    ("rules.list", {}, "List your event rules"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "arguments", "said"), CALLS)
def test_each_call_reads_as_what_it_does(tool: str, arguments: dict[str, Any], said: str) -> None:
    SETTINGS_TOOLS[tool].arguments.model_validate(arguments)
    assert wording.describe_call(tool, arguments) == said


def test_every_tool_has_words_and_an_ability() -> None:
    assert set(wording.ABILITIES) == set(SETTINGS_TOOLS)
    assert {tool for tool, _, _ in CALLS} | {"rules.create"} == set(SETTINGS_TOOLS)


@given(
    st.sampled_from(sorted(SETTINGS_TOOLS)),
    st.dictionaries(
        st.text(max_size=12),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=5), inner, max_size=3)
            ),
            max_leaves=6,
        ),
        max_size=4,
    )
    | st.none()
    | st.integers(),
)
def test_any_arguments_give_a_sentence_and_never_raise(tool: str, arguments: Any) -> None:
    said = wording.describe_call(tool, arguments)
    assert said
    assert said[0].isupper() or not said[0].isalpha()
    assert tool not in said
    summary = wording.summarize(tool, arguments, {"change": None})
    assert isinstance(summary, str)
    assert summary


def test_the_default_settings_read_one_sentence_a_line() -> None:
    lines = wording.describe_settings(Registry().model_dump(mode="json"))
    assert lines == [
        "No default model provider is set: answers come from the first one configured, else "
        "the offline runtime.",
        "Model providers: none yet (`laika models add` adds one).",
        "Captured pages keep at most 24,000 characters.",
        "New captures go to the collection \u201cInbox\u201d.",
        "The theme follows your system.",
        "Citations are shown.",
        "No extra names are hidden as secrets (the built-in rules still apply).",
        "No site is allowed without asking.",
        "You have no event rules.",
        "No preferences saved.",
    ]
    assert wording.describe_settings(24000, "capture.max_chars") == [
        "Captured pages keep at most 24,000 characters."
    ]
    assert wording.describe_settings({"a": 1}, "user.preferences") == ["Your preferences: a is 1."]
    assert wording.describe_settings(["x"], "no.such") == ["No.such: x."]


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=10),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=10,
    ),
    st.sampled_from([None, "capture", "ui.theme", "policy", "events", "user", "x.y"]),
)
def test_any_value_reads_as_lines_without_raising(value: Any, path: str | None) -> None:
    lines = wording.describe_settings(value, path)
    assert lines
    assert all(isinstance(line, str) and line for line in lines)


def test_a_decline_offers_the_closest_in_words() -> None:
    assert (
        wording.offer(
            ["settings.set_capture_limit", "settings.set_default_collection", "settings.set_theme"]
        )
        == "I can change the maximum capture length, the default collection, or the theme."
    )
    assert wording.offer(["settings.set_theme", "settings.show"]) == (
        "I can change the theme or show your settings."
    )
    assert wording.offer([]).startswith("I can change the maximum capture length")
    assert wording.abilities(["settings.set_citations"]) == [
        "Show or hide the citations in answers"
    ]
