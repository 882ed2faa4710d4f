"""Render benchmark: 50 KB of Markdown through the safe HTML path, against markdown-it-py.

    .venv/bin/python bench/render_bench.py [--kb 50] [--runs 30]

The Markdown is what an answer or a captured page looks like: headings, paragraphs with
emphasis, inline code and links, bullet and numbered lists, GFM tables, fenced code. Prints the
best and median of N runs for `markdown_to_safe_html` and for the peer issue 7 names,
markdown-it-py (`html=False`, tables) followed by the same nh3 cleaner, then each layer alone
to show where the time goes, and the ratio peer / ours. Goal from issue 7: <= 10 ms per 50 KB.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from laika_host.render import markdown_to_safe_html
from laika_host.render._commonmark import markdown_to_html
from laika_host.render.html import _CLEANERS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from markdown_it_reference import reference_html

GOAL_MS = 10.0
# fmt: off
WORDS = [
    "tide", "harbour", "moon", "water", "spring", "neap", "table", "hour", "week", "note",
    "pull", "sun", "level", "chart", "port", "current", "flood", "ebb", "range", "datum",
    "height", "station", "gauge", "survey", "coast", "channel", "basin",
]
# fmt: on


def sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 18))
    words[0] = words[0].capitalize()
    spot = rng.randrange(len(words))
    words[spot] = rng.choice(
        [
            f"**{words[spot]}**",
            f"*{words[spot]}*",
            f"`{words[spot]}_m`",
            f"[{words[spot]}](https://example.org/{words[spot]}?ref={rng.randint(1, 99)})",
        ]
    )
    return " ".join(words) + "."


def section(rng: random.Random, number: int) -> str:
    """One section of a realistic answer: heading, prose, a list, a table or a code block."""
    parts = [f"## Section {number}: {rng.choice(WORDS)}", " ".join(sentence(rng) for _ in range(4))]
    parts.append("\n".join(f"- {sentence(rng)}" for _ in range(rng.randint(2, 5))))
    parts.append("\n".join(f"{i}. {sentence(rng)}" for i in range(1, rng.randint(3, 5))))
    rows = [f"| {rng.choice(WORDS)} | {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} |"]
    parts.append("| Station | High water |\n| --- | --: |\n" + "\n".join(rows * 4))
    if number % 3 == 0:
        parts.append(
            "```python\nlevels = [h for h in heights if h > datum]\nprint(max(levels))\n```"
        )
    parts.append(f"> {sentence(rng)}")
    return "\n\n".join(parts)


def markdown_of(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    sections: list[str] = []
    while sum(len(part) + 2 for part in sections) < size:
        sections.append(section(rng, len(sections) + 1))
    return "\n\n".join(sections)[:size]


def timed(function: Callable[[], object], runs: int) -> tuple[float, float]:
    """Best and median wall time in ms after one warm-up call."""
    function()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000)
    return min(samples), statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=int, default=50, help="Markdown size in KB (default 50)")
    parser.add_argument("--runs", type=int, default=30, help="timed runs per part (default 30)")
    args = parser.parse_args()
    markdown = markdown_of(args.kb * 1000)
    cleaner = _CLEANERS[False]
    rendered = markdown_to_html(markdown, images=False)
    html = markdown_to_safe_html(markdown)
    same = html == cleaner.clean(reference_html(markdown))
    print(
        f"{len(markdown) / 1000:.0f} KB Markdown -> {len(rendered) / 1000:.0f} KB HTML "
        f"-> {len(html) / 1000:.0f} KB safe HTML (identical to markdown-it-py's: {same}); "
        f"{args.runs} runs, best / median"
    )
    parts: list[tuple[str, Callable[[], object]]] = [
        ("laika markdown_to_safe_html", lambda: markdown_to_safe_html(markdown)),
        ("  cmark-gfm only", lambda: markdown_to_html(markdown, images=False)),
        ("  nh3 only", lambda: cleaner.clean(rendered)),
        ("markdown-it-py + nh3", lambda: cleaner.clean(reference_html(markdown))),
        ("  markdown-it-py only", lambda: reference_html(markdown)),
    ]
    scale = 50 / args.kb
    medians = {}
    for name, function in parts:
        best, median = timed(function, args.runs)
        medians[name] = median * scale
        print(f"{name:<30}{best:8.1f} ms {median:8.1f} ms   ({median * scale:.1f} ms per 50 KB)")
    ours, peer = medians[parts[0][0]], medians[parts[3][0]]
    print(f"ratio markdown-it-py + nh3 / laika: {peer / ours:.1f}x faster")
    verdict = "met" if ours <= GOAL_MS else "NOT met"
    print(f"goal: <= {GOAL_MS:.0f} ms per 50 KB end to end (median): {verdict}")


if __name__ == "__main__":
    main()
