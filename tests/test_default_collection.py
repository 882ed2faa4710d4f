"""A page saved without naming a collection goes to the one the user configured
(`capture.default_collection`), whichever way it is saved: Save page, Ask about this page
(which saves the page first), a URL the host fetches (Links in selection, Add URL, a PDF tab),
a typed note (Add note), `laika sources add` and `laika sources note`. Before, only `sources.save_page` read the setting: the others went to
Inbox, so a new user who had set "Reading" found pages in a collection they never made."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from native_client import ARTICLE, Client, HostProcess
from support import run_laika

PAGE = {"url": "https://news.example/story", "html": ARTICLE, "title": "A story"}


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Client]:
    process = HostProcess(tmp_path)
    client = Client(process)
    made = client.call("config.set", {"path": "capture.default_collection", "value": "Reading"})
    assert made["ok"], made
    yield client
    process.kill()


def titles(client: Client) -> dict[str, int]:
    listed = client.call("collections.list")["result"]["collections"]
    return {c["title"]: c["source_count"] for c in listed}


def test_every_save_without_a_collection_goes_to_the_configured_default(host: Client) -> None:
    saved = host.call("sources.save_page", PAGE)
    assert saved["ok"], saved
    assert saved["result"]["collection"] == "Reading"

    added = host.call("sources.add_url", {"url": "https://news.example/other"})
    assert added["ok"], added
    reading = next(
        c for c in host.call("collections.list")["result"]["collections"] if c["title"] == "Reading"
    )
    assert added["result"]["source"]["collection_id"] == reading["id"]

    asked = host.call(
        "page.summarize",
        {**PAGE, "url": "https://news.example/third", "provider": "offline", "tools": False},
    )
    assert asked["ok"], asked

    noted = host.call("sources.add_note", {"text": "Call the harbour master."})
    assert noted["ok"], noted
    assert noted["result"]["collection"] == "Reading"
    assert titles(host) == {"Reading": 4}  # no Inbox was made on the way


def test_a_named_collection_still_wins(host: Client) -> None:
    saved = host.call("sources.save_page", {**PAGE, "collection": "Work"})
    added = host.call("sources.add_url", {"url": "https://news.example/x", "collection": "Work"})
    noted = host.call("sources.add_note", {"text": "A note.", "collection": "Work"})
    assert saved["ok"], saved
    assert added["ok"], added
    assert noted["ok"], noted
    assert titles(host) == {"Work": 3}


def test_laika_sources_add_and_note_use_the_setting_too(tmp_path: Path) -> None:
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    assert (
        run_laika("config", "set", "capture.default_collection", "Reading", env=env).returncode == 0
    )
    empty = run_laika("collections", "list", env=env)
    assert empty.stdout.strip() == (
        "no collections yet: `laika capture PAGE` saves into Reading (created then)"
    ), empty.stdout
    done = run_laika("sources", "add", "https://news.example/x", "--queue-only", env=env)
    assert done.returncode == 0, done.stderr
    note = tmp_path / "note.md"
    note.write_text("Call the harbour master.\n", encoding="utf-8")
    noted = run_laika("sources", "note", str(note), env=env)
    assert noted.returncode == 0, noted.stderr
    assert " note in Reading: " in noted.stdout, noted.stdout
    listed = run_laika("collections", "list", "--json", env=env)
    collections = json.loads(listed.stdout)["collections"]
    assert [(c["title"], c["source_count"]) for c in collections] == [("Reading", 2)]
