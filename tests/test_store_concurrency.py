"""The store under several OS processes at once, and under SIGKILL at random points."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from laika_host.store import open_store
from laika_host.store.worker import run_due_jobs

from html_server import serve
from store_worker import COLLECTIONS, PAGES, page_html, plan

WORKER = Path(__file__).with_name("store_worker.py")
PROCESSES = 4
WRITES = 500
KILLS = 100


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(WORKER.parent)}


@pytest.mark.slow  # > 5 s here
def test_four_processes_store_500_captures_each_without_a_lock_error(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    start_at = time.time() + 4  # all four start writing together, after their imports
    writers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "write", str(db), str(k), str(WRITES), str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for k in range(PROCESSES)
    ]
    reports = []
    for writer in writers:
        out, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
        assert "locked" not in err
        reports.append(json.loads(out))
    assert all(report["errors"] == [] for report in reports), reports
    expected = {pair for k in range(PROCESSES) for pair in plan(k, WRITES)}
    outcomes = [report["outcomes"] for report in reports]
    new = sum(o.get("new", 0) for o in outcomes)
    unchanged = sum(o.get("unchanged", 0) for o in outcomes)
    assert new == len(expected), outcomes  # each (collection, page) inserted exactly once
    assert new + unchanged == PROCESSES * WRITES  # every other write was a counted duplicate

    async def check() -> None:
        async with open_store(db) as store:
            rows = await store.db.fetch_all(
                "SELECT c.title, s.normalized_url FROM sources s "
                "JOIN collections c ON c.id = s.collection_id"
            )
            stored = {(row["title"], row["normalized_url"]) for row in rows}
            wanted = {(c, f"https://site.test/page/{p}") for c, p in expected}
            assert stored == wanted
            assert len(rows) == len(wanted)
            assert await store.integrity_check() == ["ok"]

    asyncio.run(check())
    assert len(expected) <= COLLECTIONS * PAGES


def _fetch_from(base: str) -> Callable[[str], tuple[bytes, str]]:
    """A capture-job fetch that reads the pages from the loopback server at `base`."""

    def fetch(url: str) -> tuple[bytes, str]:
        import httpx

        response = httpx.get(url.replace("https://site.test", base), timeout=10)
        response.raise_for_status()
        return response.content, url

    return fetch


def _page_for(path: str) -> bytes:
    return page_html(int(path.rstrip("/").rsplit("/", 1)[-1]), revision=9)


@pytest.mark.slow  # > 5 s here
def test_sigkill_at_random_points_leaves_a_consistent_store_and_resumable_jobs(
    tmp_path: Path,
) -> None:
    db = tmp_path / "laika.db"
    asyncio.run(_open_and_close(db))
    zygote = subprocess.Popen(
        [sys.executable, str(WORKER), "zygote", str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
        start_new_session=True,  # its writers share its process group: one kill ends them all
    )
    assert zygote.stdin is not None
    assert zygote.stdout is not None
    rng = random.Random(20261122)
    try:
        for _ in range(KILLS):
            zygote.stdin.write("spawn\n")
            zygote.stdin.flush()
            line = zygote.stdout.readline()  # the writer's pid, once its store is open
            assert line.strip().isdigit(), line
            pid = int(line)
            time.sleep(rng.uniform(0.0, 0.25))  # somewhere inside a write, or between writes
            os.kill(pid, signal.SIGKILL)
    finally:
        zygote.stdin.close()
        zygote.wait(30)
        _kill_group(zygote.pid)  # a writer spawned before a failed assertion would write on

    async def check() -> tuple[dict[str, int], dict[str, int]]:
        async with open_store(db, recover_jobs=False) as store:
            assert await store.integrity_check() == ["ok"]
            await _assert_no_half_written_source(store)
            before = await store.jobs.counts()
            recovered = await store.jobs.recover()  # what a new process does on open
            assert recovered == before.get("running", 0)
            with serve(_page_for) as base:
                await run_due_jobs(store, fetch=_fetch_from(base))
            after = await store.jobs.counts()
            await _assert_no_half_written_source(store)
            assert await store.integrity_check() == ["ok"]
            return before, after

    before, after = asyncio.run(check())
    assert before.get("queued", 0) + before.get("running", 0) > 0, before  # work was pending
    assert after.get("queued", 0) == after.get("running", 0) == 0, after  # ... and it resumed
    assert after.get("failed", 0) == 0, after


def _kill_group(group: int) -> None:
    """SIGKILL whatever is left of a process group (nothing, when the test went well)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)


async def _open_and_close(db: Path) -> None:
    async with open_store(db):
        pass


async def _assert_no_half_written_source(store: object) -> None:
    import hashlib

    from laika_host.store import Store

    assert isinstance(store, Store)
    rows = await store.db.fetch_all("SELECT * FROM sources")
    assert rows
    for row in rows:
        assert row["capture_status"] == "captured"
        markdown = row["capture_markdown"]
        assert markdown
        assert row["capture_text"]
        assert hashlib.sha256(markdown.encode()).hexdigest() == row["content_hash"]
        provenance = json.loads(row["provenance_json"])
        assert provenance["origin"] in {"cli", "job"}
    hits = await store.search.query("second paragraph")
    assert len(hits) == min(len(rows), 20)
