"""Decline (spec 004: the tools are an exhaustive whitelist): an action no tool can do is
declined with the list of what can be done, and nothing runs; an action a tool covers
becomes that tool's proposal, through the gate; a question stays a grounded answer.

Offline (the deterministic matcher) and with a recording model server (the prompt's rule)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.agent import intent, prompts
from laika_host.agent.intent import Decline, Propose, decline_answer, read_intent
from laika_host.tools.chat_runner import offered_tools
from laika_host.tools.registry import REGISTRY
from tool_chat import chat_bodies, model_server, provider, reply, tool_rows

from native_client import ARTICLE
from support import run_laika

OFFERED = offered_tools(extension=False)
POLITE = st.sampled_from(["", "please ", "Laika, ", "can you ", "could you please ",
                          "I want you to ", "go ahead and ", "ok, please "])  # fmt: skip
OBJECTS = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=60
)
QUESTION_WORDS = st.sampled_from(
    ["What", "Why", "How", "Who", "When", "Where", "Which", "Does", "Is", "Are", "Summarize"]
)


def _home() -> Path:
    return Path(os.environ["LAIKA_HOME"])


@given(POLITE, st.sampled_from(sorted(intent.DECLINED_VERBS)), OBJECTS)
def test_an_action_no_tool_covers_is_declined(polite: str, verb: str, rest: str) -> None:
    found = read_intent(f"{polite}{verb} {rest}", OFFERED)
    assert isinstance(found, Decline)
    assert found.action.split()[0] == verb


@given(QUESTION_WORDS, OBJECTS)
def test_a_question_is_never_declined(word: str, rest: str) -> None:
    assert not isinstance(read_intent(f"{word} {rest}", OFFERED), Decline)


@given(st.text(max_size=300))
def test_any_text_gets_a_reading_or_none_and_proposals_are_valid_calls(text: str) -> None:
    found = read_intent(text, OFFERED)
    if isinstance(found, Propose):
        assert found.name in OFFERED
        REGISTRY[found.name].arguments.model_validate(found.arguments)


@pytest.mark.parametrize(
    ("question", "name", "arguments"),
    [
        ("calculate 2+2", "app.calculate", {"expression": "2+2"}),
        ("Please, what is (3 + 4) × 2?", "app.calculate", {"expression": "(3 + 4) × 2"}),
        ('create a collection named "Moon phases"', "collection.create", {"title": "Moon phases"}),
        ("Make a new collection called Tides.", "collection.create", {"title": "Tides"}),
        ("list the transform types", "transform.list_types", {}),
    ],
)
def test_an_action_a_tool_covers_is_that_tools_proposal(
    question: str, name: str, arguments: dict[str, str]
) -> None:
    assert read_intent(question, OFFERED) == Propose(name, arguments)
    assert read_intent(question, []) is None  # not offered: not proposed


def test_reading_is_bounded_and_linear() -> None:
    def prepare(size: int) -> object:
        text = "please " * size + "calculate " + "1+(" * size + "?" * size
        return lambda: read_intent(text, OFFERED)

    assert_linear(prepare, 2_000, 200_000, bound=20)  # the question is cut first: flat
    started = time.monotonic()
    read_intent("calculate " + "1+" * 5_000_000, OFFERED)
    assert time.monotonic() - started < 2


def test_the_decline_lists_what_can_be_done() -> None:
    text = decline_answer(Decline("delete"), OFFERED)
    assert text.startswith("I can't do that")
    for name in OFFERED:
        assert f"- {REGISTRY[name].description} (`{name}`)" in text


def test_the_prompt_tells_the_model_to_decline_with_the_list() -> None:
    rule = prompts.tool_rule(OFFERED)
    assert prompts.DECLINE_RULE in rule
    schema = prompts.response_format(OFFERED)["json_schema"]["schema"]
    assert schema["properties"]["tool_calls"]["items"]["properties"]["name"]["enum"] == OFFERED
    assert "tool_calls" not in prompts.response_format()["json_schema"]["schema"]["properties"]


@pytest.mark.slow  # > 3 s with the cores busy
def test_offline_declines_run_nothing_and_offline_actions_go_through_the_gate() -> None:
    saved = run_laika("capture", "-", "--url", "https://tides.test/t", "-c", "Coast",
                      stdin=ARTICLE.encode())  # fmt: skip
    assert saved.returncode == 0, saved.stderr
    declined = json.loads(
        run_laika("ask", "Please delete my browser history", "-c", "Coast", "--json").stdout
    )
    assert declined["status"] == "unsupported"
    assert declined["answer_markdown"].startswith("I can't do that")
    assert "Evaluate an arithmetic expression exactly." in declined["answer_markdown"]
    assert declined["tool_calls"] == []
    assert declined["warnings"] == []
    for question in ("Send an email to bob@example.com", "buy two tickets to Lisbon"):
        answer = json.loads(run_laika("ask", question, "-c", "Coast", "--json").stdout)
        assert answer["status"] == "unsupported"
    assert tool_rows(_home()) == []  # nothing was even proposed
    grounded = json.loads(
        run_laika("ask", "Why does high tide come twice a day?", "-c", "Coast", "--json").stdout
    )
    assert grounded["status"] == "ok"
    assert grounded["citations"]
    calculated = json.loads(run_laika("ask", "calculate 2+2", "-c", "Coast", "--json").stdout)
    [call] = calculated["tool_calls"]
    assert (call["status"], call["result"]["value"]) == ("executed", "4")
    assert "**4**" in calculated["answer_markdown"]
    created = json.loads(
        run_laika("ask", "create a collection named Moon", "-c", "Coast", "--json").stdout
    )
    assert created["tool_calls"][0]["status"] == "pending"  # a write asks, even offline
    rows = tool_rows(_home())
    assert [(r["tool"], r["origin"], r["untrusted_context"]) for r in rows] == [
        ("app.calculate", "user", 0),
        ("collection.create", "user", 0),
    ]


@pytest.mark.slow
def test_with_a_model_the_prompt_asks_for_the_decline_and_nothing_runs() -> None:
    saved = run_laika("capture", "-", "--url", "https://tides.test/t", "-c", "Coast",
                      stdin=ARTICLE.encode())  # fmt: skip
    assert saved.returncode == 0, saved.stderr
    text = "I can't delete your browser history. I can search your sources, calculate, ..."
    server = model_server([reply(text)])
    provider(server, _home())
    try:
        done = run_laika("ask", "Delete my browser history", "-c", "Coast", "--json",
                         "--provider", "rec")  # fmt: skip
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["answer_markdown"] == text
    assert answer["tool_calls"] == []
    [body] = chat_bodies(server)
    system = body["messages"][0]["content"]
    assert prompts.DECLINE_RULE in system
    for name in OFFERED:
        assert f"- {name}: {REGISTRY[name].description}" in system
    assert tool_rows(_home()) == []
