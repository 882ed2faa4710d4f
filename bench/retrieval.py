"""Retrieval benchmark (issue 26): does the sentence that answers a question reach the model?

    .venv/bin/python bench/retrieval.py [--corpus DIR] [--distractors 10000] [--show]
        [--no-offline] [--json FILE] [--keep DIR]

(`--corpus` defaults to `$LAIKA_CAPTURE_DEV`, else `shared/corpora/capture-dev` beside the
clone.) About 4 minutes for the real pages alone on 2 busy cores; with 10,000 distractors
another 10-25 (storing them through the store's API, one transaction each as the host saves a
capture, took 174 s; each pack over 10k sources takes most of a second today).

The questions (`bench/data/retrieval_questions.json`) were written by hand from the stored
captures of capture-dev pages: for each answerable one, the page, the question in a reader's
words (a third of them paraphrased, sharing few content words with the answer), and the
evidence, the sentence of the page's capture that answers it; and questions no page answers
(general knowledge, and ones near a collected page's topic), marked `"answerable": false`.

Every page with a question goes through the real capture pipeline into ONE collection of a
real store (`open_store`, `Sources.save_capture`). For each answerable question and each model
window (8,192 and 2,048 tokens) the product's own pack step runs, `agent.flows._pack` with the
budget `laika ask` computes for an openai-compatible provider of that `context_window` and the
default `--max-tokens` (the tools `laika ask` offers included, as `flows.ask` counts them). The
evidence REACHED the model when its whitespace-normalized text is in some string of the packed
documents (a full source, a summary, a passage: every string is searched). The pack step is
timed on its own (p50/p95).

The peer, in the same run: plain SQLite FTS5 bm25 over whole sources, an in-memory table over
the same titles and texts, queried with every word of the question OR-ed (no stopwords, no
AND-first), the ranked sources packed whole (their Markdown, costed with the product's own
token estimate) while they fit the same budget.

`--distractors N` then measures again over a second store, where the same pages are spread
at random (in insertion order: a collection grows over time) among N synthetic sources of the
same collection. A distractor recombines paragraphs of the capture-dev pages that have no
question (a run of one page's paragraphs with paragraphs of one or two other pages spliced
in, the sentences of some paragraphs reshuffled), 1-12k characters, so it reads like a real
article in the corpus's languages and competes on vocabulary; no paragraph holding an
evidence sentence is used.

The offline answer path (`laika ask --provider offline`: `flows.ask` without a provider and
without tools) is measured too: on the questions no page answers, the share it abstains
(status `unsupported`); on the others, the share with a verified citation of the right page.
Its peer runs the same offline runtime over the FTS5 peer's pack at the offline path's budget
(`flows.MAX_PACK_TOKENS`).

Goals (issue 26): evidence reached >= 95% at 8,192 and >= 90% at 2,048 over the real pages,
>= 90% at 8,192 with 10,000 distractors; offline abstention >= 90%, right page cited >= 85%.
The exit status is 1 when a measured goal is not met.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = Path(
    os.environ.get("LAIKA_CAPTURE_DEV") or ROOT.parent / "shared" / "corpora" / "capture-dev"
)
QUESTIONS = ROOT / "bench" / "data" / "retrieval_questions.json"
COLLECTION = "Retrieval bench"
WINDOWS = (8_192, 2_048)
GOALS = {8_192: 0.95, 2_048: 0.90}
DISTRACTOR_GOAL = (8_192, 0.90, 10_000)  # window, share, at least this many distractors
ABSTAIN_GOAL = 0.90
CITE_GOAL = 0.85
PEER_LIMIT = 200  # as many hits as the product's search returns (flows.SEARCH_LIMIT)
_WORD = re.compile(r"[^\W_]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[^\W\d_])")


def norm(text: str) -> str:
    """Whitespace-normalized text (capture-dev's scoring rule)."""
    return " ".join(text.split())


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    questions: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return questions


def expectations(corpus: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((corpus / "expectations.json").read_text("utf-8"))
    return found


def page_url(entry: dict[str, Any]) -> str | None:
    key = entry["source_key"]
    return key if key.startswith(("http://", "https://")) else None


def capture_page(corpus: Path, page: str, url: str | None) -> Any:
    from laika_host.capture import capture_html

    return capture_html((corpus / "html" / page).read_bytes(), url)


def strings(value: Any) -> Iterator[str]:
    """Every string in a packed document, however deep."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def reached(evidence: str, documents: Sequence[Any]) -> bool:
    """The evidence's words as the model reads them (a link as its text: a small window's
    pack sends links so) are in some string of the pack."""
    from laika_host.capture.text import links_as_text

    wanted = norm(links_as_text(evidence))
    return any(wanted in norm(links_as_text(text)) for text in strings(list(documents)))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


# -- the peer: plain FTS5 bm25 over whole sources ---------------------------------------


class PeerSource(NamedTuple):
    source_id: str
    title: str
    text: str
    markdown: str


class Peer:
    """An in-memory FTS5 table over the same sources; OR of the question's words, bm25."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE docs USING fts5(title, body)")
        self.sources: list[PeerSource] = []

    def add(self, sources: Sequence[PeerSource]) -> None:
        start = len(self.sources)
        self.sources.extend(sources)
        self.db.executemany(
            "INSERT INTO docs (rowid, title, body) VALUES (?, ?, ?)",
            [(start + n + 1, s.title, s.text) for n, s in enumerate(sources)],
        )
        self.db.commit()

    def ranked(self, question: str) -> list[PeerSource]:
        words = dict.fromkeys(w.lower() for w in _WORD.findall(question))
        if not words:
            return []
        query = " OR ".join(f'"{word}"' for word in words)
        rows = self.db.execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?",
            (query, PEER_LIMIT),
        ).fetchall()
        return [self.sources[rowid - 1] for (rowid,) in rows]

    def pack(self, question: str, budget: int) -> list[PeerSource]:
        """The best-ranked sources, whole, while they fit (a smaller one may fill a gap)."""
        from laika_host.agent.pack import estimate_tokens

        packed, used = [], 0
        for source in self.ranked(question):
            cost = estimate_tokens(source.title + source.markdown) + 20  # ids, url, keys
            if used + cost <= budget:
                packed.append(source)
                used += cost
            if budget - used < 64:
                break
        return packed


# -- distractors ------------------------------------------------------------------------


def paragraphs(markdown: str, banned: Sequence[str]) -> list[str]:
    """The page's paragraphs (blank-line blocks) of some length, none holding an evidence."""
    kept = []
    for raw in re.split(r"\n\s*\n", markdown):
        block = raw.strip()
        flat = norm(block)
        if len(flat) >= 60 and not block.startswith("#") and not any(b in flat for b in banned):
            kept.append(block)
    return kept


def shuffled_sentences(paragraph: str, rng: random.Random) -> str:
    parts = _SENTENCE.split(paragraph)
    rng.shuffle(parts)
    return " ".join(parts)


def distractor_texts(
    pool: list[tuple[str, list[str]]], count: int, rng: random.Random
) -> Iterator[tuple[str, str]]:
    """(title, Markdown body) of `count` synthetic articles recombined from the pool's
    paragraphs: a run of one page, with paragraphs of one or two others spliced in."""
    for _ in range(count):
        title, own = rng.choice(pool)
        length = min(12_000, max(1_000, int(rng.lognormvariate(8.2, 0.6))))
        start = rng.randrange(len(own))
        body: list[str] = []
        size = 0
        others = [rng.choice(pool)[1] for _ in range(rng.randint(1, 2))]
        while size < length:
            if rng.random() < 0.3:
                block = rng.choice(rng.choice(others))
            else:
                block = own[start % len(own)]
                start += 1
            if rng.random() < 0.3:
                block = shuffled_sentences(block, rng)
            body.append(block)
            size += len(block)
        yield title, "\n\n".join(body)


def make_capture(number: int, title: str, body: str) -> Any:
    import hashlib

    from laika_host.capture import Capture

    title = f"{title} ({number % 97 + 1})"
    markdown = f"# {title}\n\n{body}"
    url = f"https://distractor.example/{number % 251}/article-{number}"
    return Capture(
        title=title,
        byline=None,
        published=None,
        language=None,
        canonical_url=None,
        url=url,
        normalized_url=url,
        markdown=markdown,
        text=f"{title}\n\n{body}",
        truncated=False,
        chunks=[],
        extracted_links=[],
        signals=[],
        content_hash=hashlib.sha256(markdown.encode()).hexdigest(),
        extractor="bench",
    )


# -- the run ----------------------------------------------------------------------------


class Outcome(NamedTuple):
    question: dict[str, Any]
    window: int
    laika: bool
    peer: bool
    laika_ms: float
    peer_ms: float


class OfflineOutcome(NamedTuple):
    question: dict[str, Any]
    status: str
    right_page: bool
    cites_evidence: bool
    peer_supported: bool
    peer_right_page: bool
    ms: float


class Phase:
    """One store and what was measured over it (a plain class: tests load this script by
    path, where dataclasses cannot resolve their module)."""

    def __init__(self, label: str, sources: int, distractors: int) -> None:
        self.label = label
        self.sources = sources
        self.distractors = distractors
        self.outcomes: list[Outcome] = []
        self.offline: list[OfflineOutcome] = []
        self.build_s = 0.0


class ToolNames:
    """A turn's tool runner as far as the budget sees it: the tools `laika ask` offers."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def offered(self) -> list[str]:
        return self.names


def budgets() -> dict[int, int]:
    """The pack budget `laika ask` gives an openai-compatible provider of each window, with
    the default max tokens and the tools it offers (as `flows.ask` computes it)."""
    from laika_host.agent import flows
    from laika_host.defaults import DEFAULT_MAX_TOKENS
    from laika_host.llm.config import ProviderConfig
    from laika_host.tools.chat_runner import offered_tools

    runner: Any = ToolNames(offered_tools(extension=False))
    found = {}
    for window in WINDOWS:
        provider = ProviderConfig(
            id="bench",
            kind="openai_compatible",
            model="bench",
            base_url="http://127.0.0.1:9/v1",
            context_window=window,
        )
        max_tokens = flows.reply_tokens(provider, DEFAULT_MAX_TOKENS)  # as `flows.ask` does
        offered = flows.tools_that_fit(provider, max_tokens, runner)[0]
        found[window] = flows.budget_for(provider, max_tokens, offered)
    return found


async def measure_packs(
    store: Any,
    collection: Any,
    peer: Peer,
    questions: list[dict[str, Any]],
    budget: dict[int, int],
    *,
    phase: Phase,
) -> None:
    from laika_host.agent import flows

    for window in WINDOWS:
        for item in questions:
            started = time.perf_counter()
            pack = await flows._pack(
                store, collection.id, collection.title, item["question"], budget[window], fmt="json"
            )
            laika_ms = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            packed = peer.pack(item["question"], budget[window])
            peer_ms = (time.perf_counter() - started) * 1000
            phase.outcomes.append(
                Outcome(
                    item,
                    window,
                    reached(item["evidence"], pack.documents),
                    any(norm(item["evidence"]) in norm(s.markdown) for s in packed),
                    laika_ms,
                    peer_ms,
                )
            )


async def measure_offline(
    store: Any,
    collection: Any,
    peer: Peer,
    questions: list[dict[str, Any]],
    page_ids: dict[str, str],
    *,
    phase: Phase,
) -> None:
    from laika_host.agent import flows
    from laika_host.llm.offline import Passage
    from laika_host.llm.offline import answer as offline_answer

    for item in questions:
        started = time.perf_counter()
        result = await flows.ask(store, item["question"], collection.title)
        ms = (time.perf_counter() - started) * 1000
        wanted = page_ids.get(item.get("page") or "")
        verified = [c for c in result.citations if c.get("verified")]
        evidence = norm(item["evidence"]) if item["answerable"] else None
        packed = peer.pack(item["question"], flows.MAX_PACK_TOKENS)
        peer_result = offline_answer(
            item["question"], [Passage(s.source_id, s.text, s.title, s.markdown) for s in packed]
        )
        phase.offline.append(
            OfflineOutcome(
                item,
                result.status,
                any(c.get("source_id") == wanted for c in verified),
                evidence is not None
                and any(_overlaps(evidence, norm(c.get("quote") or "")) for c in verified),
                peer_result.supported,
                any(q.source_id == wanted for q in peer_result.citations),
                ms,
            )
        )


def _overlaps(evidence: str, quote: str) -> bool:
    """The quote is part of the evidence sentence, or holds it."""
    return bool(quote) and (quote in evidence or evidence in quote)


def stream(
    real: list[tuple[str, Any]], pool: list[tuple[str, list[str]]], count: int, rng: random.Random
) -> Iterator[tuple[str | None, Any]]:
    """The real pages (page, capture) spread at random among `count` distractors (None,
    capture), in insertion order."""
    places = set(rng.sample(range(count + len(real)), k=len(real))) if count else set()
    pages = iter(real)
    made = distractor_texts(pool, count, rng)
    for number in range(count + len(real)):
        if not count or number in places:
            yield next(pages)
        else:
            title, body = next(made)
            yield None, make_capture(number, title, body)


async def measure_phase(
    db: Path,
    phase: Phase,
    entries: Iterator[tuple[str | None, Any]],
    questions: list[dict[str, Any]],
    budget: dict[int, int],
    *,
    offline: bool,
) -> None:
    """Store the entries (through `Sources.save_capture`, one transaction each, as the host
    does) and their peer rows, then measure the packs and the offline answers."""
    from laika_host.store import open_store

    async with open_store(db) as store:
        peer = Peer()
        page_ids: dict[str, str] = {}
        batch: list[PeerSource] = []
        started = time.perf_counter()
        for page, capture in entries:
            saved = await store.sources.save_capture(COLLECTION, capture)
            if page is not None:
                page_ids[page] = saved.source.id
            batch.append(PeerSource(saved.source.id, capture.title, capture.text, capture.markdown))
            if len(batch) == 500:
                peer.add(batch)
                batch = []
        peer.add(batch)
        phase.build_s = time.perf_counter() - started
        print(
            f"{phase.label}: stored {len(peer.sources):,} sources in {phase.build_s:.1f} s",
            file=sys.stderr,
        )
        collection = await store.collections.get(COLLECTION)
        answerable = [q for q in questions if q["answerable"]]
        await check_stored(store, answerable, page_ids)
        await measure_packs(store, collection, peer, answerable, budget, phase=phase)
        if offline:
            await measure_offline(store, collection, peer, questions, page_ids, phase=phase)


async def check_stored(
    store: Any, answerable: list[dict[str, Any]], page_ids: dict[str, str]
) -> None:
    """Say so when an evidence is not in its source as stored and redacted on the way to a
    model: no pack could carry it, and the question measures nothing."""
    from laika_host.redact import redact_text

    for item in answerable:
        detail = await store.sources.get(page_ids[item["page"]])
        if norm(item["evidence"]) not in norm(redact_text(detail.markdown or "")):
            print(
                f"warning: the evidence of {item['page']} is not in its stored source",
                file=sys.stderr,
            )


async def run(args: argparse.Namespace) -> list[Phase]:
    questions = load_questions(args.questions)
    answerable = [q for q in questions if q["answerable"]]
    expected = expectations(args.corpus)
    started = time.perf_counter()
    real = [
        (q["page"], capture_page(args.corpus, q["page"], page_url(expected[q["page"]])))
        for q in answerable
    ]
    capture_s = time.perf_counter() - started
    pool: list[tuple[str, list[str]]] = []
    if args.distractors:
        banned = [norm(q["evidence"]) for q in answerable]
        for page in sorted(set(expected) - {page for page, _ in real}):
            try:
                capture = capture_page(args.corpus, page, page_url(expected[page]))
            except Exception:  # an unreadable page simply gives no paragraphs
                continue
            kept = paragraphs(capture.markdown, banned)
            if len(kept) >= 2:
                pool.append((capture.title or norm(kept[0])[:60], kept))
    print(
        f"captured {len(real)} pages with questions in {capture_s:.1f} s"
        + (f", {len(pool)} distractor pages" if pool else ""),
        file=sys.stderr,
    )
    budget = budgets()
    phases = [Phase("real pages", len(real), 0)]
    if args.distractors and pool:
        phases.append(Phase(f"+ {args.distractors:,} distractors", len(real), args.distractors))
    with tempfile.TemporaryDirectory(prefix="laika-retrieval-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for number, phase in enumerate(phases):
            entries = stream(real, pool, phase.distractors, random.Random(26))
            db = folder / f"phase{number}.db"
            for stale in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
                stale.unlink(missing_ok=True)  # a kept store of an earlier run
            await measure_phase(db, phase, entries, questions, budget, offline=not args.no_offline)
    return phases


# -- the report -------------------------------------------------------------------------


def share(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}x" if theirs else "n/a"


def verdict(value: float, goal: float) -> str:
    return "met" if value >= goal else "NOT MET"


def report(
    phases: list[Phase], budget: dict[int, int], questions: list[dict[str, Any]]
) -> list[tuple[str, float, float]]:
    """Print the figures; return the measured goals as (name, value, goal)."""
    answerable = sum(q["answerable"] for q in questions)
    paraphrased = sum(q["answerable"] and q["paraphrase"] for q in questions)
    print(
        f"retrieval: {answerable} questions with their evidence sentence over "
        f"{phases[0].sources} capture-dev pages in one collection ({paraphrased} paraphrased), "
        f"{len(questions) - answerable} questions no page answers"
    )
    print(
        "pack budget as `laika ask` computes it (openai-compatible provider, default max "
        "tokens, its tools): "
        + ", ".join(f"{w:,}-token window -> {b:,} tokens" for w, b in budget.items())
    )
    goals: list[tuple[str, float, float]] = []
    for phase in phases:
        print(
            f"\n[{phase.label}: {phase.sources + phase.distractors:,} sources, "
            f"stored in {phase.build_s:.1f} s]"
        )
        for window in WINDOWS:
            rows = [o for o in phase.outcomes if o.window == window]
            ours = share(sum(o.laika for o in rows), len(rows))
            theirs = share(sum(o.peer for o in rows), len(rows))
            para = [o for o in rows if o.question["paraphrase"]]
            laika_ms = [o.laika_ms for o in rows]
            peer_ms = [o.peer_ms for o in rows]
            if phase.distractors == 0:
                goal = GOALS[window]
                name = f"evidence reached at {window:,}"
            elif window == DISTRACTOR_GOAL[0] and phase.distractors >= DISTRACTOR_GOAL[2]:
                goal = DISTRACTOR_GOAL[1]
                name = f"evidence reached at {window:,} with {phase.distractors:,} distractors"
            else:
                goal = 0.0
                name = ""
            print(
                f"  {window:>5,}-token window: evidence reached laika {ours:.1%} "
                f"({sum(o.laika for o in rows)}/{len(rows)}) vs FTS5 peer {theirs:.1%} "
                f"({sum(o.peer for o in rows)}/{len(rows)}), ratio {ratio(ours, theirs)}"
                + (f"; goal >= {goal:.0%}: {verdict(ours, goal)}" if name else "")
            )
            print(
                f"      paraphrased: laika {share(sum(o.laika for o in para), len(para)):.1%} "
                f"vs peer {share(sum(o.peer for o in para), len(para)):.1%}; "
                f"pack step p50 {statistics.median(laika_ms):.1f} ms, "
                f"p95 {percentile(laika_ms, 0.95):.1f} ms (peer p50 "
                f"{statistics.median(peer_ms):.1f} ms, p95 {percentile(peer_ms, 0.95):.1f} ms, "
                f"ratio {ratio(percentile(laika_ms, 0.95), percentile(peer_ms, 0.95))} at p95)"
            )
            if name:
                goals.append((name, ours, goal))
        if phase.offline:
            goals += report_offline(phase)
    print("\ngoals (issue 26):")
    for name, value, goal in goals:
        print(f"  {name}: {value:.1%} (goal >= {goal:.0%}): {verdict(value, goal)}")
    if not any(p.distractors >= DISTRACTOR_GOAL[2] for p in phases):
        print(
            f"  evidence reached at 8,192 with {DISTRACTOR_GOAL[2]:,} distractors: not measured "
            f"(run with --distractors {DISTRACTOR_GOAL[2]})"
        )
    return goals


def report_offline(phase: Phase) -> list[tuple[str, float, float]]:
    none = [o for o in phase.offline if not o.question["answerable"]]
    some = [o for o in phase.offline if o.question["answerable"]]
    abstained = share(sum(o.status == "unsupported" for o in none), len(none))
    peer_abstained = share(sum(not o.peer_supported for o in none), len(none))
    near = [o for o in none if o.question.get("topic") == "near"]
    right = share(sum(o.right_page for o in some), len(some))
    peer_right = share(sum(o.peer_right_page for o in some), len(some))
    quoted = share(sum(o.cites_evidence for o in some), len(some))
    declined = share(sum(o.status == "unsupported" for o in some), len(some))
    ms = [o.ms for o in phase.offline]
    print(
        f"  offline answers (`laika ask --provider offline`): abstains on "
        f"{abstained:.1%} of {len(none)} questions no page answers (near a page's topic: "
        f"{share(sum(o.status == 'unsupported' for o in near), len(near)):.1%} of {len(near)}) "
        f"vs {peer_abstained:.1%} for the same runtime over the peer's pack, ratio "
        f"{ratio(abstained, peer_abstained)}"
    )
    print(
        f"      cites the right page on {right:.1%} of {len(some)} answerable vs peer "
        f"{peer_right:.1%}, ratio {ratio(right, peer_right)}; quotes the evidence sentence "
        f"{quoted:.1%}; says unsupported {declined:.1%}; ask p50 {statistics.median(ms):.0f} "
        f"ms, p95 {percentile(ms, 0.95):.0f} ms"
    )
    suffix = f" with {phase.distractors:,} distractors" if phase.distractors else ""
    return [
        (f"offline abstains on unanswerable questions{suffix}", abstained, ABSTAIN_GOAL),
        (f"offline cites the right page{suffix}", right, CITE_GOAL),
    ]


def show_misses(phases: list[Phase]) -> None:
    for phase in phases:
        for window in WINDOWS:
            missed = [o for o in phase.outcomes if o.window == window and not o.laika]
            print(f"\nmissed by laika, {phase.label}, {window:,}-token window ({len(missed)}):")
            for o in missed:
                mark = "peer had it" if o.peer else "peer missed too"
                print(f"  [{mark}] {o.question['page']}: {o.question['question']}")


def dump(phases: list[Phase], path: Path) -> None:
    rows: list[dict[str, Any]] = []
    for phase in phases:
        rows += [
            {
                "phase": phase.label,
                "window": o.window,
                "question": o.question["question"],
                "page": o.question["page"],
                "laika": o.laika,
                "peer": o.peer,
                "laika_ms": round(o.laika_ms, 2),
                "peer_ms": round(o.peer_ms, 2),
            }
            for o in phase.outcomes
        ]
        rows += [
            {
                "phase": phase.label,
                "offline": True,
                "question": o.question["question"],
                "page": o.question.get("page"),
                "status": o.status,
                "right_page": o.right_page,
                "cites_evidence": o.cites_evidence,
                "peer_supported": o.peer_supported,
                "peer_right_page": o.peer_right_page,
                "ms": round(o.ms, 1),
            }
            for o in phase.offline
        ]
    path.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument(
        "--distractors", type=int, default=0, help="then measure again with N synthetic sources"
    )
    parser.add_argument("--no-offline", action="store_true", help="skip the offline answers")
    parser.add_argument("--show", action="store_true", help="list the questions laika missed")
    parser.add_argument("--json", type=Path, help="write every question's outcome here")
    parser.add_argument(
        "--keep", type=Path, help="keep each phase's store in this folder (phase0.db, ...)"
    )
    args = parser.parse_args()
    if not (args.corpus / "expectations.json").is_file():
        print(f"capture-dev corpus not found at {args.corpus}; pass --corpus", file=sys.stderr)
        return 2
    started = time.perf_counter()
    phases = asyncio.run(run(args))
    goals = report(phases, budgets(), load_questions(args.questions))
    if args.show:
        show_misses(phases)
    if args.json:
        dump(phases, args.json)
    print(f"(the whole run took {time.perf_counter() - started:.0f} s)")
    return 0 if all(value >= goal for _, value, goal in goals) else 1


if __name__ == "__main__":
    sys.exit(main())
