"""A refresh never loses what the user saw (issue 12, finding 13).

A new capture of a saved URL that brings much less text (under half) or a blocking signal the
saved copy did not have (a login wall, a captcha) keeps the saved copy and says why (`kept`);
every capture that is replaced stays recoverable with its Markdown (`source_versions`).
Checked on the store with generated revisions, and end to end: the CLI (`sources refresh`,
`sources versions`, `sources show --version`) and the host (`sources.add_url` on a saved URL,
`jobs.run`, `sources.versions`, `sources.version`) against a real loopback server.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.capture import Capture, capture_html
from laika_host.store import Store, open_store
from laika_host.store.refresh import BLOCKING_SIGNALS, MIN_TEXT_RATIO

from html_server import serve
from native_client import Client, HostProcess
from public_loopback import allow_private_addresses
from support import run_laika

URL = "https://news.test/story"
_EXAMPLES = itertools.count()


def story(paragraphs: int, *, wall: bool = False, edition: int = 0) -> str:
    """The members-only story as a logged-in reader sees it, or cut by a login wall."""
    body = "".join(
        f"<p>Paragraph {i} of edition {edition} tells what happened at the harbour on day {i}, "
        "with quotes from the pilots and the tide tables they used.</p>"
        for i in range(paragraphs)
    )
    if wall:
        body += '<div class="paywall"><p>Subscribe to continue reading. Log in.</p></div>'
    return (
        "<html><head><title>Harbour story</title></head><body><article>"
        f"<h1>Harbour story</h1>{body}</article></body></html>"
    )


def capture_of(paragraphs: int, *, wall: bool = False, edition: int = 0) -> Capture:
    return capture_html(story(paragraphs, wall=wall, edition=edition), URL)


revisions = st.lists(
    st.tuples(st.integers(1, 14), st.booleans(), st.integers(0, 3), st.booleans()),
    min_size=1,
    max_size=6,
)


@pytest.mark.slow  # > 3 s with the cores busy
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=st.integers(1, 14), steps=revisions)
def test_a_refresh_keeps_what_the_user_saw_and_every_replaced_capture(
    tmp_path: Path, first: int, steps: list[tuple[int, bool, int, bool]]
) -> None:
    db = tmp_path / f"laika-{next(_EXAMPLES)}.db"  # a fresh file for each example

    async def scenario(store: Store) -> None:
        saved = await store.sources.save_capture("Coast", capture_of(first))
        source_id = saved.source.id
        ever_current = [capture_of(first).markdown]
        for paragraphs, wall, edition, force in steps:
            before = await store.sources.get(source_id)
            old_chars = len(await _current_text(store, source_id))
            new = capture_of(paragraphs, wall=wall, edition=edition)
            result = await store.sources.save_capture("Coast", new, force=force)
            after = await store.sources.get(source_id)
            blocked = [s for s in new.signals if s in BLOCKING_SIGNALS and s not in before.signals]
            shrank = len(new.text) < MIN_TEXT_RATIO * old_chars
            if new.content_hash == before.content_hash:
                assert result.outcome == "unchanged"
            elif (blocked or shrank) and not force:
                assert result.outcome == "kept", (blocked, shrank)
                assert result.reason
                assert (blocked[0] if blocked else "less than half") in result.reason
                assert after.markdown == before.markdown  # what the user saw stays
                assert after.capture_version == before.capture_version
            else:
                assert result.outcome == "updated"
                assert result.reason is None
                assert after.markdown == new.markdown
                assert after.capture_version == before.capture_version + 1
                ever_current.append(new.markdown)
        versions = await store.sources.versions(source_id)
        current = await store.sources.get(source_id)
        assert [v.version for v in versions] == list(range(1, current.capture_version + 1))
        assert [v.current for v in versions] == [False] * (len(versions) - 1) + [True]
        recovered = [(await store.sources.version(source_id, v.version)).markdown for v in versions]
        assert recovered == ever_current  # every capture that was ever shown, in order

    asyncio.run(_with_store(db, scenario))


async def _current_text(store: Store, source_id: str) -> str:
    row = await store.db.fetch_one("SELECT capture_text FROM sources WHERE id = ?", (source_id,))
    assert row is not None
    return str(row[0])


async def _with_store(db: Path, work: Any) -> None:
    async with open_store(db) as store:
        await work(store)


# --- the CLI ----------------------------------------------------------------------------


def laika_json(*args: str) -> Any:
    done = run_laika(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def logged_out() -> Any:
    """A loopback site that, fetched without the user's session, shows the login wall."""
    pages = {"/story": story(1, wall=True)}
    with serve(pages.get) as base:
        yield base, pages


@pytest.mark.slow  # > 5 s here
def test_cli_refresh_keeps_the_logged_in_copy_and_versions_recover_the_rest(
    tmp_path: Path, logged_out: tuple[str, dict[str, str]]
) -> None:
    base, pages = logged_out
    page = tmp_path / "story.html"
    page.write_text(story(12), encoding="utf-8")
    saved = laika_json("capture", str(page), "--url", f"{base}/story")
    source_id = saved["source"]["id"]
    seen = laika_json("sources", "show", source_id)["markdown"]

    refused = laika_json("sources", "refresh", source_id)  # the site is on this machine
    assert refused["job"]["status"] == "failed"  # at once: a retry would be refused again
    assert "is a loopback address (127.0.0.1)" in refused["job"]["last_error"]
    assert "--allow-private-address" in refused["job"]["last_error"]
    assert laika_json("sources", "refresh", source_id, "--allow-private-address")["outcome"]
    allowed = run_laika("config", "set", "capture.allow_private_addresses", "true")
    assert allowed.returncode == 0, allowed.stderr  # from now on, as the user set it
    kept = laika_json("sources", "refresh", source_id)
    assert kept["outcome"] == "kept"
    assert "paywall_or_login" in kept["reason"]
    assert kept["job"]["status"] == "succeeded"
    assert kept["job"]["outcome"] == "kept"
    assert kept["job"]["outcome_reason"] == kept["reason"]
    assert laika_json("sources", "show", source_id)["markdown"] == seen
    text = run_laika("sources", "refresh", source_id)
    assert text.returncode == 0
    assert "kept" in text.stdout
    assert "paywall_or_login" in text.stdout
    assert f"to replace it anyway: laika sources refresh {source_id} --force" in text.stdout

    pages["/story"] = story(12, edition=1)  # a real new edition replaces it
    updated = laika_json("sources", "refresh", source_id)
    assert updated["outcome"] == "updated"
    pages["/story"] = story(2, edition=2)  # much shorter: kept unless forced
    assert laika_json("sources", "refresh", source_id)["outcome"] == "kept"
    forced = laika_json("sources", "refresh", source_id, "--force")
    assert forced["outcome"] == "updated"

    versions = laika_json("sources", "versions", source_id)["versions"]
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert versions[-1]["current"] is True
    first = laika_json("sources", "show", source_id, "--version", "1")
    assert first["markdown"] == seen
    plain = run_laika("sources", "show", source_id, "--version", "1")
    assert plain.stdout.strip() == seen.strip()
    listing = run_laika("sources", "versions", source_id)
    assert listing.returncode == 0
    assert "current" in listing.stdout
    missing = run_laika("sources", "show", source_id, "--version", "9")
    assert missing.returncode == 1
    assert "sources versions" in missing.stderr  # the error says where to look


# --- the host -----------------------------------------------------------------------------


@pytest.mark.slow  # > 3 s with the cores busy
def test_host_add_url_on_a_saved_page_keeps_it_and_reports_why(
    tmp_path: Path, logged_out: tuple[str, dict[str, str]]
) -> None:
    base, _ = logged_out
    allow_private_addresses(tmp_path)  # the site is on this machine
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        saved = client.call("sources.save_page", {"url": f"{base}/story", "html": story(12)})
        assert saved["ok"], saved
        source_id = saved["result"]["source"]["id"]
        seen = client.call("sources.get", {"source_id": source_id})["result"]["markdown"]
        again = client.call(
            "sources.save_page", {"url": f"{base}/story", "html": story(1, wall=True)}
        )
        assert again["result"]["outcome"] == "kept"
        assert "paywall_or_login" in again["result"]["reason"]

        added = client.call("sources.add_url", {"url": f"{base}/story"})
        assert added["ok"], added
        ran = client.call("jobs.run", {})
        assert ran["result"]["kept"] == [added["result"]["job"]["id"]]
        job = client.call("jobs.status", {"job_id": added["result"]["job"]["id"]})["result"]
        assert job["outcome"] == "kept"
        assert "paywall_or_login" in job["outcome_reason"]
        assert client.call("sources.get", {"source_id": source_id})["result"]["markdown"] == seen

        replaced = client.call(
            "sources.save_page", {"url": f"{base}/story", "html": story(13, edition=1)}
        )
        assert replaced["result"]["outcome"] == "updated"
        versions = client.call("sources.versions", {"source_id": source_id})["result"]
        assert [v["version"] for v in versions["versions"]] == [1, 2]
        old = client.call("sources.version", {"source_id": source_id, "version": 1})
        assert old["result"]["markdown"] == seen
        nope = client.call("sources.version", {"source_id": source_id, "version": 7})
        assert nope["error"]["code"] == "not_found"
    finally:
        host.kill()
