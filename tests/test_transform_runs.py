"""Transform runs on a real store: identical runs reuse or join one artifact, a changed or
deleted source makes it stale, and a run whose process is killed mid-way is failed with its
reason (and its items) the next time the store opens, never left `running`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from laika_host.capture import capture_html
from laika_host.demo.pages import PAGES
from laika_host.store import open_store
from laika_host.store.ids import now_ms
from laika_host.transform import get_artifact, run_transform

from llm_servers import ProviderServer, Reply, openai_sse
from support import laika_executable, run_laika

TIDES_CHANGED = PAGES[0].html.replace("twice a day", "two times every day")


def seed(db: Path, collection: str = "Demo") -> dict[str, str]:
    async def main() -> dict[str, str]:
        async with open_store(db) as store:
            ids = {}
            for page in PAGES:
                saved = await store.sources.save_capture(
                    collection, capture_html(page.html.encode(), page.url)
                )
                ids[page.url] = saved.source.id
            return ids

    return asyncio.run(main())


def run(db: Path, type_id: str = "summary", config: Any = None, **kwargs: Any) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with open_store(db) as store:
            return (await run_transform(store, "Demo", type_id, config, **kwargs)).to_json()

    return asyncio.run(main())


def view(db: Path, artifact_id: str) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with open_store(db) as store:
            return await get_artifact(store, artifact_id)

    return asyncio.run(main())


def test_identical_runs_reuse_force_makes_new_and_config_is_part_of_the_key(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    seed(db)
    first = run(db)
    again = run(db)
    assert (first["reused"], again["reused"]) == (False, True)
    assert again["artifact"]["id"] == first["artifact"]["id"]
    forced = run(db, force=True)
    assert forced["reused"] is False
    assert forced["artifact"]["id"] != first["artifact"]["id"]
    assert forced["artifact"]["dedupe_key"] == first["artifact"]["dedupe_key"]
    other = run(db, config={"length": "short"})
    assert other["artifact"]["dedupe_key"] != first["artifact"]["dedupe_key"]
    same_config_spelled_out = run(db, config={"audience": "general reader", "length": "medium"})
    assert same_config_spelled_out["reused"] is True  # canonical config: defaults are defaults


def test_a_changed_or_deleted_source_makes_the_artifact_stale(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    built = run(db)["artifact"]
    assert built["stale"] is False

    async def refresh() -> None:
        async with open_store(db) as store:
            saved = await store.sources.save_capture(
                "Demo", capture_html(TIDES_CHANGED.encode(), PAGES[0].url)
            )
            assert saved.outcome == "updated"

    asyncio.run(refresh())
    shown = view(db, built["id"])
    assert shown["stale"] is True
    assert shown["stale_sources"] == [{"source_id": ids[PAGES[0].url], "reason": "changed"}]
    rebuilt = run(db)
    assert rebuilt["reused"] is False  # the content changed: a new key
    assert rebuilt["artifact"]["stale"] is False

    async def delete() -> None:
        async with open_store(db) as store:
            await store.sources.delete(ids[PAGES[1].url])

    asyncio.run(delete())
    assert view(db, rebuilt["artifact"]["id"])["stale_sources"] == [
        {"source_id": ids[PAGES[1].url], "reason": "deleted"}
    ]


KILLED_RUN = """
import asyncio, sys
from pathlib import Path
from laika_host.llm.config import ProviderConfig
from laika_host.store import open_store
from laika_host.transform import run_transform

async def main():
    provider = ProviderConfig(
        id="rec", kind="openai_compatible", model="m", base_url=sys.argv[2], context_window=16000
    )
    async with open_store(Path(sys.argv[1])) as store:
        await run_transform(store, "Demo", "key-takeaways", provider=provider)

asyncio.run(main())
"""


def test_a_run_killed_mid_way_is_failed_with_its_reason_on_the_next_open(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    quote = "A sourdough starter is a paste of flour and water"
    line = json.dumps(
        {
            "text": "Starters are flour and water.",
            "citations": [{"source_id": ids[PAGES[1].url], "quote": quote}],
        }
    )
    server = ProviderServer([Reply(chunks=openai_sse([line + "\n"] * 200), delay_between=0.1)])
    child = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(db), server.url])
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            row = _active(db)
            if row is not None and row[1] >= 2:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the child never got going")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        server.close()
    artifact_id = row[0]
    assert _status(db, artifact_id) == "running"  # as the dead process left it

    shown = view(db, artifact_id)  # opening the store resolves it
    assert shown["status"] == "failed"
    assert shown["error"].startswith(f"interrupted: the process making it (pid {child.pid})")
    assert "Run it again" in shown["error"]
    assert len(shown["items"]) >= 2  # what it had saved is kept
    assert shown["partial"] is True
    assert shown["owner"] is None
    again = run(db, "key-takeaways")  # and the same run can be made again
    assert again["status"] == "completed"
    assert again["artifact"]["id"] != artifact_id


def _active(db: Path) -> tuple[str, int] | None:
    with contextlib.closing(sqlite3.connect(db, timeout=5)) as connection, connection:
        found = connection.execute(
            "SELECT id, json_array_length(items_json) FROM artifacts WHERE status = 'running'"
        ).fetchone()
    return (found[0], found[1]) if found else None


def _status(db: Path, artifact_id: str) -> str:
    with contextlib.closing(sqlite3.connect(db, timeout=5)) as connection, connection:
        (status,) = connection.execute(
            "SELECT status FROM artifacts WHERE id = ?", (artifact_id,)
        ).fetchone()
    return str(status)


def test_a_run_whose_heartbeat_stopped_on_another_machine_is_failed_and_a_live_one_is_not(
    tmp_path: Path,
) -> None:
    db = tmp_path / "laika.db"
    seed(db)

    async def main() -> tuple[list[str], str, str]:
        async with open_store(db) as store:
            collection = await store.collections.get("Demo")
            made = []
            for key, beat in (("old", now_ms() - 10 * 60_000), ("fresh", now_ms())):
                artifact = await store.artifacts.create(
                    collection.id, "summary", key, dedupe_key=key, owner="elsewhere:1:1:x"
                )
                await store.db.connection.execute(
                    "UPDATE artifacts SET heartbeat_at = ? WHERE id = ?", (beat, artifact.id)
                )
                made.append(artifact.id)
            recovered = await store.artifact_runs.recover()
            old, fresh = [await store.artifacts.get(i) for i in made]
            return recovered, old.status, fresh.status

    recovered, old, fresh = asyncio.run(main())
    assert (old, fresh) == ("failed", "pending")
    assert len(recovered) == 1


def test_two_concurrent_cli_runs_give_one_artifact(tmp_path: Path) -> None:
    seed(Path(os.environ["LAIKA_HOME"]) / "laika.db")
    command = [laika_executable(), "transform", "run", "report", "-c", "Demo", "--json"]
    children = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [child.communicate(timeout=60) for child in children]
    assert [child.returncode for child in children] == [0, 0], outputs
    results = [json.loads(out) for out, _ in outputs]
    assert len({r["artifact"]["id"] for r in results}) == 1
    assert sorted(r["reused"] or r["joined"] for r in results) == [False, True]
    with (
        contextlib.closing(
            sqlite3.connect(Path(os.environ["LAIKA_HOME"]) / "laika.db")
        ) as connection,
        connection,
    ):
        (count,) = connection.execute("SELECT count(*) FROM artifacts").fetchone()
    assert count == 1


def test_the_cli_lists_types_and_refuses_bad_input_with_the_fix() -> None:
    from support import run_laika

    listed = run_laika("transform", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    types = {t["id"]: t for t in json.loads(listed.stdout)["types"]}
    assert len(types) == 22
    assert types["quiz"]["config_schema"]["properties"]["count"]["maximum"] == 50
    human = run_laika("transform", "list")
    assert "citation-list" in human.stdout
    assert 'style="apa"' in human.stdout
    assert "instructions (required)" in human.stdout  # custom cannot run without them
    assert "aspects (optional)" in human.stdout  # a comparison finds its own
    assert "aspects (required)" not in human.stdout
    bad = run_laika("transform", "run", "quiz", "-c", "Nowhere", "--config", "count=x")
    assert bad.returncode == 1
    assert "quiz: count" in bad.stderr
    assert "laika transform list --json" in bad.stderr
    malformed = run_laika("transform", "run", "quiz", "--config", "count")
    assert malformed.returncode == 2
    assert "key=value" in malformed.stderr


def test_a_save_cut_short_by_a_cancel_at_any_point_loses_and_repeats_no_item(
    tmp_path: Path,
) -> None:
    """Cancel the sink's save after 0, 1, 2, ... loop turns (before, inside, after its
    transaction): the next save still leaves exactly the sink's items, once each."""
    from laika_host.transform.items import Bullet
    from laika_host.transform.sink import ItemSink

    db = tmp_path / "laika.db"
    seed(db)

    async def main() -> list[tuple[int, int, int]]:
        outcomes = []
        async with open_store(db) as store:
            collection = await store.collections.get("Demo")
            for turns in range(0, 40, 2):
                artifact = await store.artifacts.create(
                    collection.id, "summary", "t", dedupe_key=f"k{turns}"
                )
                sink = ItemSink(store, artifact.id, [])
                for number in range(3):
                    await sink.add(Bullet(text=f"first {number}"))
                await sink.save()
                for number in range(3):
                    await sink.add(Bullet(text=f"second {number}"))
                task = asyncio.create_task(sink.save())
                for _ in range(turns):
                    await asyncio.sleep(0)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                await sink.add(Bullet(text="third"))
                await sink.save()
                stored = (await store.artifacts.get(artifact.id)).items
                texts = [item["data"]["text"] for item in stored]
                outcomes.append((turns, len(texts), len(set(texts))))
                assert texts == [item.data["text"] for item in sink.items], turns
        return outcomes

    outcomes = asyncio.run(main())
    assert all(count == unique == 7 for _, count, unique in outcomes)


def test_a_stale_artifact_shows_the_command_that_rebuilds_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    db = home / "laika.db"
    seed(db)
    config = {"length": "short", "audience": 'a ship\'s "pilot"'}  # quotes in a value
    built = run(db, "key-takeaways", config)["artifact"]

    async def refresh() -> None:
        async with open_store(db) as store:
            await store.sources.save_capture(
                "Demo", capture_html(TIDES_CHANGED.encode(), PAGES[0].url)
            )

    asyncio.run(refresh())
    env = {**os.environ, "LAIKA_HOME": str(home)}
    shown = run_laika("artifacts", "show", built["id"], env=env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    line = next(x for x in shown.stderr.splitlines() if "build it again: " in x)
    assert "stale since it was built (" in line
    assert " changed)" in line
    command = shlex.split(line.split("build it again: ", 1)[1])
    assert command[:4] == ["laika", "transform", "run", "key-takeaways"]
    rebuilt = run_laika(*command[1:], "--json", env=env, cwd=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    artifact = json.loads(rebuilt.stdout)["artifact"]
    assert artifact["config"] == built["config"]  # the same settings, spelled back exactly
    assert artifact["stale"] is False
    assert artifact["id"] != built["id"]
