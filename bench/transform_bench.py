"""Time per transform type with the offline runtime over a 50-source collection.

    .venv/bin/python bench/transform_bench.py [--corpus DIR] [--sources 50] [--repeat 3]

The first N pages of capture-dev (by name, those with a web address) go through the real
capture pipeline into one collection of a fresh store; each ready type the offline runtime
makes (not those that need a model) then runs with
`--force` semantics (a new artifact every time, so nothing is reused) and the median wall
time of `run_transform` is printed with the item count and how many items verified. The
time is the whole run: load the sources, the heuristics, verify every citation, render,
store, and read the artifact back with its staleness.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "capture-dev"
CONFIG = {"custom": {"instructions": "What do these pages say about prices and costs?"}}


def pages(corpus: Path, count: int) -> list[tuple[str, bytes]]:
    expectations = json.loads((corpus / "expectations.json").read_text(encoding="utf-8"))
    found = []
    for name, entry in sorted(expectations.items()):
        path = corpus / "html" / name
        if path.is_file() and str(entry.get("source_key", "")).startswith("http"):
            found.append((entry["source_key"], path.read_bytes()))
        if len(found) == count:
            break
    return found


async def bench(db: Path, corpus: Path, count: int, repeat: int) -> list[dict[str, object]]:
    from laika_host.capture import capture_html
    from laika_host.store import open_store
    from laika_host.transform import list_types, run_transform

    rows = []
    async with open_store(db) as store:
        for url, html in pages(corpus, count):
            await store.sources.save_capture("Bench", capture_html(html, url))
        for entry in list_types():
            if not entry["ready"] or entry["needs_model"]:  # refused offline: nothing to time
                continue
            times, result = [], None
            for _ in range(repeat):
                started = time.perf_counter()
                result = await run_transform(
                    store, "Bench", entry["id"], CONFIG.get(entry["id"]), force=True
                )
                times.append((time.perf_counter() - started) * 1000)
            assert result is not None
            items = result.artifact["items"]
            rows.append(
                {
                    "type": entry["id"],
                    "median_ms": round(statistics.median(times), 1),
                    "items": len(items),
                    "verified": sum(bool(item["verified"]) for item in items),
                    "status": result.status,
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sources", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (args.corpus / "expectations.json").is_file():
        sys.exit(f"no capture-dev corpus at {args.corpus}; pass --corpus DIR")
    with tempfile.TemporaryDirectory() as folder:
        rows = asyncio.run(bench(Path(folder) / "laika.db", args.corpus, args.sources, args.repeat))
    print(f"{'type':<16} {'median ms':>10} {'items':>6} {'verified':>9}  status")
    for row in rows:
        print(
            f"{row['type']:<16} {row['median_ms']:>10} {row['items']:>6} {row['verified']:>9}  "
            f"{row['status']}"
        )
    total = sum(float(str(row["median_ms"])) for row in rows)
    print(f"all {len(rows)} types: {total:.0f} ms ({args.sources} sources)")


if __name__ == "__main__":
    main()
