"""Store benchmark: capture insert and full-text search latency on a realistic database.

    .venv/bin/python bench/store_bench.py [--sources 10000] [--chars 24000] [--queries 300]

Builds a fresh database of N sources of about `--chars` characters each, in 3 collections,
through the real API (`Sources.save_capture`, one transaction per capture, as the host does).
Each source is made of whole real pages (the capture-dev pages, captured by us; a Zipf-
distributed synthetic vocabulary when the corpus is absent). Then runs search queries of 1-3
words picked from running text (common words as often as they occur), with and without a
collection filter. Goals from issue 5: search p95 <= 20
ms over 10,000 sources of ~24k chars, capture insert p95 <= 10 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from laika_host.capture import Capture
from laika_host.redact import redact_text
from laika_host.store import open_store

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "capture-dev"
_WORD = re.compile(r"[^\W\d_]{3,}")


def corpus_texts() -> list[str]:
    """The main text of every capture-dev page, captured by us (real, varied vocabulary)."""
    from laika_host.capture import capture_html

    pages = sorted((CORPUS / "html").glob("*.html")) if CORPUS.exists() else []
    texts = []
    for page in pages:
        try:
            text = capture_html(page.read_bytes()).text
        except Exception:
            continue
        if len(text) > 500:
            texts.append(text)
    return texts


def synthetic_texts(rng: random.Random, count: int = 600) -> list[str]:
    """Zipf-distributed words over a 200,000-word vocabulary, when the corpus is absent."""
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10)))
        for _ in range(200_000)
    ]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    return [" ".join(rng.choices(vocabulary, weights=weights, k=1000)) for _ in range(count)]


def make_capture(number: int, texts: list[str], chars: int, rng: random.Random) -> Capture:
    """A ~`chars` document made of whole real pages picked at random (as a long article
    or a collection of related notes would read)."""
    parts: list[str] = []
    while sum(map(len, parts)) < chars:
        parts.append(rng.choice(texts))
    body = redact_text("\n\n".join(parts)[:chars])  # as capture_html hands it over
    title = " ".join(body.split()[:8])
    markdown = redact_text(f"# {title}\n\n{body}")
    url = f"https://bench.test/{number % 97}/article-{number}"
    return Capture(
        title=title,
        byline=None,
        published=None,
        language=None,
        canonical_url=None,
        url=url,
        normalized_url=url,
        markdown=markdown,
        text=redact_text(f"{title}\n\n{body}"),
        truncated=False,
        chunks=[],
        extracted_links=[],
        signals=[],
        content_hash=hashlib.sha256(markdown.encode()).hexdigest(),
        extractor="bench",
    )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def queries_from(texts: list[str], count: int, rng: random.Random) -> list[str]:
    """1-3 words picked from running text (so common words come up as often as they occur)."""
    queries: list[str] = []
    while len(queries) < count:
        words = _WORD.findall(rng.choice(texts))
        if words:
            queries.append(" ".join(rng.choice(words) for _ in range(rng.randint(1, 3))))
    return queries


async def run(args: argparse.Namespace) -> dict[str, float]:
    rng = random.Random(5)
    texts = corpus_texts()
    source = f"{len(texts)} captured capture-dev pages" if texts else "synthetic Zipf text"
    texts = texts or synthetic_texts(rng)
    db = Path(tempfile.mkdtemp(prefix="laika-store-bench-")) / "laika.db"
    inserts: list[float] = []
    async with open_store(db) as store:
        for number in range(args.sources):
            capture = make_capture(number, texts, args.chars, rng)
            started = time.perf_counter()
            await store.sources.save_capture(f"Collection {number % 3}", capture)
            inserts.append((time.perf_counter() - started) * 1000)
            if number and number % 2000 == 0:
                print(f"  {number} sources stored", file=sys.stderr)
        collection_id = (await store.collections.get("Collection 1")).id
        searches, filtered, hits = [], [], 0
        for query in queries_from(texts, args.queries, rng):
            started = time.perf_counter()
            hits += len(await store.search.query(query))
            searches.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            await store.search.query(query, collection_id=collection_id)
            filtered.append((time.perf_counter() - started) * 1000)
    size_mb = sum(p.stat().st_size for p in db.parent.glob("laika.db*")) / 1e6
    print(f"store: {args.sources} sources of ~{args.chars} chars ({source}), db {size_mb:.0f} MB")
    report = {
        "insert_p50_ms": statistics.median(inserts),
        "insert_p95_ms": percentile(inserts, 0.95),
        "search_p50_ms": statistics.median(searches),
        "search_p95_ms": percentile(searches, 0.95),
        "search_filtered_p95_ms": percentile(filtered, 0.95),
        "mean_hits": hits / len(searches),
        "db_mb": size_mb,
    }
    r = report
    print(f"capture insert: p50 {r['insert_p50_ms']:.2f} ms, p95 {r['insert_p95_ms']:.2f} ms")
    print(
        f"search ({len(searches)} queries of 1-3 words, limit 20): "
        f"p50 {r['search_p50_ms']:.2f} ms, p95 {r['search_p95_ms']:.2f} ms; "
        f"with a collection filter p95 {r['search_filtered_p95_ms']:.2f} ms; "
        f"{r['mean_hits']:.1f} hits per query"
    )
    print("goals: insert p95 <= 10 ms, search p95 <= 20 ms")
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=10_000)
    parser.add_argument("--chars", type=int, default=24_000)
    parser.add_argument("--queries", type=int, default=300)
    report = asyncio.run(run(parser.parse_args()))
    return 0 if report["insert_p95_ms"] <= 10 and report["search_p95_ms"] <= 20 else 1


if __name__ == "__main__":
    sys.exit(main())
