"""Tool calls in chat through the real host process and a recording model server: each
proposal goes through the Policy Gate, `ask` waits for `tool.decide`, browser tools are
forwarded and answered with `tool.result`, and the model reads every outcome."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tool_chat import (
    Session,
    chat_bodies,
    model_server,
    provider,
    reply,
    tool_results,
    tool_rows,
)

from native_client import ARTICLE, HostProcess
from support import run_laika, schema_validator

CREATE = {"name": "collection.create", "arguments": {"title": "Harbours"}}


def _start(home: Path, texts: list[str], **env: str) -> tuple[HostProcess, Session, Any]:
    server = model_server(texts)
    provider(server, home)
    host = HostProcess(home, env=env or None)
    session = Session(host)
    saved = session.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
    assert saved["ok"], saved
    return host, session, server


def _collections(session: Session) -> list[str]:
    listed = session.call("collections.list")["result"]["collections"]
    return [c["title"] for c in listed]


@pytest.mark.slow  # > 3 s with the cores busy
def test_an_approved_write_runs_and_the_model_reads_its_result(tmp_path: Path) -> None:
    host, session, server = _start(tmp_path, [reply("Creating it.", [CREATE]), reply("Done.")])
    try:
        asked = session.send("chat.ask", {"question": "Tides?", "provider": "rec"})
        pending = session.event(asked, "pending")
        assert pending["tool"] == "collection.create"
        assert (pending["decision"], pending["rule_id"]) == ("ask", "default.writes")
        assert pending["approval_id"] == pending["call_id"]
        assert pending["arguments"] == {"title": "Harbours"}
        assert "Harbours" not in _collections(session)  # nothing ran before the approval
        decided = session.call(
            "tool.decide", {"approval_id": pending["approval_id"], "decision": "approve"}
        )
        assert decided["ok"], decided
        assert decided["result"]["call"]["status"] == "executed"
        answer = session.reply(asked)
        assert answer["ok"], answer
        assert [e["status"] for e in session.events(asked)] == ["running", "executed"]
        again = session.call(
            "tool.decide", {"approval_id": pending["approval_id"], "decision": "approve"}
        )
        assert again["error"]["code"] == "conflict"
        titles = _collections(session)
    finally:
        host.kill()
        server.close()
    result = answer["result"]
    schema_validator("native/types/chat.ask.result.schema.json").validate(result)
    assert [c["status"] for c in result["tool_calls"]] == ["executed"]
    assert result["answer_markdown"] == "Done."
    assert "Harbours" in titles
    first, second = chat_bodies(server)
    assert "collection.create" in first["messages"][0]["content"]  # offered in the prompt
    [told] = tool_results(second)
    assert told["status"] == "executed"
    assert told["result"]["collection"]["title"] == "Harbours"
    [row] = tool_rows(tmp_path)
    assert (row["status"], row["decision"], row["origin"]) == ("executed", "ask", "model")
    assert row["untrusted_context"] == 1
    assert row["chat_event_id"] is not None


@pytest.mark.slow
def test_a_denied_write_runs_nothing_and_the_model_is_told(tmp_path: Path) -> None:
    host, session, server = _start(tmp_path, [reply("Creating it.", [CREATE]), reply("Ok.")])
    try:
        asked = session.send("chat.ask", {"question": "Tides?", "provider": "rec"})
        pending = session.event(asked, "pending")
        decided = session.call(
            "tool.decide", {"approval_id": pending["approval_id"], "decision": "deny"}
        )
        assert decided["result"]["call"]["status"] == "denied"
        answer = session.reply(asked)
        titles = _collections(session)
    finally:
        host.kill()
        server.close()
    assert answer["ok"], answer
    assert "Harbours" not in titles
    [told] = tool_results(chat_bodies(server)[1])
    assert told["status"] == "denied"
    assert told["error"]
    assert [r["status"] for r in tool_rows(tmp_path)] == ["denied"]


@pytest.mark.slow
def test_unknown_tools_and_keys_are_refused_on_record_and_never_run(tmp_path: Path) -> None:
    proposals = [
        {"name": "shell.exec", "arguments": {"cmd": "rm -rf ~"}},
        {"name": "app.calculate", "arguments": {"expression": "2+2", "eval": "open('x')"}},
        {"name": "collection.create", "arguments": {"title": "X", "owner": "attacker"}},
        {"name": "app.calculate", "arguments": {"expression": "6*7"}},
    ]
    host, session, server = _start(tmp_path, [reply("", proposals), reply("42.")])
    try:
        asked = session.send("chat.ask", {"question": "Tides?", "provider": "rec"})
        pending = session.event(asked, "pending")  # the valid one: allow, forced to ask
        assert pending["tool"] == "app.calculate"
        assert pending["forced_ask"] is True
        assert pending["rule_id"] == "default.read_only"
        session.call("tool.decide", {"approval_id": pending["approval_id"], "decision": "approve"})
        answer = session.reply(asked)
        titles = _collections(session)
    finally:
        host.kill()
        server.close()
    calls = answer["result"]["tool_calls"]
    assert [c["status"] for c in calls] == ["denied", "denied", "denied", "executed"]
    assert {c["rule_id"] for c in calls[:3]} == {"boundary.invalid"}
    assert "X" not in titles
    told = tool_results(chat_bodies(server)[1])
    assert [t["status"] for t in told] == ["denied", "denied", "denied", "executed"]
    assert told[3]["result"]["value"] == "42"
    rows = tool_rows(tmp_path)
    assert [r["tool"] for r in rows] == [p["name"] for p in proposals]
    assert [r["status"] for r in rows] == ["denied", "denied", "denied", "executed"]


@pytest.mark.slow
def test_a_browser_tool_is_forwarded_and_its_answer_reaches_the_model(tmp_path: Path) -> None:
    click = {"name": "browser.click", "arguments": {"handleId": "h3"}}
    host, session, server = _start(tmp_path, [reply("", [click]), reply("Clicked.")])
    try:
        asked = session.send("chat.ask", {"question": "Next page?", "provider": "rec"})
        pending = session.event(asked, "pending")
        assert pending["rule_id"] == "default.browser_actions"
        decided = session.call(
            "tool.decide", {"approval_id": pending["approval_id"], "decision": "approve"}
        )
        assert (decided["result"]["call"]["status"], decided["result"]["call"]["forward"]) == (
            "approved",
            False,
        )  # the chat's `forward` event hands it to the extension, once
        forward = session.event(asked, "forward")
        assert forward["forward"] is True
        assert forward["arguments"] == {"handleId": "h3"}
        page = {"ok": True, "url": "https://tides.test/t?page=2", "title": "Tides, page 2"}
        recorded = session.call(
            "tool.result", {"call_id": forward["call_id"], "ok": True, "result": page}
        )
        assert recorded["result"] == {"recorded": True}
        answer = session.reply(asked)
        late = session.call("tool.result", {"call_id": forward["call_id"], "ok": True})
    finally:
        host.kill()
        server.close()
    assert late["error"]["code"] == "conflict"
    assert answer["result"]["tool_calls"][0]["status"] == "executed"
    [told] = tool_results(chat_bodies(server)[1])
    assert told["result"] == page
    assert tool_rows(tmp_path)[0]["status"] == "executed"


@pytest.mark.slow
def test_no_answer_denies_an_approval_and_fails_a_forwarded_call(tmp_path: Path) -> None:
    observe = {"name": "browser.observe_dom", "arguments": {"maxChars": 2000}}
    texts = [reply("", [CREATE]), reply("Nobody answered."), reply("", [observe]), reply("No.")]
    env = {"LAIKA_TOOL_APPROVAL_TIMEOUT": "1", "LAIKA_TOOL_FORWARD_TIMEOUT": "1"}
    host, session, server = _start(tmp_path, texts, **env)
    try:
        unanswered = session.call("chat.ask", {"question": "Tides?", "provider": "rec"})
        asked = session.send("chat.ask", {"question": "Look?", "provider": "rec"})
        pending = session.event(asked, "pending")
        session.call("tool.decide", {"approval_id": pending["approval_id"], "decision": "approve"})
        session.event(asked, "forward")  # and no tool.result follows
        silent = session.reply(asked)
    finally:
        host.kill()
        server.close()
    [denied] = unanswered["result"]["tool_calls"]
    assert denied["status"] == "denied"
    assert "no answer" in denied["error"]
    [failed] = silent["result"]["tool_calls"]
    assert failed["status"] == "failed"
    assert failed["error"] == "the extension did not answer"
    bodies = chat_bodies(server)
    assert "no answer" in tool_results(bodies[1])[0]["error"]
    assert tool_results(bodies[3])[0]["error"] == "the extension did not answer"
    assert [r["status"] for r in tool_rows(tmp_path)] == ["denied", "failed"]


@pytest.mark.slow
def test_cancelling_the_chat_denies_what_waits(tmp_path: Path) -> None:
    host, session, server = _start(tmp_path, [reply("", [CREATE]), reply("Never read.")])
    try:
        asked = session.send("chat.ask", {"question": "Tides?", "provider": "rec"})
        pending = session.event(asked, "pending")
        cancelled = session.call("host.cancel", {"target_id": asked})
        assert cancelled["ok"], cancelled
        answer = session.reply(asked)
        late = session.call(
            "tool.decide", {"approval_id": pending["approval_id"], "decision": "approve"}
        )
        unknown = session.call("tool.decide", {"approval_id": "call_nope", "decision": "deny"})
        titles = _collections(session)
    finally:
        host.kill()
        server.close()
    assert answer["error"]["code"] == "cancelled"
    assert late["error"]["code"] == "conflict"
    assert unknown["error"]["code"] == "not_found"
    assert "Harbours" not in titles
    assert [r["status"] for r in tool_rows(tmp_path)] == ["denied"]


@pytest.mark.slow
def test_remembered_decisions_are_listed_and_revoked(tmp_path: Path) -> None:
    refresh = {"name": "source.refresh", "arguments": {"sourceId": "src_x"}}
    texts = [reply("", [CREATE]), reply("Done."), reply("", [refresh]), reply("Done.")]
    host, session, server = _start(tmp_path, texts)
    try:
        listed = session.call("tools.list")["result"]
        for remember in ("session", "always"):
            asked = session.send("chat.ask", {"question": "Tides?", "provider": "rec"})
            pending = session.event(asked, "pending")
            session.call(
                "tool.decide",
                {"approval_id": pending["approval_id"], "decision": "deny", "remember": remember},
            )
            session.reply(asked)
        rules = session.call("tools.rules")["result"]["rules"]
        forgotten = [session.call("tools.forget", {"rule_id": rule["id"]}) for rule in rules]
        after = session.call("tools.rules")["result"]["rules"]
        missing = session.call("tools.forget", {"rule_id": "rule_nope"})
    finally:
        host.kill()
        server.close()
    names = [tool["name"] for tool in listed["tools"]]
    assert "browser.click" in names
    assert "app.calculate" in names
    assert {(r["tool"], r["decision"], r["scope"]) for r in rules} == {
        ("collection.create", "deny", "session"),
        ("source.refresh", "deny", "always"),
    }
    assert all(f["result"] == {"forgotten": True} for f in forgotten)
    assert after == []
    assert missing["error"]["code"] == "not_found"


@pytest.mark.slow
def test_a_call_left_pending_by_laika_ask_is_run_by_tool_decide(tmp_path: Path) -> None:
    server = model_server([reply("", [CREATE]), reply("It waits for you.")])
    provider(server, tmp_path)
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    saved = run_laika("capture", "-", "--url", "https://tides.test/t", stdin=ARTICLE.encode(),
                      env=env)  # fmt: skip
    assert saved.returncode == 0, saved.stderr
    asked = run_laika("ask", "Tides?", "--provider", "rec", "--json", env=env)
    server.close()
    [pending] = json.loads(asked.stdout)["tool_calls"]
    assert pending["status"] == "pending"
    host = HostProcess(tmp_path)
    session = Session(host)
    try:
        decided = session.call(
            "tool.decide", {"approval_id": pending["approval_id"], "decision": "approve"}
        )
        titles = _collections(session)
    finally:
        host.kill()
    assert decided["result"]["call"]["status"] == "executed"
    assert "Harbours" in titles
