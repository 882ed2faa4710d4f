"""Many processes on one store, as a user has them: the browser's host answering frames, CLI
captures and asks starting and ending, a job worker. Afterwards the file is whole (`laika db
check --full`) and every source any of them saved is there.

Each worker process opens and closes the store once per operation, as each `laika` command
does: that churn is what turned one process's dropped locks into another's reset WAL
(`held_files`). With the header read beside a live connection, this test failed in most runs
(see the #24 note for the counts); a run is a few hundred operations.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from laika_host.store import open_store
from laika_host.store.health import check_database
from laika_host.store.store import default_db_path

from native_client import HostProcess

WORKER = Path(__file__).with_name("store_worker.py")
ROUNDS = int(os.environ.get("LAIKA_STRESS_ROUNDS", "30"))  # operations per worker process
WORKERS = [("capture", 3), ("ask", 2), ("jobs", 1)]


def _start_worker(db: Path, kind: str, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), "cycle", str(db), kind, str(ROUNDS), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def _drive_host(host: HostProcess, stop: threading.Event, seen: dict[str, Any]) -> None:
    """Frames like a side panel's, until the workers are done: saves, lists, searches."""
    number = 0
    while not stop.is_set():
        number += 1
        page = (
            f"<html><body><article><h1>Host page {number}</h1><p>Saved by the host while "
            f"the command line writes too, topic {number % 11}.</p></article></body></html>"
        )
        for kind, payload in (
            ("sources.save_page", {"url": f"https://host.test/{number}", "html": page}),
            ("search.query", {"query": f"topic {number % 11}"}),
            ("collections.list", {}),
            ("sources.list", {"limit": 20}),
        ):
            reply = host.request({"id": f"{kind}-{number}", "type": kind, "payload": payload}, 120)
            if not reply["ok"]:
                seen.setdefault("errors", []).append(reply)
            elif kind == "sources.save_page":
                seen.setdefault("saved", []).append(reply["result"]["source"]["id"])


async def _prepare(db: Path) -> None:
    async with open_store(db) as store:
        for index in range(3):
            await store.collections.create(f"col{index}")


async def _missing(db: Path, ids: list[str]) -> list[str]:
    async with open_store(db) as store:
        rows = await store.db.fetch_all("SELECT id FROM sources")
    present = {str(row[0]) for row in rows}
    return sorted(set(ids) - present)


@pytest.mark.slow  # a minute or more of several processes
def test_hosts_commands_and_a_job_worker_on_one_store_lose_nothing() -> None:
    db = default_db_path()
    asyncio.run(_prepare(db))
    host = HostProcess(Path(os.environ["LAIKA_HOME"]))
    stop = threading.Event()
    seen: dict[str, Any] = {}
    driver = threading.Thread(target=_drive_host, args=(host, stop, seen), daemon=True)
    driver.start()
    workers = [
        _start_worker(db, kind, seed=index * 10 + copy)
        for index, (kind, copies) in enumerate(WORKERS)
        for copy in range(copies)
    ]
    try:
        reports = []
        for worker in workers:
            out, err = worker.communicate(timeout=900)
            assert worker.returncode == 0, err
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        stop.set()
        driver.join(180)
        host.close()
    errors = [error for report in reports for error in report["errors"]]
    assert not errors, errors[:5]
    assert not seen.get("errors"), seen.get("errors", [])[:3]
    check = asyncio.run(check_database(db, full=True))
    assert check.ok, check.problems
    saved = [i for report in reports for i in report["saved"]] + seen.get("saved", [])
    assert saved
    assert not asyncio.run(_missing(db, saved))
