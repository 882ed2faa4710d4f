"""Offline answer quality and latency on capture-dev: does the built-in runtime cite the
sentence that answers the question?

    .venv/bin/python bench/offline_answers.py [--corpus DIR] [--show]

The questions (`tests/fixtures/offline_questions.json`) were written by hand from the stored
captures of capture-dev pages: page, question in a user's own words, the sentence of the
page's capture that answers it, and whether the question is held out (a third of them, never
looked at while tuning the runtime). Each page goes through the real capture pipeline into a
real store (one collection per page), the question is asked through `agent.flows.ask` with
the offline runtime, and a question counts as answered when a verified citation overlaps the
answer sentence: they share a run of consecutive words covering at least half of it.
Latency is the median wall time of `flows.ask` (search, pack, answer, verify, persist).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "capture-dev"
QUESTIONS = ROOT / "tests" / "fixtures" / "offline_questions.json"
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def longest_shared_run(a: list[str], b: list[str]) -> int:
    """Length of the longest run of consecutive words found in both (dynamic programming;
    sentences are short, so O(len(a) * len(b)) is fine)."""
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def cites(answer_sentence: str, quote: str) -> bool:
    """The quote overlaps the answer sentence: a shared run of at least half its words."""
    wanted = words(answer_sentence)
    return longest_shared_run(wanted, words(quote)) * 2 >= len(wanted)


class Outcome(NamedTuple):
    question: dict[str, Any]
    hit: bool
    seconds: float
    quotes: list[str]


class Report:
    """The outcome of every question (a plain class: tests load this script by path)."""

    def __init__(self, outcomes: list[Outcome]) -> None:
        self.outcomes = outcomes

    def rate(self, *, holdout: bool | None = None) -> float:
        chosen = [o for o in self.outcomes if holdout is None or o.question["holdout"] == holdout]
        return sum(o.hit for o in chosen) / len(chosen) if chosen else 0.0

    @property
    def median_ms(self) -> float:
        return statistics.median(o.seconds for o in self.outcomes) * 1000

    def summary(self) -> str:
        tuned = sum(not o.question["holdout"] for o in self.outcomes)
        held = len(self.outcomes) - tuned
        return (
            f"answer cites the sentence: {self.rate():.1%} of {len(self.outcomes)} "
            f"(tuning {self.rate(holdout=False):.1%} of {tuned}, "
            f"held out {self.rate(holdout=True):.1%} of {held}); "
            f"offline ask median {self.median_ms:.1f} ms"
        )


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    questions: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return questions


def page_url(corpus: Path, page: str) -> str | None:
    expectations = json.loads((corpus / "expectations.json").read_text(encoding="utf-8"))
    key = expectations[page]["source_key"]
    return key if key.startswith(("http://", "https://")) else None


async def evaluate_async(corpus: Path, questions: list[dict[str, Any]], db: Path) -> Report:
    from laika_host.agent.flows import ask
    from laika_host.capture import capture_html
    from laika_host.store import open_store

    collections: dict[str, str] = {}
    outcomes = []
    async with open_store(db) as store:
        for item in questions:
            page = item["page"]
            if page not in collections:
                collections[page] = f"Page {len(collections) + 1}"
                html = (corpus / "html" / page).read_bytes()
                capture = capture_html(html, page_url(corpus, page))
                await store.sources.save_capture(collections[page], capture)
            started = time.perf_counter()
            result = await ask(store, item["question"], collections[page])
            seconds = time.perf_counter() - started
            quotes = [c["quote"] for c in result.citations if c.get("verified")]
            hit = any(cites(item["answer"], quote) for quote in quotes)
            outcomes.append(Outcome(item, hit, seconds, quotes))
    return Report(outcomes)


def evaluate(corpus: Path, questions: list[dict[str, Any]] | None = None) -> Report:
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "laika.db"
        return asyncio.run(evaluate_async(corpus, questions or load_questions(), db))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--show", action="store_true", help="print every question's quotes")
    args = parser.parse_args()
    report = evaluate(args.corpus)
    if args.show:
        for o in report.outcomes:
            mark = "HIT " if o.hit else "miss"
            split = "held" if o.question["holdout"] else "tune"
            print(f"{mark} [{split}] {o.question['page']}: {o.question['question']}")
            for quote in o.quotes:
                print(f"      “{quote[:160]}”")
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
