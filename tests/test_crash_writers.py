"""kill -9 of a writer in the middle of its write, for the writers the store tests do not
already kill (capture: `test_store_concurrency`; a transform run: `test_transform_runs`): a
settings registry write (file, lock and git history) and an event rule's action (a tool run
by the engine, recorded in `tool_calls`). Afterwards nothing that was committed is lost, the
next write works, and every command still answers.

A child writes in a loop and prints each write once it returned (committed); the test kills
it at a random moment, several times over, then checks with the real `laika` commands.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import run_laika

KILLS = 6

SETTINGS_WRITER = """
import sys
from laika_host.service import config
start = int(sys.argv[1])
for number in range(start, start + 10_000):
    config.set_value("capture.max_chars", 10_000 + number, who="cli")
    print(number, flush=True)
"""

RULE_WRITER = """
import asyncio, sys
from laika_host.service.collections import create_collection
from laika_host.store import open_store

async def main(start: int) -> None:
    async with open_store() as store:
        for number in range(start, start + 10_000):
            await create_collection(store, f"Shelf {number}")
            print(number, flush=True)

asyncio.run(main(int(sys.argv[1])))
"""


def _kill_mid_write(script: str, start: int, rng: random.Random) -> int | None:
    """Run `script` from `start`, kill it once it has written at least once, at a random
    moment; the last number it reported done (None if it reported none)."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(start)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert child.stdout is not None
    first = child.stdout.readline()  # it writes from here on
    assert first.strip().isdigit(), first + (child.stderr.read() if child.stderr else "")
    time.sleep(rng.uniform(0.0, 0.4))
    os.kill(child.pid, signal.SIGKILL)
    out, _ = child.communicate(timeout=30)
    done = [int(line) for line in [first, *out.splitlines()] if line.strip().isdigit()]
    return done[-1] if done else None


def _ok(*args: str) -> str:
    done = run_laika(*args)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


@pytest.mark.slow  # several child processes
def test_a_settings_write_killed_mid_way_loses_no_committed_change() -> None:
    rng = random.Random(2026_11_27)
    start = 0
    for _ in range(KILLS):
        last = _kill_mid_write(SETTINGS_WRITER, start, rng)
        assert last is not None
        value = json.loads(_ok("config", "get", "capture.max_chars"))
        # the last write it reported is kept; the one it was inside may have landed too
        assert value in (10_000 + last, 10_000 + last + 1), (value, last)
        history = _ok("config", "history", "capture.max_chars", "--json")
        assert json.loads(history)  # the history reads, with the change in it
        start = last + 2
        _ok("config", "set", "capture.max_chars", str(10_000 + start))  # the next write works
        start += 1
    assert json.loads(_ok("config", "get", "capture.max_chars")) == 10_000 + start - 1


@pytest.mark.slow  # several child processes
def test_a_rule_action_killed_mid_way_leaves_a_whole_store_and_the_next_write_works() -> None:
    _ok("rules", "add", "shadow", "--on", "collection.created",
        "--do", "collection.create title=$event.title copy")  # fmt: skip
    rng = random.Random(2026_11_28)
    start = 0
    reported: list[int] = []
    for _ in range(KILLS):
        last = _kill_mid_write(RULE_WRITER, start, rng)
        assert last is not None
        reported.extend(range(start, last + 1))
        start = last + 2  # the one it was inside may or may not be there
    check = json.loads(_ok("db", "check", "--full", "--json"))
    assert check["ok"], check
    titles = _titles()
    for number in reported:  # every create it reported, and its rule's copy
        assert f"Shelf {number}" in titles
        assert f"Shelf {number} copy" in titles
    _ok("collections", "create", "Shelf after")
    assert {"Shelf after", "Shelf after copy"} <= _titles()


def _titles() -> set[str]:
    db = Path(os.environ["LAIKA_HOME"]) / "laika.db"
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return {str(row[0]) for row in connection.execute("SELECT title FROM collections")}


@pytest.mark.slow  # mounts a filesystem
def test_a_settings_change_on_a_full_disk_says_so_and_keeps_the_settings(tmp_path: Path) -> None:
    from test_store_failures import fill_disk, tiny_tmpfs

    with tiny_tmpfs(tmp_path / "disk") as home:
        env = {**os.environ, "LAIKA_HOME": str(home)}
        assert run_laika("config", "set", "capture.max_chars", "30000", env=env).returncode == 0
        registry = home / "config" / "registry.json"
        before = registry.read_bytes()
        filler = fill_disk(home)
        full = run_laika("config", "set", "capture.max_chars", "40000", env=env)
        assert full.returncode != 0
        assert "Traceback" not in full.stderr
        assert "full" in full.stderr.lower(), full.stderr
        assert "free some space" in full.stderr.lower(), full.stderr
        assert registry.read_bytes() == before  # nothing already saved is lost
        filler.unlink()
        again = run_laika("config", "set", "capture.max_chars", "40000", env=env)
        assert again.returncode == 0, again.stderr
        assert run_laika("config", "get", "capture.max_chars", env=env).stdout.strip() == "40000"
        history = run_laika("config", "history", "--json", env=env)
        assert history.returncode == 0, history.stderr
