"""Cancelling a write at any moment leaves no transaction open (issue 12, finding 3).

aiosqlite runs each statement in its own thread, which keeps going after the awaiting task
is cancelled: a `BEGIN IMMEDIATE` waiting for another process's lock succeeds later, and
unless someone rolls it back, the file stays locked for every process. These tests land the
cancel at random points (waiting for the lock, in BEGIN, in the body, at COMMIT) on real files,
and then check that another connection can write at once and that the same store still can.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.capture import capture_html
from laika_host.store import open_store

from native_client import Client, HostProcess
from store_worker import page_html

WORKER = Path(__file__).with_name("store_worker.py")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(WORKER.parent)}


def _can_write_at_once(db: Path) -> bool:
    """Another connection takes the write lock without waiting (it is a separate lock owner,
    as another process is)."""
    other = sqlite3.connect(db, isolation_level=None, timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


@pytest.mark.slow  # > 3 s with the cores busy
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    locked=st.booleans(),
    cancel_after=st.floats(0, 0.03),
    release_after=st.floats(0, 0.03),
    revision=st.integers(0, 3),
)
def test_a_write_cancelled_anywhere_leaves_no_transaction_open(
    tmp_path: Path, locked: bool, cancel_after: float, release_after: float, revision: int
) -> None:
    db = tmp_path / "laika.db"
    capture = capture_html(page_html(1, revision), "https://site.test/page/1")

    async def scenario() -> None:
        async with open_store(db) as store:
            holder = sqlite3.connect(db, isolation_level=None, timeout=0)
            if locked:
                holder.execute("BEGIN IMMEDIATE")
            task = asyncio.create_task(store.sources.save_capture("Coast", capture))
            await asyncio.sleep(cancel_after)
            task.cancel()
            if locked:
                await asyncio.sleep(release_after)
                holder.execute("ROLLBACK")
            holder.close()
            with contextlib.suppress(asyncio.CancelledError):
                await task  # it may also have finished before the cancel landed
            assert not store.db.connection.in_transaction
            assert _can_write_at_once(db)
            await store.collections.create(f"after {time.monotonic_ns()}")  # the same store
            assert _can_write_at_once(db)

    asyncio.run(scenario())


def _replies(host: HostProcess, ids: set[str], timeout: float = 30.0) -> dict[str, Any]:
    """The final reply of each id in `ids`, whatever order they come in."""
    found: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    while set(found) != ids:
        message = host.recv(timeout=max(0.1, deadline - time.monotonic()))
        if message.get("id") in ids and "ok" in message:
            found[message["id"]] = message
    return found


@pytest.mark.slow  # > 5 s here
def test_a_cancelled_locked_write_in_the_host_frees_the_file_for_every_process(
    tmp_path: Path,
) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    db = tmp_path / "laika.db"
    try:
        assert client.call("collections.create", {"title": "Before"})["ok"]
        rounds = iter(range(1000))

        @settings(max_examples=8, deadline=None)
        @given(cancel_after=st.floats(0, 0.8), release_after=st.floats(0, 0.5))
        def cancel_while_locked(cancel_after: float, release_after: float) -> None:
            n = next(rounds)
            holder = subprocess.Popen(
                [sys.executable, str(WORKER), "hold", str(db)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=_env(),
            )
            assert holder.stdout is not None
            assert holder.stdin is not None
            assert holder.stdout.readline().strip() == "locked"
            host.send({"id": f"w{n}", "type": "collections.create", "payload": {"title": f"T{n}"}})
            time.sleep(cancel_after)
            host.send({"id": f"c{n}", "type": "host.cancel", "payload": {"target_id": f"w{n}"}})
            time.sleep(release_after)
            holder.stdin.write("\n")
            holder.stdin.flush()
            assert holder.wait(10) == 0
            replies = _replies(host, {f"w{n}", f"c{n}"})
            assert replies[f"c{n}"]["ok"], replies
            assert replies[f"w{n}"]["error"]["code"] == "cancelled", replies
            poke = subprocess.run(
                [sys.executable, str(WORKER), "poke", str(db), "1.0"],
                capture_output=True,
                text=True,
                env=_env(),
                timeout=30,
                check=True,
            )
            assert poke.stdout.strip() == "ok", poke  # (a) another process writes at once
            after = client.call("collections.create", {"title": f"After{n}"})
            assert after["ok"], after  # (b) the same session writes
            titles = {c["title"] for c in client.call("collections.list")["result"]["collections"]}
            assert f"T{n}" not in titles  # the cancelled write did not happen

        cancel_while_locked()
    finally:
        host.kill()
