"""The offline intent matcher: phrasings (several per tool, with capitals and punctuation)
map to the right tool and arguments; requests no tool serves are declined; any text at all
is answered without an error, in time linear in its length; and every intent it gives is a
settings tool whose arguments that tool accepts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.config.schema import Registry
from laika_host.defaults import CAPTURE_MAX_CHARS
from laika_host.settings import intent
from laika_host.settings.catalog import SETTINGS_TOOLS
from laika_host.settings.intent import Decline, Intent, ProviderFacts, match

PROVIDERS = [
    ProviderFacts("cloud-ai", "openai", local=False),
    ProviderFacts("llama-cpp", "openai_compatible", local=True),
    ProviderFacts("ollama-box", "ollama", local=True),
]
PROVIDER = "settings.set_default_provider"
RULE_IDS = ["research-inbox", "weekly"]
TYPES = ["faq", "glossary", "key-takeaways", "summary"]
RESEARCH = {"collectionId": "Research", "sources": [{"type": "url", "url": "$event.url"}]}
TABLE: list[tuple[str, str, dict[str, Any]]] = [
    ("use the local model for answers", PROVIDER, {"provider": "llama-cpp"}),
    ("Use the LOCAL model, please!", PROVIDER, {"provider": "llama-cpp"}),
    ("answer offline", PROVIDER, {"provider": "offline"}),
    ("Make ollama-box the default.", PROVIDER, {"provider": "ollama-box"}),
    ("switch to the cloud model", PROVIDER, {"provider": "cloud-ai"}),
    ("use the ollama model", PROVIDER, {"provider": "ollama-box"}),
    ("limit captures to 50,000 characters", "settings.set_capture_limit", {"max_chars": 50000}),
    ("Set the capture limit to 30k.", "settings.set_capture_limit", {"max_chars": 30000}),
    ("keep at most 40000 characters of each page", "settings.set_capture_limit", {"max_chars": 40000}),
    ("set the default collection to Research", "settings.set_default_collection", {"collection": "Research"}),
    ("Save captures to Reading List by default.", "settings.set_default_collection", {"collection": "Reading List"}),
    ("use Research as the default collection", "settings.set_default_collection", {"collection": "Research"}),
    ("make “Deep Dives” my default collection", "settings.set_default_collection", {"collection": "Deep Dives"}),
    ("treat session_id as a secret", "settings.set_redaction", {"add_secret_names": ["session_id"]}),
    ("Redact the X-Auth-Token header!", "settings.set_redaction", {"add_secret_names": ["X-Auth-Token"]}),
    ("stop treating session_id as a secret", "settings.set_redaction", {"remove_secret_names": ["session_id"]}),
    ("don't redact tracking_id any more", "settings.set_redaction", {"remove_secret_names": ["tracking_id"]}),
    ("use dark mode", "settings.set_theme", {"theme": "dark"}),
    ("DARK THEME PLEASE", "settings.set_theme", {"theme": "dark"}),
    ("switch to the light theme.", "settings.set_theme", {"theme": "light"}),
    ("follow the system theme", "settings.set_theme", {"theme": "system"}),
    ("hide citations", "settings.set_citations", {"show": False}),
    ("Show citations!", "settings.set_citations", {"show": True}),
    ("turn off citations", "settings.set_citations", {"show": False}),
    ("set my preference language to French", "settings.set_preference", {"key": "language", "value": "French"}),
    ("remember that my reading_speed is 300", "settings.set_preference", {"key": "reading_speed", "value": 300}),
    ("Remember my compact_view is true", "settings.set_preference", {"key": "compact_view", "value": True}),
    ("forget my preference language", "settings.forget_preference", {"key": "language"}),
    ("Forget my language preference.", "settings.forget_preference", {"key": "language"}),
    ("show my settings", "settings.show", {}),
    ("What is my capture limit?", "settings.show", {"path": "capture.max_chars"}),
    ("what theme am I using", "settings.show", {"path": "ui.theme"}),
    ("Which settings do I have?", "settings.show", {}),
    ("allow example.org", "policy.allow_domain", {"domain": "example.org"}),
    ("Always allow captures from example.org.", "policy.allow_domain", {"domain": "example.org", "tools": ["source.capture", "source.refresh"]}),
    ("trust https://news.example.com/today", "policy.allow_domain", {"domain": "news.example.com"}),
    ("forget decision rule_0a1b2c", "policy.forget_decision", {"rule_id": "rule_0a1b2c"}),
    ("Revoke the rule allow-example.org", "policy.forget_decision", {"rule_id": "allow-example.org"}),
    ("remove the policy rule allow-example.org", "policy.forget_decision", {"rule_id": "allow-example.org"}),
    (
        "When a page from example.org is captured into Inbox, add it to Research and run key-takeaways.",
        "rules.create",
        {
            "trigger": "source.captured",
            "conditions": {"domain": ["example.org"], "collection": ["Inbox"]},
            "actions": [
                {"tool": "collection.add_sources", "params": RESEARCH},
                {"tool": "transform.run", "params": {"collectionId": "Research", "type": "key-takeaways"}},
            ],
        },
    ),
    (
        "whenever I save a page containing 'tides' into my Ocean notes, then make a glossary on Tides",
        "rules.create",
        {
            "trigger": "source.captured",
            "conditions": {"collection": ["Ocean notes", "my Ocean notes"], "contains": "tides"},
            "actions": [{"tool": "transform.run", "params": {"collectionId": "Tides", "type": "glossary"}}],
        },
    ),
    (
        "When a new collection is created, run summary",
        "rules.create",
        {
            "trigger": "collection.created",
            "actions": [{"tool": "transform.run", "params": {"collectionId": "$event.collection_id", "type": "summary"}}],
        },
    ),
    ("delete the rule research-inbox", "rules.delete", {"id": "research-inbox"}),
    ("Remove weekly", "rules.delete", {"id": "weekly"}),
    ("show my event rules", "rules.list", {}),
    ("Which automations do I have?", "rules.list", {}),
    ("remove example.org from trusted sites", "policy.forget_decision", {"rule_id": "allow-example.org"}),
    ("stop allowing example.org", "policy.forget_decision", {"rule_id": "allow-example.org"}),
    ("set the capture limit back to the default", "settings.set_capture_limit", {"max_chars": CAPTURE_MAX_CHARS}),
    ("offline mode", PROVIDER, {"provider": "offline"}),
    ("set max chars to fifty thousand", "settings.set_capture_limit", {"max_chars": 50000}),
    ("I hate dark mode", "settings.set_theme", {"theme": "light"}),
    ("use the local model instead of the cloud", PROVIDER, {"provider": "llama-cpp"}),
    ("don't use a model, answer offline", PROVIDER, {"provider": "offline"}),
]  # fmt: skip
ASKED = [
    "change theme to dark and max chars to 50000",  # two changes: which first?
    "set default collection to Research and use dark mode",
    "citations are annoying",  # shown or hidden?
    "change the theme",
    "set max chars",
    "set it to 50000",
    "I don't want answers from the cloud",  # what is not wanted is no choice
    "don't use cloud-ai",
    "don't save captures to Research",
    "don't limit captures to 50000",
    "no longer save captures to Inbox, use Research",
]
DECLINED = [
    "disable the policy gate",
    "Turn off the approvals, please",
    "remove the policy",
    "stop asking for approval",
    "delete all my data",
    "send my key to https://evil.example",
    "upload my sources to example.org",
    "what a lovely day",
    "make me a sandwich",
    "when a page is captured, do a dance",  # a rule half understood is no rule
    "when a page is captured, run nonsense-type",
    "when an artifact is completed, add it to Research",  # only a capture has a page to add
    "delete the rule that does not exist",
    "",
]


@pytest.mark.parametrize(("text", "tool", "arguments"), TABLE)
def test_each_phrasing_maps_to_its_tool_and_arguments(
    text: str, tool: str, arguments: dict[str, Any]
) -> None:
    assert match(text, PROVIDERS, rule_ids=RULE_IDS, transform_types=TYPES) == Intent(
        tool, arguments
    )
    SETTINGS_TOOLS[tool].arguments.model_validate(arguments)  # the tool takes them


def test_the_table_covers_every_settings_tool_several_times() -> None:
    counts = {name: sum(row[1] == name for row in TABLE) for name in SETTINGS_TOOLS}
    assert len(TABLE) >= 25
    assert min(counts.values()) >= 2, counts


@pytest.mark.parametrize("text", DECLINED)
def test_what_no_tool_serves_is_declined(text: str) -> None:
    found = match(text, PROVIDERS, rule_ids=RULE_IDS, transform_types=TYPES)
    assert isinstance(found, Decline), found
    assert found.reason


@pytest.mark.parametrize("text", ASKED)
def test_what_it_cannot_tell_is_asked_back(text: str) -> None:
    found = match(text, PROVIDERS, rule_ids=RULE_IDS, transform_types=TYPES)
    assert isinstance(found, Decline), found
    assert found.asks, found


@pytest.mark.parametrize(
    ("text", "suggested"),
    [
        ("set the font size to 18", "settings.set_capture_limit"),
        ("make the text bigger", "settings.set_theme"),
        ("enable notifications", "settings.set_capture_limit"),
        ("use gpt-5 for answers", "settings.set_default_provider"),
    ],
)
def test_a_decline_suggests_the_closest_three(text: str, suggested: str) -> None:
    found = match(text, PROVIDERS, rule_ids=RULE_IDS, transform_types=TYPES)
    assert isinstance(found, Decline), found
    assert not found.asks
    assert len(found.suggestions) == 3
    assert suggested in found.suggestions
    assert all(name in SETTINGS_TOOLS for name in found.suggestions)


def test_no_local_provider_is_a_decline_naming_the_fix() -> None:
    found = match("use the local model for answers", [ProviderFacts("c", "openai", False)])
    assert isinstance(found, Decline)
    assert "laika models add" in found.reason
    kind = match("use ollama", [ProviderFacts("c", "openai", False)])
    assert isinstance(kind, Decline)
    assert kind.reason == "no ollama provider is configured: add one with `laika models add`"


def test_a_request_over_the_bound_is_declined_unread() -> None:
    found = match("use dark mode " * intent.MAX_TEXT, PROVIDERS)
    assert isinstance(found, Decline)
    assert "longer than" in found.reason


TEXT = st.text(max_size=400) | st.lists(
    st.sampled_from(
        [*(word for row in TABLE for word in row[0].split()), "1,000", "k", "://", "..", "’"]
    ),
    max_size=40,
).map(" ".join)


@settings(max_examples=400)
@given(text=TEXT)
def test_any_text_gives_a_settings_tool_or_a_decline(text: str) -> None:
    found = match(text, PROVIDERS, rule_ids=RULE_IDS, transform_types=TYPES)
    if isinstance(found, Decline):
        assert found.reason
        return
    assert found.tool in SETTINGS_TOOLS
    assert isinstance(found.arguments, dict)


ADVERSARIAL = [
    "allow ",
    "a.",
    "1,",
    "preference ",
    "remember my x is ",
    "redact secret_",
    " collection to ",
    "make ",
    "forget rule_1 ",
    "x" * 50 + " ",
    "https://a.b/",
]


@pytest.mark.parametrize("unit", ADVERSARIAL)
def test_the_matcher_is_linear_in_the_text(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the length bound lifted, 10x the text costs well under 100x (quadratic)."""
    monkeypatch.setattr(intent, "MAX_TEXT", 10**8)

    def prepare(size: int) -> Any:
        text = "use " + unit * (size // len(unit)) + " default collection"
        return lambda: match(text, PROVIDERS, rule_ids=RULE_IDS, transform_types=TYPES)

    assert_linear(prepare, 20_000, 200_000, bound=30)


def _paths(value: Any, prefix: str = "") -> list[str]:
    """Every dotted path of a registry document, read independently of the matcher."""
    if not isinstance(value, dict):
        return []
    found = []
    for key, item in value.items():
        path = f"{prefix}.{key}" if prefix else key
        found += [path, *_paths(item, path)]
    return found


@pytest.mark.parametrize(
    "path", [p for p in _paths(Registry().model_dump(mode="json")) if "." in p]
)
@pytest.mark.parametrize("template", ["allow {p}", "set theme dark and also {p} allow all"])
def test_a_settings_path_is_never_taken_for_a_domain(path: str, template: str) -> None:
    found = match(template.format(p=path))
    assert not (isinstance(found, Intent) and found.tool == "policy.allow_domain"), found
