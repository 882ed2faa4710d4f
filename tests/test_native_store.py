"""The store message types through the real host process: one session, a real SQLite file,
a real loopback HTTP server for fetched URLs; every result checked against its schema file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from laika_host.native.handlers.routes import default_router

from html_server import serve
from native_client import ARTICLE, Client, HostProcess
from public_loopback import allow_private_addresses


@pytest.fixture
def pages() -> Iterator[str]:
    with serve(lambda _path: ARTICLE.replace("Tide tables", "Fetched tides")) as url:
        yield url


@pytest.mark.slow  # > 3 s with the cores busy
def test_store_types_through_the_host(tmp_path: Path, pages: str) -> None:
    allow_private_addresses(tmp_path)  # `pages` is on this machine
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        _exercise(client, pages)
    finally:
        host.kill()
    store_types = {
        t
        for t in default_router().types()
        if t.split(".")[0] in ("collections", "sources", "search", "jobs")
    }
    assert client.checked == store_types  # every store type answered and matched its schema
    assert (tmp_path / "laika.db").exists()  # LAIKA_HOME holds the one database file


def _exercise(client: Client, pages: str) -> None:
    created = client.call("collections.create", {"title": "Coast"})
    assert created["ok"], created
    clash = client.call("collections.create", {"title": "coast"})
    assert clash["error"]["code"] == "conflict"

    saved = client.call(
        "sources.save_page",
        {"url": "https://tides.test/tables?utm_source=x", "html": ARTICLE, "collection": "Coast"},
    )
    assert saved["ok"], saved
    assert saved["result"]["outcome"] == "new"
    assert [e["data"]["stage"] for e in saved["_events"]] == ["capturing", "storing"]
    source = saved["result"]["source"]
    assert source["title"] == "Tide tables"
    assert source["normalized_url"] == "https://tides.test/tables"
    again = client.call(
        "sources.save_page",
        {"url": "https://TIDES.test/tables#top", "html": ARTICLE, "collection": "Coast"},
    )
    assert again["result"]["outcome"] == "unchanged"
    selection = client.call(
        "sources.save_page",
        {
            "url": "https://tides.test/other",
            "title": "Just a bit",
            "html": ARTICLE,
            "selection_html": "<p>Sailors read them before leaving port.</p>",
        },
    )
    assert selection["result"]["collection"] == "Inbox"
    detail = client.call("sources.get", {"source_id": selection["result"]["source"]["id"]})
    assert detail["result"]["markdown"] == "Sailors read them before leaving port."
    assert detail["result"]["provenance"]["selection"] is True

    listed = client.call("sources.list", {"collection": "Coast"})
    assert [s["id"] for s in listed["result"]["sources"]] == [source["id"]]
    found = client.call("search.query", {"query": "moon harbour"})
    assert [hit["id"] for hit in found["result"]["hits"]] == [source["id"]]
    assert client.call("collections.list")["result"]["collections"][0]["source_count"] >= 1

    added = client.call("sources.add_url", {"url": f"{pages}/fetched", "collection": "Coast"})
    assert added["ok"], added
    job_id = added["result"]["job"]["id"]
    assert client.call("jobs.status", {"job_id": job_id})["result"]["status"] == "queued"
    ran = client.call("jobs.run", {})
    assert ran["result"]["succeeded"] == [job_id]
    stages = [e["data"]["stage"] for e in ran["_events"]]
    assert stages == ["job_started", "job_finished"]
    assert client.call("jobs.list")["result"]["counts"] == {"succeeded": 1}
    fetched = client.call("sources.get", {"source_id": added["result"]["source"]["id"]})
    assert fetched["result"]["title"] == "Fetched tides"
    assert fetched["result"]["capture_status"] == "captured"
    found = client.call("sources.lookup", {"url": fetched["result"]["url"]})
    assert [m["source_id"] for m in found["result"]["matches"]] == [fetched["result"]["id"]]
    note = client.call("sources.add_note", {"text": "a *typed* note"})
    assert note["result"]["source"]["kind"] == "note"

    versions = client.call("sources.versions", {"source_id": source["id"]})["result"]
    assert [v["version"] for v in versions["versions"]] == [1]
    first = client.call("sources.version", {"source_id": source["id"], "version": 1})
    assert first["result"]["markdown"].startswith("# Tide tables")

    renamed = client.call("collections.rename", {"collection": "Coast", "title": "Shore"})
    assert renamed["result"]["title"] == "Shore"
    deleted = client.call("sources.delete", {"source_id": selection["result"]["source"]["id"]})
    assert deleted["ok"]
    missing = client.call("sources.get", {"source_id": selection["result"]["source"]["id"]})
    assert missing["error"]["code"] == "not_found"
    gone = client.call("collections.delete", {"collection": "Shore"})
    assert gone["result"]["deleted"]["title"] == "Shore"
    assert client.call("search.query", {"query": "moon"})["result"]["hits"] == []


@pytest.mark.slow  # > 3 s with the cores busy
def test_bad_store_payloads_get_clear_errors_and_the_host_keeps_serving(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        not_web = client.call("sources.save_page", {"url": "javascript:alert(1)", "html": "<p>x"})
        assert not_web["error"]["code"] == "bad_request"
        assert "payload.url" in str(not_web["error"]["details"])
        empty = client.call("sources.save_page", {"url": "https://a.test/", "html": "   "})
        assert empty["error"]["code"] == "bad_request"
        assert "empty" in empty["error"]["message"]
        query = client.call("search.query", {"query": '"*'})
        assert query["error"]["code"] == "bad_request"
        assert "at least one word" in query["error"]["message"]
        assert client.call("host.ping")["ok"]
    finally:
        host.kill()
