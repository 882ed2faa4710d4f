"""Packing benchmark: 200 sources of ~24k chars into an LLMCP context within a budget.

    .venv/bin/python bench/pack_bench.py [--sources 200] [--runs 30]

Times `pack_collection` (tiering by relevance within the token budget) plus building the
user prompt that carries the documents (the JSON a model receives), median of N runs, for a
large-context budget (24k tokens) and a small local model's (1.5k). Goal from issue 7:
<= 50 ms for 200 sources.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from laika_host.agent.pack import SourceText, pack_collection
from laika_host.agent.prompts import user_prompt

_VOCABULARY = (
    "tide harbour moon sun ocean table spring neap water level coast sailor port chart "
    "current wave storm surge river estuary flood ebb depth channel pilot buoy light"
)
WORDS = _VOCABULARY.split()


def sources(count: int, chars: int, rng: random.Random) -> list[SourceText]:
    made = []
    for number in range(count):
        body = " ".join(rng.choice(WORDS) for _ in range(chars // 6))
        markdown = f"# Source {number}\n\n{body}"
        made.append(
            SourceText(
                source_id=f"src_{number:032x}",
                url=f"https://bench.test/{number}",
                title=f"Source {number}",
                markdown=markdown,
                text=markdown[2:],
                summary=body[:480],
                relevance=rng.random(),
            )
        )
    return made


def time_pack(items: list[SourceText], budget: int, runs: int) -> tuple[float, int, dict[str, int]]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        pack = pack_collection("col_bench", "Bench", items, budget_tokens=budget)
        prompt = user_prompt("What about spring tides?", pack.documents, pack.note())
        times.append((time.perf_counter() - started) * 1000)
    tiers = {tier: list(pack.tiers.values()).count(tier) for tier in ("full", "summary", "title")}
    return statistics.median(times), len(prompt), tiers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=200)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    items = sources(args.sources, 24_000, random.Random(7))
    worst = 0.0
    for label, budget in (("24k-token budget", 24_000), ("1.5k-token budget", 1_500)):
        ms, prompt_chars, tiers = time_pack(items, budget, args.runs)
        worst = max(worst, ms)
        print(
            f"pack {args.sources} sources, {label}: {ms:.2f} ms median "
            f"(prompt {prompt_chars:,} chars; tiers {tiers}); goal <= 50 ms"
        )
    return 0 if worst <= 50 else 1


if __name__ == "__main__":
    sys.exit(main())
