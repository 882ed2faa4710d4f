"""Store writer processes for the multi-process and crash tests (run as a script).

python store_worker.py write DB PROCESS_INDEX COUNT START_AT
    store COUNT captures at once with the other writers (starting at epoch START_AT);
    prints one JSON line: outcome counts and any errors.
python store_worker.py zygote DB
    import everything once, then fork a churning writer for each "spawn" line read on
    stdin, printing its pid once it has opened the store; the test SIGKILLs the writer at a
    random moment. Only the zygote writes to stdout, one whole line per write: a writer
    that printed there too would interleave with it (with PYTHONUNBUFFERED, print() is two
    writes, the text and then its newline, and a writer ran between them under load).
python store_worker.py cycle DB KIND COUNT SEED
    COUNT times: open the store, do one KIND of work (capture, ask, jobs), close it, as the
    CLI does once per command; prints one JSON line: outcome counts, the ids of the sources
    it saved (every one must survive) and any errors.
python store_worker.py hold DB
    take SQLite's write lock (BEGIN IMMEDIATE), print "locked", hold it until a line arrives
    on stdin, then roll back and exit: another process that blocks every writer.
python store_worker.py poke DB SECONDS
    take and release the write lock, waiting at most SECONDS; prints "ok" or the error.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import sys
import time
from pathlib import Path

from laika_host.capture import Capture, capture_html
from laika_host.service.ask import AskOptions, ask
from laika_host.store import Store, open_store

PAGES = 250
COLLECTIONS = 3


def page_html(page: int, revision: int = 0) -> bytes:
    words = " ".join(f"word{(page * 7 + i) % 97}" for i in range(60))
    return (
        f"<html><head><title>Page {page}</title></head><body><article><h1>Page {page}</h1>"
        f"<p>Revision {revision} of page {page}. {words}.</p>"
        f"<p>Second paragraph of page {page} with more text about topic {page % 11}.</p>"
        "</article></body></html>"
    ).encode()


def page_url(page: int, process: int) -> str:
    """The same page reached through different tracking links, host cases and fragments."""
    variants = [
        f"https://site.test/page/{page}?utm_source=p{process}",
        f"https://SITE.test/page/{page}/#top",
        f"https://site.test:443/page/{page}?fbclid=x{process}",
        f"https://site.test/page/{page}",
    ]
    return variants[process % len(variants)]


def plan(process: int, count: int) -> list[tuple[str, int]]:
    """(collection, page) for each write of one process; processes overlap on purpose."""
    return [(f"col{(i + process) % COLLECTIONS}", i % PAGES) for i in range(count)]


async def write(db: Path, process: int, count: int, start_at: float) -> dict[str, object]:
    captures: dict[int, Capture] = {}
    for _, page in plan(process, count):
        if page not in captures:
            captures[page] = capture_html(page_html(page), page_url(page, process))
    outcomes: dict[str, int] = {}
    errors: list[str] = []
    async with open_store(db) as store:
        time.sleep(max(0.0, start_at - time.time()))
        for collection, page in plan(process, count):
            try:
                saved = await store.sources.save_capture(collection, captures[page])
                outcomes[saved.outcome] = outcomes.get(saved.outcome, 0) + 1
            except Exception as error:  # reported to the test, which fails on any
                errors.append(f"{type(error).__name__}: {error}")
    return {"process": process, "outcomes": outcomes, "errors": errors}


async def churn(db: Path, seed: int, ready: int) -> None:
    """Write forever: new and changed captures, queued, claimed and finished jobs, chat.
    Closing the `ready` pipe tells the zygote the store is open."""
    rng = random.Random(seed)
    async with open_store(db, recover_jobs=False) as store:
        os.close(ready)
        revision = seed
        while True:
            revision += 1
            page = rng.randrange(40)
            capture = capture_html(page_html(page, revision % 3), f"https://site.test/page/{page}")
            saved = await store.sources.save_capture(f"col{page % COLLECTIONS}", capture)
            job = await store.jobs.queue(saved.source.id)
            claimed = await store.jobs.claim()
            if claimed is not None and rng.random() < 0.5:
                await store.jobs.complete(claimed.id)
            await store.chat.append(saved.source.collection_id, "user", f"note {revision}")
            if rng.random() < 0.1 and (await store.jobs.get(job.id)).status == "queued":
                await store.jobs.cancel(job.id)


async def cycle(db: Path, kind: str, count: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    outcomes: dict[str, int] = {}
    saved: list[str] = []
    errors: list[str] = []
    for turn in range(count):
        try:
            async with open_store(db, recover_jobs=kind == "jobs") as store:
                outcome = await _one(store, kind, rng, turn, saved)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        except Exception as error:  # reported to the test, which fails on any
            errors.append(f"{type(error).__name__}: {error}")
    return {"kind": kind, "outcomes": outcomes, "saved": saved, "errors": errors}


async def _one(store: Store, kind: str, rng: random.Random, turn: int, saved: list[str]) -> str:
    page = rng.randrange(PAGES)
    collection = f"col{page % COLLECTIONS}"
    if kind == "capture":
        capture = capture_html(page_html(page, turn % 3), page_url(page, rng.randrange(4)))
        result = await store.sources.save_capture(collection, capture)
        saved.append(result.source.id)
        return result.outcome
    if kind == "ask":
        answer = await ask(store, f"What is topic {page % 11} about?", AskOptions(collection))
        return "answered" if answer.answer_markdown else "empty"
    sources = await store.sources.list(limit=5)
    if sources:
        await store.jobs.queue(sources[0].id)
    claimed = await store.jobs.claim()
    if claimed is None:
        return "idle"
    await store.jobs.complete(claimed.id)
    return "completed"


async def _open_once(db: Path) -> None:
    async with open_store(db, recover_jobs=False):
        pass


def zygote(db: Path) -> None:
    # Warm what a writer does first (capture's lazy imports and first-call setup, the store's
    # schema check) so a forked writer writes within the test's kill window even on a busy
    # machine, instead of being killed while still warming up every time.
    capture_html(page_html(0), "https://site.test/page/0")
    asyncio.run(_open_once(db))
    for line in sys.stdin:
        if line.strip() != "spawn":
            continue
        seed = random.randrange(1 << 30)
        wait_for, ready = os.pipe()
        pid = os.fork()
        if pid == 0:
            sys.stdin.close()
            os.close(wait_for)
            asyncio.run(churn(db, seed, ready))
            os._exit(0)
        os.close(ready)
        os.read(wait_for, 1)  # EOF: the writer opened the store (or died trying)
        os.close(wait_for)
        os.write(sys.stdout.fileno(), f"{pid}\n".encode())  # one write: one whole line
        reap_children()


def reap_children() -> None:
    """Collect children that were killed, so they do not linger as zombies."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def hold(db: Path) -> None:
    connection = sqlite3.connect(db, isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    print("locked", flush=True)
    sys.stdin.readline()
    connection.execute("ROLLBACK")
    connection.close()


def poke(db: Path, seconds: float) -> None:
    connection = sqlite3.connect(db, isolation_level=None, timeout=seconds)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
        print("ok", flush=True)
    except sqlite3.Error as error:
        print(f"{type(error).__name__}: {error}", flush=True)
    finally:
        connection.close()


def main() -> None:
    mode, db = sys.argv[1], Path(sys.argv[2])
    if mode == "write":
        process, count, start_at = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
        print(json.dumps(asyncio.run(write(db, process, count, start_at))), flush=True)
    elif mode == "cycle":
        kind, count, seed = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        print(json.dumps(asyncio.run(cycle(db, kind, count, seed))), flush=True)
    elif mode == "zygote":
        zygote(db)
    elif mode == "hold":
        hold(db)
    elif mode == "poke":
        poke(db, float(sys.argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
