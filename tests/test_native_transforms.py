"""transform.* and artifacts.* through the real host process on a real store: the types equal
the CLI's, a run streams its items and stores them, identical runs make one artifact, a
cancel keeps the items, the viewer's HTML is inert and its chips verify, exports parse back."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from html_checks import assert_chips_verify, assert_inert
from laika_host.demo.pages import PAGES
from laika_host.llm.config import ProviderConfig, save_providers
from laika_host.transform.export import ExportInput, tables

from llm_servers import ProviderServer, Reply, openai_sse
from native_client import Client, HostProcess
from support import run_laika


def seeded(home: Path) -> tuple[HostProcess, Client, dict[str, str]]:
    host = HostProcess(home)
    client = Client(host)
    ids = {}
    for page in PAGES:
        saved = client.call(
            "sources.save_page", {"url": page.url, "html": page.html, "collection": "Demo"}
        )
        assert saved["ok"], saved
        ids[page.url.rsplit("/", 1)[-1]] = saved["result"]["source"]["id"]
    return host, client, ids


def events(reply: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in reply["_events"] if e["event"] == kind]


def test_list_types_is_what_the_cli_lists(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        reply = client.call("transform.list_types")
    finally:
        host.kill()
    done = run_laika("transform", "list", "--json", env={"LAIKA_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert reply["result"] == json.loads(done.stdout)
    assert len(reply["result"]["types"]) >= 20


@pytest.mark.slow  # > 3 s with the cores busy
def test_an_offline_run_streams_stores_renders_exports_and_deletes(tmp_path: Path) -> None:
    host, client, _ = seeded(tmp_path)
    try:
        bad = client.call(
            "transform.run", {"collection": "Demo", "type": "timeline", "config": {"count": "x"}}
        )
        run = client.call(
            "transform.run", {"collection": "Demo", "type": "timeline", "provider": "offline"}
        )
        assert run["ok"], run
        artifact_id = run["result"]["artifact"]["id"]
        listed = client.call("artifacts.list", {"collection": "Demo"})
        page = client.call("artifacts.get", {"artifact_id": artifact_id})
        exports = {
            fmt: client.call("artifacts.export", {"artifact_id": artifact_id, "format": fmt})
            for fmt in ("md", "csv", "html", "json", "txt")
        }
        summary_csv = client.call(
            "artifacts.export", {"artifact_id": artifact_id, "format": "csv", "table": 2}
        )
        deleted = client.call("artifacts.delete", {"artifact_id": artifact_id})
        gone = client.call("artifacts.get", {"artifact_id": artifact_id})
    finally:
        host.kill()
    assert bad["error"]["code"] == "bad_request"
    assert "count" in bad["error"]["message"]
    assert "must be a whole number (got 'x')" in bad["error"]["message"]
    assert "laika " not in bad["error"]["message"]  # a panel user has no command line to hand

    result = run["result"]
    assert result["status"] == "completed"
    assert (result["reused"], result["joined"]) == (False, False)
    streamed = events(run, "item")
    assert [e["index"] for e in streamed] == list(range(len(streamed)))
    assert [e["item"] for e in streamed] == result["artifact"]["items"]
    assert streamed, "a timeline of the demo pages has events"
    phases = [e["phase"] for e in events(run, "progress")]
    assert phases[0] == "running"
    assert phases[-1] == "completed"
    keys = {"phase", "done", "total", "message", "artifact_id"}
    assert all(set(e) == keys for e in events(run, "progress"))
    assert {e["artifact_id"] for e in events(run, "progress")} == {artifact_id}

    (summary,) = listed["result"]["artifacts"]
    assert summary["id"] == artifact_id
    assert summary["collection"] == "Demo"
    assert summary["items"] == len(streamed)
    assert summary["verified"] == sum(e["item"]["verified"] for e in streamed)

    shown = page["result"]
    assert shown["items"] == result["artifact"]["items"]
    assert_inert(shown["html"])
    assert_chips_verify(shown)

    exported = exports["csv"]["result"]
    assert exported["filename"].endswith(".csv")
    assert "/" not in exported["filename"]
    assert exported["mime"] == "text/csv"
    rows = list(csv.reader(io.StringIO(exported["content"])))
    (table,) = tables(ExportInput(shown, "Demo"))
    assert rows == [table.header, *table.rows]
    assert len(rows) - 1 == len(shown["items"])
    verified_column = [row[rows[0].index("verified")] for row in rows[1:]]
    assert verified_column == ["yes" if i["verified"] else "no" for i in shown["items"]]
    assert summary_csv["error"]["code"] == "bad_request"

    markdown = exports["md"]["result"]["content"]
    front = yaml.safe_load(markdown.split("---\n", 2)[1])
    assert front["title"] == shown["title"]
    assert front["collection"] == "Demo"
    assert len(front["sources"]) == len(PAGES)
    assert_inert(exports["html"]["result"]["content"].split("</style>", 1)[1])
    assert json.loads(exports["json"]["result"]["content"])["artifact"]["id"] == artifact_id
    assert exports["txt"]["result"]["mime"] == "text/plain"

    assert deleted["result"] == {"deleted": True, "id": artifact_id}
    assert gone["error"]["code"] == "not_found"


@pytest.mark.slow  # > 3 s with the cores busy
def test_two_identical_concurrent_runs_give_one_artifact(tmp_path: Path) -> None:
    host, client, _ = seeded(tmp_path)
    try:
        payload = {"collection": "Demo", "type": "timeline", "provider": "offline"}
        for request_id in ("a", "b"):
            host.send({"id": request_id, "type": "transform.run", "payload": payload})
        first, second = host.final_reply("a", 60), host.final_reply("b", 60)
        listed = client.call("artifacts.list", {"collection": "Demo"})
    finally:
        host.kill()
    assert first["ok"], first
    assert second["ok"], second
    assert first["result"]["artifact"]["id"] == second["result"]["artifact"]["id"]
    how = {(r["result"]["reused"], r["result"]["joined"]) for r in (first, second)}
    assert how in ({(False, False), (True, False)}, {(False, False), (False, True)})
    assert [a["id"] for a in listed["result"]["artifacts"]] == [first["result"]["artifact"]["id"]]


def faq_line(source_id: str, number: int) -> str:
    quote = (
        "Spring tides run higher than neap tides because the moon and the sun pull together "
        "at new and full moon."
    )
    item = {
        "question": f"Q{number}: why are spring tides higher?",
        "answer": "The sun and moon pull together.",
        "citations": [{"source_id": f"src:{source_id}", "quote": quote}],
    }
    return json.dumps(item) + "\n"


@pytest.mark.slow  # > 3 s with the cores busy
def test_host_cancel_mid_run_replies_cancelled_and_keeps_the_items(tmp_path: Path) -> None:
    host, client, ids = seeded(tmp_path)
    lines = [faq_line(ids["harbour-tides"], n) for n in range(60)]
    server = ProviderServer([Reply(chunks=openai_sse(lines), delay_between=0.2)])
    try:
        save_providers(
            [
                ProviderConfig(
                    id="rec",
                    kind="openai_compatible",
                    model="m",
                    base_url=server.url,
                    context_window=16_000,
                )
            ],
            tmp_path / "providers.json",
        )
        payload = {"collection": "Demo", "type": "faq", "provider": "rec"}
        host.send({"id": "run", "type": "transform.run", "payload": payload})
        items = 0
        deadline = time.monotonic() + 30
        while items < 2 and time.monotonic() < deadline:
            message = host.recv(30)
            items += message.get("id") == "run" and message.get("event") == "item"
        assert items == 2
        cancel = host.request(
            {"id": "c", "type": "host.cancel", "payload": {"target_id": "run"}}, 30
        )
        reply = host.final_reply("run", 30)
        (summary,) = client.call("artifacts.list", {"collection": "Demo"})["result"]["artifacts"]
        page = client.call("artifacts.get", {"artifact_id": summary["id"]})["result"]
    finally:
        host.kill()
        server.close()
    assert cancel["ok"], cancel
    assert reply["ok"] is False
    assert reply["error"]["code"] == "cancelled"
    assert page["status"] == "cancelled"
    assert 2 <= len(page["items"]) < len(lines)
    assert page["partial"] is True
    assert_inert(page["html"])


@pytest.mark.slow  # > 3 s with the cores busy
def test_deleting_an_artifact_being_made_cancels_its_run_first(tmp_path: Path) -> None:
    host, client, ids = seeded(tmp_path)
    lines = [faq_line(ids["harbour-tides"], n) for n in range(60)]
    server = ProviderServer([Reply(chunks=openai_sse(lines), delay_between=0.2)])
    try:
        save_providers(
            [ProviderConfig(id="rec", kind="openai_compatible", model="m", base_url=server.url)],
            tmp_path / "providers.json",
        )
        payload = {"collection": "Demo", "type": "faq", "provider": "rec"}
        host.send({"id": "run", "type": "transform.run", "payload": payload})
        artifact_id = None
        while artifact_id is None:
            message = host.recv(30)
            if message.get("id") == "run" and message.get("event") == "item":
                raise AssertionError("the run started without a progress event naming it")
            if message.get("id") == "run" and message.get("event") == "progress":
                artifact_id = message["data"]["artifact_id"]
        host.send({"id": "d", "type": "artifacts.delete", "payload": {"artifact_id": artifact_id}})
        finals: dict[str, dict[str, Any]] = {}
        while len(finals) < 2:  # the run ends before the delete replies
            message = host.recv(30)
            if "ok" in message:
                finals[message["id"]] = message
        deleted, run = finals["d"], finals["run"]
        gone = client.call("artifacts.get", {"artifact_id": artifact_id})
    finally:
        host.kill()
        server.close()
    assert deleted["result"] == {"deleted": True, "id": artifact_id}
    assert run["ok"], run
    assert run["result"]["status"] == "cancelled"
    assert gone["error"]["code"] == "not_found"
