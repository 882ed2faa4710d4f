"""The store commands as a user runs them: the real `laika` executable and a temporary
LAIKA_HOME; `--json` prints exactly one JSON document."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from html_server import serve
from support import run_laika

PAGE = (
    "<html><head><title>Bread notes</title></head><body><article><h1>Bread notes</h1>"
    "<p>Sourdough needs a lively starter, warm water and patience; the dough rises slowly "
    "overnight and bakes in a hot oven.</p></article></body></html>"
)


def laika_json(*args: str, stdin: bytes | None = None) -> Any:
    done = run_laika(*args, "--json", stdin=stdin)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def server() -> Iterator[str]:
    def page_for(path: str) -> str | None:
        return None if path.startswith("/missing") else PAGE.replace("Bread notes", "Served bread")

    with serve(page_for) as url:
        yield url


@pytest.mark.slow  # > 3 s with the cores busy
def test_capture_stores_and_reports_new_then_unchanged(tmp_path: Path) -> None:
    page = tmp_path / "bread.html"
    page.write_text(PAGE)
    first = laika_json("capture", str(page), "--url", "https://bake.test/bread?utm_source=x")
    assert first["outcome"] == "new"
    assert first["collection"] == "Inbox"
    source = first["source"]
    for key in (
        "id",
        "url",
        "normalized_url",
        "title",
        "content_hash",
        "capture_version",
        "truncated",
        "signals",
        "markdown_chars",
    ):
        assert key in source
    assert source["normalized_url"] == "https://bake.test/bread"
    again = laika_json("capture", str(page), "--url", "https://BAKE.test/bread/#crumb")
    assert again["outcome"] == "unchanged"
    assert again["source"]["id"] == source["id"]
    elsewhere = laika_json("capture", str(page), "--url", "https://bake.test/bread", "-c", "Food")
    assert elsewhere["outcome"] == "new"
    assert elsewhere["collection"] == "Food"
    plain = run_laika("capture", str(page), "--url", "https://bake.test/bread")
    assert plain.stdout.startswith("unchanged: src_")
    db = Path(os.environ["LAIKA_HOME"]) / "laika.db"
    assert db.exists()


@pytest.mark.slow  # > 3 s with the cores busy
def test_collections_sources_and_search_commands(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("# Rye\n\nRye flour makes a dense, sour loaf.")
    created = laika_json("collections", "create", "Baking")
    assert created["title"] == "Baking"
    clash = run_laika("collections", "create", "baking")
    assert clash.returncode == 1
    assert "already exists" in clash.stderr
    added = laika_json("sources", "note", str(note), "--collection", "Baking")
    assert added["source"]["kind"] == "note"
    assert added["source"]["title"] == "Rye"
    listed = laika_json("sources", "list", "--collection", "Baking")
    assert [s["id"] for s in listed["sources"]] == [added["source"]["id"]]
    shown = laika_json("sources", "show", added["source"]["id"])
    assert shown["markdown"].startswith("# Rye")
    found = laika_json("search", "sour", "loaf", "--collection", "Baking")
    assert [hit["id"] for hit in found["hits"]] == [added["source"]["id"]]
    assert "**sour**" in found["hits"][0]["snippet"]
    renamed = laika_json("collections", "rename", "Baking", "Bread")
    assert renamed["title"] == "Bread"
    collections = laika_json("collections", "list")["collections"]
    assert [(c["title"], c["source_count"]) for c in collections] == [("Bread", 1)]
    deleted = laika_json("collections", "delete", "Bread", "--yes")
    assert deleted["deleted"]["title"] == "Bread"
    assert laika_json("search", "sour")["hits"] == []
    unknown = run_laika("sources", "list", "--collection", "Nope")
    assert unknown.returncode == 1
    assert "no collection 'Nope'; there are none yet" in unknown.stderr
    assert "Traceback" not in unknown.stderr


@pytest.mark.slow  # > 3 s with the cores busy
def test_sources_add_fetches_now_or_records_the_failure(server: str) -> None:
    """The server is on this machine: refused, naming the way, until the user allows it."""
    refused = run_laika("sources", "add", f"{server}/bread")
    assert refused.returncode == 2
    assert f"refused to fetch {server}/bread: its host is a loopback address" in refused.stderr
    assert "--allow-private-address" in refused.stderr
    assert laika_json("sources", "list")["sources"] == []  # nothing stored or queued
    local = "--allow-private-address"
    added = laika_json("sources", "add", f"{server}/bread", local)
    assert added["outcome"] == "new"
    assert added["job"]["status"] == "succeeded"
    assert added["source"]["title"] == "Served bread"
    assert added["source"]["capture_status"] == "captured"
    failing = laika_json("sources", "add", f"{server}/missing", local)
    assert failing["job"]["status"] == "queued"  # retried later, with backoff
    assert "404" in failing["job"]["last_error"]
    queued = laika_json("sources", "add", f"{server}/later", "--queue-only", local)
    assert queued["job"]["status"] == "queued"
    jobs = laika_json("jobs", "list")["jobs"]
    assert sorted(job["status"] for job in jobs) == ["queued", "queued", "succeeded"]
    ran = laika_json("jobs", "run")
    assert ran["succeeded"] == [queued["job"]["id"]]  # the failed one is not due yet
