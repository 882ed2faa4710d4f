"""Search and pack cost as a collection grows to 50,000 sources (issue 26, item 7).

    .venv/bin/python bench/scale.py [--sizes 15000,50000] [--from DB] [--keep DIR]
        [--corpus DIR] [--runs 3]

One collection grows in one store: the 226 capture-dev pages that have a question in
`bench/data/retrieval_questions.json`, spread among synthetic distractor articles made as
`bench/retrieval.py` makes them (paragraphs of the other capture-dev pages recombined, 1-12k
characters), stored through `Sources.save_capture`, one transaction each as the host saves a
capture. `--from DB` starts from a store `bench/retrieval.py --keep` left (its phase1.db:
10,226 sources) and adds distractors from there. At each size the passage index is brought
up to date (timed), then for each of the 226 answerable questions, `--runs` times:

- search: the product's passage search (`PassageIndex.search`, bm25 over passages, OR of the
  question's words, the collection filter on), wall time;
- pack: the whole pack step `laika ask` runs for an 8,192-token window (`flows._pack`:
  search, read the matched sources, rerank, pack), wall time; and whether the evidence
  sentence reached the pack;
- the peer, plain FTS5 over the same file: bm25 over whole sources (the store's own
  `sources_fts`, title and text), OR of the question's words, top 50, on its own connection.

Printed: p50 and p95 of each, the ratio to the peer, and whether the goals hold: search p95
<= 20 ms at 50k and flat from 15k to 50k (p95 at 50k within 1.5x of 15k), pack p95 <= 100 ms
at 50k. Wall time on a shared machine is noisy: run it alone. Building 50,000 sources takes
about 15-25 minutes on 2 cores; `--keep` keeps the store for a second run (`--from`).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import retrieval as rb  # bench/retrieval.py: this script's folder is on sys.path

ROOT = Path(__file__).resolve().parents[1]
WINDOW = 8_192
PEER_LIMIT = 50
_WORD = re.compile(r"[^\W_]+")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def peer_query(db: sqlite3.Connection, question: str) -> float:
    """Plain FTS5 over whole sources: every word OR-ed, bm25, top 50; its wall time in ms."""
    words = dict.fromkeys(w.lower() for w in _WORD.findall(question))
    query = " OR ".join(f'"{word}"' for word in words)
    started = time.perf_counter()
    db.execute(
        "SELECT rowid FROM sources_fts WHERE sources_fts MATCH ? ORDER BY bm25(sources_fts) "
        "LIMIT ?",
        (query, PEER_LIMIT),
    ).fetchall()
    return (time.perf_counter() - started) * 1000


async def grow(store: Any, entries: Any, count: int) -> float:
    """Store `count` more entries; the seconds it took."""
    started = time.perf_counter()
    for _ in range(count):
        _page, capture = next(entries)
        await store.sources.save_capture(rb.COLLECTION, capture)
    return time.perf_counter() - started


async def measure(
    store: Any, db: Path, questions: list[dict[str, Any]], runs: int
) -> dict[str, Any]:
    from laika_host.agent import flows

    collection = await store.collections.get(rb.COLLECTION)
    budget = rb.budgets()[WINDOW]
    started = time.perf_counter()
    indexed = await store.passages.catch_up()
    index_s = time.perf_counter() - started
    peer = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    search, pack, theirs, reached = [], [], [], 0
    for run in range(runs):
        for question in questions:
            text = question["question"]
            started = time.perf_counter()
            await store.passages.search(text, collection_id=collection.id)
            search.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            packed = await flows._pack(store, collection.id, collection.title, text, budget)
            pack.append((time.perf_counter() - started) * 1000)
            theirs.append(peer_query(peer, text))
            if run == 0:
                reached += rb.reached(question["evidence"], packed.documents)
    peer.close()
    return {
        "sources": await store.sources.captured_count(collection.id),
        "indexed": indexed,
        "index_s": index_s,
        "search": search,
        "pack": pack,
        "peer": theirs,
        "reached": reached / len(questions),
    }


def line(name: str, values: list[float], peer: list[float]) -> str:
    p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
    ratio = p95 / max(percentile(peer, 0.95), 1e-9)
    return f"  {name:7} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  ({ratio:.1f}x the peer's p95)"


def report(results: list[dict[str, Any]]) -> int:
    for found in results:
        print(
            f"{found['sources']:,} sources (passage index caught up: {found['indexed']:,} "
            f"sources in {found['index_s']:.1f} s); evidence reached at {WINDOW:,}: "
            f"{found['reached']:.1%}"
        )
        print(line("search", found["search"], found["peer"]))
        print(line("pack", found["pack"], found["peer"]))
        peer = found["peer"]
        print(
            f"  peer    p50 {percentile(peer, 0.5):7.1f} ms  p95 {percentile(peer, 0.95):7.1f} ms"
        )
    first, last = results[0], results[-1]
    search95, pack95 = percentile(last["search"], 0.95), percentile(last["pack"], 0.95)
    flat = search95 <= 1.5 * percentile(first["search"], 0.95)
    goals = [
        (f"search p95 <= 20 ms at {last['sources']:,}", search95 <= 20),
        (f"search flat from {first['sources']:,} to {last['sources']:,} (within 1.5x)", flat),
        (f"pack p95 <= 100 ms at {last['sources']:,}", pack95 <= 100),
    ]
    for goal, met in goals:
        print(f"goal: {goal}: {'met' if met else 'NOT met'}")
    return 0 if all(met for _, met in goals) else 1


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    from laika_host.store import open_store

    questions = [q for q in rb.load_questions() if q["answerable"]]
    expected = rb.expectations(args.corpus)
    banned = [rb.norm(q["evidence"]) for q in questions]
    pool = []
    for page in sorted(set(expected) - {q["page"] for q in questions}):
        try:
            capture = rb.capture_page(args.corpus, page, rb.page_url(expected[page]))
        except Exception:  # an unreadable page gives no paragraphs
            continue
        kept = rb.paragraphs(capture.markdown, banned)
        if len(kept) >= 2:
            pool.append((capture.title or rb.norm(kept[0])[:60], kept))
    sizes = sorted(int(size) for size in args.sizes.split(","))
    folder = args.keep or Path(tempfile.mkdtemp(prefix="laika-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "scale.db"
    results = []
    async with open_store(db if not args.start else _copied(args.start, db)) as store:
        have = 0
        if args.start:
            collection = await store.collections.get(rb.COLLECTION)
            have = await store.sources.captured_count(collection.id)
            entries = (
                (None, rb.make_capture(have + n, *made))
                for n, made in enumerate(rb.distractor_texts(pool, 10**7, random.Random(50)))
            )
        else:
            real = [
                (
                    q["page"],
                    rb.capture_page(args.corpus, q["page"], rb.page_url(expected[q["page"]])),
                )
                for q in questions
            ]
            entries = rb.stream(real, pool, sizes[-1] - len(real), random.Random(26))
        for size in sizes:
            if size > have:
                seconds = await grow(store, iter(entries), size - have)
                print(f"stored {size - have:,} more sources in {seconds:.0f} s", file=sys.stderr)
                have = size
            results.append(await measure(store, db, questions, args.runs))
            print(f"measured at {have:,}", file=sys.stderr)
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return results


def _copied(start: Path, db: Path) -> Path:
    """A copy of a kept store (read through SQLite's backup: no other handle on the file)."""
    source = sqlite3.connect(f"file:{start}?mode=ro", uri=True)
    target = sqlite3.connect(db)
    source.backup(target)
    source.close()
    target.close()
    return db


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="15000,50000")
    parser.add_argument("--from", dest="start", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--corpus", type=Path, default=rb.DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    return report(asyncio.run(run(args)))


if __name__ == "__main__":
    sys.exit(main())
