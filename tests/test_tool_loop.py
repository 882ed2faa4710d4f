"""The chat's tool loop on a real store with a recording model server, and `laika ask` with
tools: approvals on a terminal or left pending, browser tools refused without the extension,
the round and per-reply limits, `--no-tools`."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from laika_host.agent import tool_loop
from laika_host.agent.flows import Answer
from laika_host.capture import capture_html
from laika_host.service.ask import AskOptions, ask
from laika_host.service.models import ProviderChoice
from laika_host.store import open_store
from laika_host.tools.chat_runner import BROWSER_ONLY, ChatRunner, handle_kinds, offered_tools
from tool_chat import chat_bodies, model_server, provider, reply, tool_results, tool_rows

from native_client import ARTICLE
from support import run_laika

CALC = {"name": "app.calculate", "arguments": {"expression": "2+2*3"}}


def _home() -> Path:
    return Path(os.environ["LAIKA_HOME"])


def _ask(question: str, confirm: Any = None, *, tools: bool = True) -> Answer:
    async def main() -> Answer:
        async with open_store(_home() / "laika.db") as store:
            await store.sources.save_capture(
                "Coast", capture_html(ARTICLE.encode(), "https://tides.test/t")
            )
            runner = ChatRunner(store, offered_tools(extension=False), confirm=confirm)
            options = AskOptions(
                collection="Coast",
                provider=ProviderChoice("rec"),
                tools=runner if tools else None,
            )
            return await ask(store, question, options)

    return asyncio.run(main())


def test_an_approved_calculation_runs_and_its_result_reaches_the_next_request() -> None:
    server = model_server([reply("Let me compute.", [CALC]), reply("It is 8.")])
    provider(server, _home())
    asked: list[dict[str, Any]] = []
    try:
        answer = _ask(
            "What is two plus two times three?", lambda event: asked.append(event) or True
        )
    finally:
        server.close()
    [shown] = asked  # the user was asked: pages are in context, so even a read-only tool asks
    assert shown["forced_ask"] is True
    assert shown["rule_id"] == "default.read_only"
    [call] = answer.tool_calls
    assert call["status"] == "executed"
    assert call["result"]["value"] == "8"
    first, second = chat_bodies(server)
    assert "app.calculate" in first["messages"][0]["content"]
    assert first["response_format"]["json_schema"]["schema"]["properties"]["tool_calls"]
    assert second["messages"][-2] == {
        "role": "assistant",
        "content": reply("Let me compute.", [CALC]),
    }
    [told] = tool_results(second)
    assert (told["name"], told["status"], told["result"]["value"]) == (
        "app.calculate",
        "executed",
        "8",
    )
    assert answer.answer_markdown == "It is 8."


def test_a_declined_calculation_does_not_run_and_the_model_is_told() -> None:
    server = model_server([reply("", [CALC]), reply("Not computed.")])
    provider(server, _home())
    try:
        answer = _ask("Compute it?", lambda _event: False)
    finally:
        server.close()
    assert [c["status"] for c in answer.tool_calls] == ["denied"]
    [told] = tool_results(chat_bodies(server)[1])
    assert told["status"] == "denied"
    assert [r["status"] for r in tool_rows(_home())] == ["denied"]


def test_the_loop_stops_after_four_rounds_and_refuses_the_rest() -> None:
    server = model_server([reply("Again.", [CALC])])  # proposes forever
    provider(server, _home())
    try:
        answer = _ask("Loop?", lambda _event: True)
    finally:
        server.close()
    assert len(chat_bodies(server)) == tool_loop.MAX_TOOL_ROUNDS + 1
    statuses = [c["status"] for c in answer.tool_calls]
    assert statuses == ["executed"] * tool_loop.MAX_TOOL_ROUNDS + ["denied"]
    assert answer.tool_calls[-1]["rule_id"] == "chat.limit"
    assert any("rounds" in warning for warning in answer.warnings)


def test_a_reply_runs_at_most_eight_calls_and_records_the_rest_refused() -> None:
    calls = [{"name": "app.calculate", "arguments": {"expression": f"{n}+1"}} for n in range(11)]
    server = model_server([reply("", calls), reply("Done.")])
    provider(server, _home())
    try:
        answer = _ask("Many?", lambda _event: True)
    finally:
        server.close()
    statuses = [c["status"] for c in answer.tool_calls]
    assert statuses == ["executed"] * 8 + ["denied"] * 3
    assert {c["rule_id"] for c in answer.tool_calls[8:]} == {"chat.limit"}
    assert len(tool_rows(_home())) == 11


def test_without_tools_the_prompt_is_unchanged_and_proposals_are_ignored() -> None:
    server = model_server([reply("No tools.", [CALC])])
    provider(server, _home())
    try:
        answer = _ask("Compute?", tools=False)
    finally:
        server.close()
    [body] = chat_bodies(server)
    assert "No tools are available" in body["messages"][0]["content"]
    assert "tool_calls" not in body["response_format"]["json_schema"]["schema"]["properties"]
    assert answer.tool_calls == []
    assert tool_rows(_home()) == []


def test_a_small_context_window_gets_no_tool_list_but_proposals_are_still_gated() -> None:
    server = model_server([reply("", [CALC]), reply("Done.")])
    config = provider(server, _home())
    small = config.model_copy(update={"context_window": 1024})
    from laika_host.llm.config import save_providers

    save_providers([small], _home() / "providers.json")
    try:
        answer = _ask("Compute?", lambda _event: False)
    finally:
        server.close()
    first = chat_bodies(server)[0]
    assert "No tools are available" in first["messages"][0]["content"]
    assert any("no tools were offered" in warning for warning in answer.warnings)
    assert [c["status"] for c in answer.tool_calls] == ["denied"]


@pytest.mark.slow  # > 3 s with the cores busy
def test_laika_ask_leaves_asks_pending_and_refuses_browser_tools() -> None:
    capture = run_laika("capture", "-", "--url", "https://tides.test/t", "-c", "Coast",
                        stdin=ARTICLE.encode())  # fmt: skip
    assert capture.returncode == 0, capture.stderr
    create = {"name": "collection.create", "arguments": {"title": "Harbours"}}
    click = {"name": "browser.click", "arguments": {"handleId": "h1"}}
    turn = [reply("", [create, click]), reply("Waiting for you.")]
    server = model_server(turn + turn)
    provider(server, _home())
    try:
        shown = run_laika("ask", "Tides?", "-c", "Coast", "--provider", "rec")
        as_json = json.loads(
            run_laika("ask", "Tides?", "-c", "Coast", "--provider", "rec", "--json").stdout
        )
    finally:
        server.close()
    assert shown.returncode == 0, shown.stderr
    assert "collection.create" in shown.stdout
    assert "pending (laika approvals approve call_" in shown.stdout
    assert (
        f'browser.click {{"handleId": "h1"}}: ask by default.browser_actions; denied: {BROWSER_ONLY}'
        in shown.stdout
    )
    pending, refused = as_json["tool_calls"]
    assert pending["status"] == "pending"
    assert (refused["status"], refused["error"]) == ("denied", BROWSER_ONLY)
    told = tool_results(chat_bodies(server)[3])
    assert told[0]["error"] == "waiting for the user's approval: it has not run"
    assert told[1]["error"] == BROWSER_ONLY
    approved = run_laika("approvals", "approve", pending["approval_id"])
    assert approved.returncode == 0, approved.stderr
    listed = json.loads(run_laika("collections", "list", "--json").stdout)["collections"]
    titles = [c["title"] for c in listed]
    assert "Harbours" in titles


def test_observed_handles_give_the_gate_their_field_kinds() -> None:
    handles = [
        {"id": "h1", "type": "password"},
        {"id": "h2", "autocomplete": "cc-number"},
        {"id": "h3", "type": "text", "label": "Search"},
        {"id": 4},
        "not a handle",
    ]
    assert handle_kinds(handles) == {"h1": "credential", "h2": "payment", "h3": "other"}
    assert handle_kinds(None) == {}


def test_a_secret_in_a_proposal_reaches_neither_the_record_nor_the_event() -> None:
    secret = "sk-proj-" + "S3cr3t" * 6
    create = {"name": "collection.create", "arguments": {"title": f"key {secret}"}}
    server = model_server([reply("", [create]), reply("Ok.")])
    provider(server, _home())
    seen: list[dict[str, Any]] = []
    try:
        answer = _ask("Save my key?", lambda event: seen.append(event) or False)
    finally:
        server.close()
    assert seen
    assert secret not in json.dumps([seen, answer.tool_calls, tool_rows(_home())])
    assert secret not in json.dumps(chat_bodies(server)[1])
