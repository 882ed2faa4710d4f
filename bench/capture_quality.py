"""Capture quality and speed on capture-dev, against the peers, in the same run.

    .venv/bin/python bench/capture_quality.py [--corpus DIR] [--limit N] [--floor F1]

Scoring follows the corpus README (trafilatura's rule): whitespace-normalized, case-sensitive
substring matching of each page's `with` and `without` snippets, micro-averaged. We score
`Capture.text` (our Markdown with its syntax stripped, as the README recommends for Markdown
converters). Peers: trafilatura 2.x `extract(fast=False, include_tables=True,
include_comments=False)` (its published benchmark setting) and readability-lxml 0.9 +
markdownify. Speed counts extraction time only, one process, after one untimed warm-up call
per extractor (module imports are not per-page work).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "capture-dev"
_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


Expectations = dict[str, dict[str, list[str]]]


class Tally:
    """Counts and time for one extractor."""

    def __init__(self) -> None:
        self.tp = self.fp = self.fn = self.tn = self.crashes = 0
        self.elapsed = 0.0

    def add(self, output: str, expected: dict[str, list[str]]) -> None:
        text = norm(output)
        for snippet in expected["with"]:
            if norm(snippet) in text:
                self.tp += 1
            else:
                self.fn += 1
        for snippet in expected["without"]:
            if norm(snippet) in text:
                self.fp += 1
            else:
                self.tn += 1

    def result(self, pages: int) -> dict[str, float]:
        tp, fp, fn, tn = self.tp, self.fp, self.fn, self.tn
        return {
            "precision": tp / (tp + fp),
            "recall": tp / (tp + fn),
            "f1": 2 * tp / (2 * tp + fp + fn),
            "accuracy": (tp + tn) / (tp + fp + fn + tn),
            "pages_per_second": pages / self.elapsed,
            "crashes": self.crashes,
        }


def score_all(
    runs: dict[str, Callable[[bytes], str]],
    corpus: Path,
    names: list[str],
    expectations: Expectations,
) -> dict[str, dict[str, float]]:
    """Every extractor on every page, interleaved page by page in a rotating order, so that
    drifts in machine speed hit all of them alike."""
    warm_up(runs, corpus, names)
    tallies = {label: Tally() for label in runs}
    labels = list(runs)
    for number, name in enumerate(names):
        raw = (corpus / "html" / name).read_bytes()
        order = labels[number % len(labels) :] + labels[: number % len(labels)]
        for label in order:
            tally = tallies[label]
            started = time.perf_counter()
            try:
                output = runs[label](raw) or ""
            except Exception as error:  # a crash scores like an empty output (corpus README)
                tally.crashes += 1
                print(
                    f"  {label} crashed on {name}: {type(error).__name__}: {error}", file=sys.stderr
                )
                output = ""
            tally.elapsed += time.perf_counter() - started
            tally.add(output, expectations[name])
    return {label: tally.result(len(names)) for label, tally in tallies.items()}


def warm_up(runs: dict[str, Callable[[bytes], str]], corpus: Path, names: list[str]) -> None:
    """Run each extractor once, untimed, before the timed runs: its first call imports its
    modules (laika's first call imported trafilatura for the peers too, ~0.25 s counted as
    laika's), and a one-off import is no part of a page's extraction time."""
    if not names:
        return
    raw = (corpus / "html" / names[0]).read_bytes()
    for run in runs.values():
        try:
            run(raw)
        except Exception:  # scored (as a crash) in the timed run
            continue


def laika_extractor(include_images: bool) -> Callable[[bytes], str]:
    return partial(_laika, include_images=include_images)


def _laika(raw: bytes, *, include_images: bool) -> str:
    from laika_host.capture import CaptureOptions, capture_html

    return capture_html(raw, options=CaptureOptions(include_images=include_images)).text


def _trafilatura(raw: bytes) -> str:
    import trafilatura

    return trafilatura.extract(raw, fast=False, include_tables=True, include_comments=False) or ""


def _readability_markdownify(raw: bytes) -> str:
    from markdownify import markdownify
    from readability import Document

    return markdownify(Document(raw).summary(html_partial=True))  # type: ignore[no-any-return]


def peak_rss_mb() -> float:
    """Peak resident memory of a fresh process that captures a synthetic 10 MB page.

    Linux's `ru_maxrss` survives exec, so a child of this (large) benchmark process would
    report the parent's size; `VmHWM` belongs to the new process image alone.
    """
    script = (
        "import resource, sys\n"
        "from laika_host.capture import capture_html\n"
        "p = '<p>' + 'A long page keeps going with more and more words. ' * 20 + '</p>'\n"
        "body = p * (10_000_000 // len(p))\n"
        "html = '<html><body><article><h1>Huge</h1>' + body + '</article></body></html>'\n"
        "capture_html(html.encode(), 'https://example.org/huge')\n"
        "try:\n"
        "    status = open('/proc/self/status').read()\n"
        "    print(next(l.split()[1] for l in status.splitlines() if l.startswith('VmHWM')))\n"
        "except OSError:\n"
        "    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip()) / 1024  # KiB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, default=0, help="score only the first N pages")
    parser.add_argument("--floor", type=float, default=0.0, help="exit 1 if our F1 is below")
    parser.add_argument("--only-laika", action="store_true", help="skip the peers")
    parser.add_argument("--no-images", action="store_true", help="capture with include_images off")
    args = parser.parse_args()
    import logging

    logging.disable(logging.WARNING)
    expectations = json.loads((args.corpus / "expectations.json").read_text(encoding="utf-8"))
    names = sorted(expectations)[: args.limit or None]
    runs: dict[str, Callable[[bytes], str]] = {"laika": laika_extractor(not args.no_images)}
    if not args.only_laika:
        runs |= {"trafilatura": _trafilatura, "readability+markdownify": _readability_markdownify}
    results = score_all(runs, args.corpus, names, expectations)
    print(f"capture-dev: {len(names)} pages")
    print(f"{'extractor':26} {'P':>6} {'R':>6} {'Acc':>6} {'F1':>6} {'pages/s':>8}")
    for label, r in results.items():
        print(
            f"{label:26} {r['precision']:6.3f} {r['recall']:6.3f} {r['accuracy']:6.3f} "
            f"{r['f1']:6.4f} {r['pages_per_second']:8.1f}"
        )
    ours = results["laika"]
    if "trafilatura" in results:
        peer = results["trafilatura"]
        print(
            f"laika / trafilatura: F1 {ours['f1'] - peer['f1']:+.3f}, "
            f"speed {ours['pages_per_second'] / peer['pages_per_second']:.2f}x"
        )
    print(f"peak RSS capturing a 10 MB page: {peak_rss_mb():.0f} MB (goal <= 150 MB)")
    if ours["f1"] < args.floor:
        print(f"F1 {ours['f1']:.3f} is below the floor {args.floor:.3f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
