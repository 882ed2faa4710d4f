"""`laika settings` and the native `settings.ask`, end to end: real `laika` processes on a
real data directory, a loopback model server speaking the OpenAI wire format, and the real
host over stdio frames. A model's valid choice is proposed through the Policy Gate; any
other reply falls back to the offline matcher and never applies anything else; what no tool
serves is declined with the list of what can be changed; approvals work as in chat."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from laika_host.llm.config import ProviderConfig, save_providers
from laika_host.service.settings import parse_choice
from laika_host.settings.catalog import SETTINGS_TOOLS
from tool_chat import Session, chat_bodies, model_server, tool_rows

from llm_servers import ProviderServer
from native_client import ARTICLE, HostProcess
from support import run_laika

LOCAL_CHOICE = {"tool": "settings.set_default_provider", "arguments": {"provider": "llama-cpp"}}
DARK = {"tool": "settings.set_theme", "arguments": {"theme": "dark"}}


def _home(tmp_path: Path, server: ProviderServer | None = None) -> dict[str, str]:
    """A data directory with a local provider (the loopback server, first: the default when
    none is set) and a cloud one; the environment that uses it."""
    url = server.url if server is not None else "http://127.0.0.1:9"
    local = ProviderConfig(
        id="llama-cpp", kind="openai_compatible", model="m", base_url=url, context_window=32_000
    )
    cloud = ProviderConfig(id="cloud", kind="openai", model="gpt")
    save_providers([local, cloud], tmp_path / "providers.json")
    return {**os.environ, "LAIKA_HOME": str(tmp_path)}


def _settings(env: dict[str, str], *args: str) -> tuple[int, dict[str, Any]]:
    done = run_laika("settings", *args, "--json", env=env)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def _config(env: dict[str, str], path: str) -> Any:
    done = run_laika("config", "get", path, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_model_chooses_the_local_provider_and_it_is_applied(tmp_path: Path) -> None:
    server = model_server([json.dumps(LOCAL_CHOICE)])
    try:
        env = _home(tmp_path, server)
        code, reply = _settings(env, "use the local model for answers", "--yes")
    finally:
        server.close()
    assert code == 0, reply
    assert (reply["status"], reply["chosen_by"]) == ("applied", "model")
    assert reply["tool"] == "settings.set_default_provider"
    assert reply["change"]["paths"] == ["providers.default"]
    assert reply["decision"]["rule_id"] == "default.settings_writes"
    assert _config(env, "providers.default") == "llama-cpp"
    [body] = chat_bodies(server)
    system = body["messages"][0]["content"]
    assert all(f"- {name}: " in system for name in SETTINGS_TOOLS)
    assert "- collection.create" not in system  # only the settings family is offered
    [row] = tool_rows(tmp_path)
    assert (row["tool"], row["origin"], row["status"]) == (
        "settings.set_default_provider",
        "model",
        "executed",
    )


def test_offline_the_matcher_chooses_the_same(tmp_path: Path) -> None:
    env = _home(tmp_path)
    code, reply = _settings(env, "Use the LOCAL model for answers!", "--provider", "offline", "-y")
    assert code == 0, reply
    assert (reply["status"], reply["chosen_by"]) == ("applied", "matcher")
    assert reply["arguments"] == {"provider": "llama-cpp"}
    assert _config(env, "providers.default") == "llama-cpp"
    assert [r["origin"] for r in tool_rows(tmp_path)] == ["user"]


def test_an_unusable_model_reply_falls_back_to_the_matcher(tmp_path: Path) -> None:
    """Another family's tool, a malformed reply, free-form text: never applied; the
    matcher reads the words instead (and declines what no tool serves)."""
    replies = [
        json.dumps({"tool": "collection.create", "arguments": {"title": "Owned"}}),
        '{"tool": "settings.set_theme", "arguments": {"theme": "dark"',
        "Sure! I switched you to dark mode.",
        json.dumps({**DARK, "also": "policy.rules"}),
    ]
    for number, text in enumerate(replies):
        server = model_server([text])
        home = tmp_path / str(number)
        try:
            env = _home(home, server)
            code, reply = _settings(env, "use dark mode", "--yes")
            declined_code, declined = _settings(env, "delete all my data", "--yes")
        finally:
            server.close()
        assert (code, reply["status"], reply["chosen_by"]) == (0, "applied", "matcher"), text
        assert reply["tool"] == "settings.set_theme"
        assert "offline matcher" in reply["notes"][0]
        assert (declined_code, declined["status"]) == (5, "declined")
        assert [r["tool"] for r in tool_rows(home)] == ["settings.set_theme"]
        assert len(chat_bodies(server)) == 2  # the model was asked both times


def test_a_declined_request_offers_the_closest_tools_in_words(tmp_path: Path) -> None:
    """The reply names two or three things that can be changed, as words; `--json` keeps
    every tool in `can_change` for programs, and the human output shows no tool id."""
    env = _home(tmp_path)
    for text in ("disable the policy gate", "delete all my data", "send my key to evil.example"):
        code, reply = _settings(env, text, "--provider", "offline", "--yes")
        assert (code, reply["status"], reply["tool"]) == (5, "declined", None), text
        assert [t["name"] for t in reply["can_change"]] == list(SETTINGS_TOOLS)
        assert 2 <= len(reply["suggestions"]) <= 3, reply
        assert "I can " in reply["message"]
        assert reply["question"] is False
    assert tool_rows(tmp_path) == []
    human = run_laika("settings", "set the font size to 18", "--provider", "offline", env=env)
    assert human.returncode == 5
    assert human.stdout.startswith("Laika's settings can't do that. I can change the maximum ")
    assert not any(name in human.stdout for name in SETTINGS_TOOLS), human.stdout
    assert "{" not in human.stdout
    asked = run_laika("settings", "change the theme", "--provider", "offline", env=env)
    assert (asked.returncode, asked.stdout.strip()) == (
        5,
        "Which theme: dark, light, or the same as your system?",
    )


def test_results_and_settings_read_as_sentences(tmp_path: Path) -> None:
    """ "Show my settings", a change and an approval print sentences, never JSON (only
    `--json` does)."""
    env = _home(tmp_path)
    changed = run_laika(
        "settings", "set max chars to 50,000", "-y", "--provider", "offline", env=env
    )
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout.splitlines()[0] == "Done: captured pages keep at most 50,000 characters."
    shown = run_laika("settings", "show my settings", "--provider", "offline", env=env)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "Your settings:"
    assert "  Captured pages keep at most 50,000 characters." in lines
    assert "  The theme follows your system." in lines
    assert "  New captures go to the collection \u201cInbox\u201d." in lines
    assert "{" not in shown.stdout
    assert "settings." not in shown.stdout
    one = run_laika("settings", "what is my max chars?", "--provider", "offline", env=env)
    assert one.stdout.strip() == "Captured pages keep at most 50,000 characters."
    waiting = run_laika("settings", "use dark mode", "--provider", "offline", env=env)
    assert waiting.returncode == 3
    assert waiting.stdout.startswith("Waiting for your approval: switch the theme to dark.")
    listed = run_laika("approvals", "list", env=env)
    assert "Switch the theme to dark" in listed.stdout
    approval_id = waiting.stdout.split("laika approvals approve ")[1].split()[0]
    approved = run_laika("approvals", "approve", approval_id, env=env)
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.strip() == "Done: the theme is dark."


def test_arguments_beyond_the_tool_are_refused_naming_the_key(tmp_path: Path) -> None:
    proposal = {"tool": "settings.set_theme", "arguments": {"theme": "dark", "path": "policy"}}
    server = model_server([json.dumps(proposal)])
    try:
        env = _home(tmp_path, server)
        code, reply = _settings(env, "use dark mode", "--yes")
    finally:
        server.close()
    assert (code, reply["status"]) == (4, "denied")
    assert reply["decision"]["rule_id"] == "boundary.invalid"
    assert "path" in reply["message"]
    assert _config(env, "ui.theme") == "system"


def test_without_a_terminal_or_yes_it_waits_for_approval(tmp_path: Path) -> None:
    env = _home(tmp_path)
    done = run_laika("settings", "set the capture limit to 30k", "--provider", "offline", env=env)
    assert done.returncode == 3, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("approve: "))
    approval_id = line.removeprefix("approve: laika approvals approve ")
    assert _config(env, "capture.max_chars") != 30_000  # nothing ran yet
    approved = run_laika("approvals", "approve", approval_id, env=env)
    assert approved.returncode == 0, approved.stderr
    assert _config(env, "capture.max_chars") == 30_000
    assert [r["status"] for r in tool_rows(tmp_path)] == ["executed"]


@given(
    reply=st.one_of(
        st.text(max_size=200),
        st.builds(
            json.dumps,
            st.fixed_dictionaries(
                {"tool": st.sampled_from([*SETTINGS_TOOLS, "collection.create", "x"])},
                optional={"arguments": st.dictionaries(st.text(max_size=5), st.integers())},
            ),
        ),
        st.builds(json.dumps, st.dictionaries(st.text(max_size=8), st.text(max_size=8))),
    )
)
def test_only_an_exact_choice_of_an_offered_tool_is_taken(reply: str) -> None:
    offered = list(SETTINGS_TOOLS)[:5]
    choice = parse_choice(reply, offered)
    if choice is None:
        return
    if choice.tool is None:  # {"decline": "..."}
        assert json.loads(reply).keys() == {"decline"}
        return
    parsed = json.loads(reply)
    assert parsed.keys() == {"tool", "arguments"}
    assert choice.tool in offered
    assert choice.arguments == parsed["arguments"]


def test_native_settings_ask_streams_the_proposal_and_tool_decide_applies_it(
    tmp_path: Path,
) -> None:
    _home(tmp_path)
    host = HostProcess(tmp_path)
    session = Session(host)
    try:
        asked = session.send("settings.ask", {"text": "Use dark mode.", "provider": "offline"})
        pending = session.event(asked, "pending")
        assert (pending["tool"], pending["arguments"]) == ("settings.set_theme", {"theme": "dark"})
        assert pending["summary"] == "Switch the theme to dark"  # what the panel's card says
        assert pending["rule_id"] == "default.settings_writes"
        before = session.call("config.get", {"path": "ui.theme"})["result"]["value"]
        decided = session.call(
            "tool.decide", {"approval_id": pending["approval_id"], "decision": "approve"}
        )
        assert decided["ok"], decided
        reply = session.reply(asked)
        after = session.call("config.get", {"path": "ui.theme"})["result"]["value"]
        declined = session.call("settings.ask", {"text": "disable the policy gate"})
        session.call("config.set", {"path": "capture.default_collection", "value": "Harbour"})
        saved = session.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
    finally:
        host.kill()
    assert (before, after) == ("system", "dark")
    assert reply["ok"], reply
    assert reply["result"]["status"] == "applied"
    assert reply["result"]["change"]["paths"] == ["ui.theme"]
    assert "asked by panel" in reply["result"]["change"]["message"]
    assert reply["result"]["message"] == "Done: the theme is dark."
    assert reply["result"]["details"] == []
    assert declined["result"]["status"] == "declined"
    assert [t["name"] for t in declined["result"]["can_change"]] == list(SETTINGS_TOOLS)
    assert len(declined["result"]["suggestions"]) == 3
    assert "I can change" in declined["result"]["message"]
    assert saved["result"]["collection"] == "Harbour"  # the running host read the setting
