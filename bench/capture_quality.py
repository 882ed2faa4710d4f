"""Capture quality and speed on several corpora, against the peers, in the same run.

    .venv/bin/python bench/capture_quality.py [--corpus DIR] [--trafilatura-repo DIR]
        [--aeb-repo DIR] [--limit N] [--floor F1] [--only-laika] [--no-images]

Corpora (a rule tuned on one corpus can lose on pages it never saw, so each is reported):

- capture-dev (`--corpus`, default `../shared/corpora/capture-dev`): the development set,
  also split into two halves by a fixed hash of the file name (`half_of`). Error analysis is
  done on half A only; half B checks that a rule generalizes.
- trafilatura-unseen (`--trafilatura-repo` or `$LAIKA_TRAFILATURA_REPO`: a clone or bare
  mirror of github.com/adbar/trafilatura): the pages of its `tests/evaldata.json` that are
  not in capture-dev (the big ones capture-dev left out), scored the same way.
- aeb (`--aeb-repo` or `$LAIKA_AEB_REPO`: github.com/scrapinghub/article-extraction-benchmark):
  181 pages whose ground truth is the full article text.

A corpus that is not there is skipped with a message. Pages are read from the repository
(its work tree, or `git show` in a bare mirror); none is copied into this one.

Scoring. Snippet corpora follow the capture-dev README (trafilatura's rule): whitespace-
normalized, case-sensitive substring matching of each page's `with` and `without` snippets,
micro-averaged. aeb follows its own README: the words (`\\w+` runs) of the output and of the
truth as 4-word shingles, each page's true/false positive and negative counts normalized to
sum to 1, precision and recall averaged over pages, F1 from the two averages. We score
`Capture.text` (our Markdown with its syntax stripped). Peers: trafilatura 2.x
`extract(fast=False, include_tables=True, include_comments=False)` (its published benchmark
setting) and readability-lxml 0.9 + markdownify. Speed counts extraction time only, one
process, after one untimed warm-up call per extractor (module imports are not per-page work).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import NamedTuple

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "capture-dev"
_WS = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
SHINGLE = 4

Expectations = dict[str, dict[str, list[str]]]
Extractor = Callable[[bytes], str]


def norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def half_of(name: str) -> str:
    """ "A" or "B": a fixed split of capture-dev by the SHA-256 of the file name."""
    return "A" if hashlib.sha256(name.encode("utf-8")).digest()[0] % 2 == 0 else "B"


# --- pages --------------------------------------------------------------------------------


class Page(NamedTuple):
    """One page of a corpus: its name, how to read its bytes, and what a good output holds
    (`with`/`without` snippets, or `truth`: the whole article text)."""

    name: str
    read: Callable[[], bytes]
    expected: dict[str, list[str]]


class Corpus(NamedTuple):
    name: str
    pages: list[Page]
    scoring: str  # "snippets" or "shingles"


def capture_dev(corpus: Path, limit: int = 0) -> Corpus:
    expectations: Expectations = json.loads(
        (corpus / "expectations.json").read_text(encoding="utf-8")
    )
    names = sorted(expectations)[: limit or None]
    pages = [Page(name, (corpus / "html" / name).read_bytes, expectations[name]) for name in names]
    return Corpus("capture-dev", pages, "snippets")


class GitTree:
    """Files of a repository: from its work tree when checked out, else `git show HEAD:`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bare = not (root / ".git").exists() and (root / "HEAD").is_file()

    def read(self, path: str) -> bytes | None:
        if not self.bare:
            file = self.root / path
            return file.read_bytes() if file.is_file() else None
        done = subprocess.run(
            ["git", "--git-dir", str(self.root), "show", f"HEAD:{path}"],
            capture_output=True,
            check=False,
        )
        return done.stdout if done.returncode == 0 else None

    def listing(self, folder: str) -> set[str]:
        if not self.bare:
            directory = self.root / folder
            return {p.name for p in directory.iterdir()} if directory.is_dir() else set()
        done = subprocess.run(  # -z: names as they are (git quotes non-ASCII ones otherwise)
            ["git", "--git-dir", str(self.root), "ls-tree", "-z", "--name-only", f"HEAD:{folder}"],
            capture_output=True,
            check=False,
        )
        names = done.stdout.decode("utf-8").split("\0")
        return {name for name in names if name} if done.returncode == 0 else set()

    def reader(self, path: str) -> Callable[[], bytes]:
        return lambda: self.read(path) or b""


def trafilatura_unseen(repo: Path, dev: Path, limit: int = 0) -> Corpus | None:
    """trafilatura's annotated pages that capture-dev does not hold (looked up in
    `tests/cache`, then `tests/eval`, as trafilatura's evaluation does)."""
    tree = GitTree(repo)
    raw = tree.read("tests/evaldata.json")
    if raw is None:
        return None
    entries: dict[str, dict[str, object]] = json.loads(raw)
    known = {p.name for p in (dev / "html").iterdir()} if (dev / "html").is_dir() else set()
    cache, evals = tree.listing("tests/cache"), tree.listing("tests/eval")
    pages: list[Page] = []
    for entry in entries.values():
        name = str(entry["file"])
        if name in known:
            continue
        folder = "tests/cache" if name in cache else "tests/eval" if name in evals else None
        if folder is None:
            continue
        expected = {"with": list(entry["with"]), "without": list(entry["without"])}  # type: ignore[call-overload]
        pages.append(Page(name, tree.reader(f"{folder}/{name}"), expected))
    pages.sort(key=lambda page: page.name)
    return Corpus("trafilatura-unseen", pages[: limit or None], "snippets")


def aeb(repo: Path, limit: int = 0) -> Corpus | None:
    tree = GitTree(repo)
    raw = tree.read("ground-truth.json")
    if raw is None:
        return None
    truth: dict[str, dict[str, str]] = json.loads(raw)
    pages = [
        Page(key, _gunzipped(tree.reader(f"html/{key}.html.gz")), {"truth": [item["articleBody"]]})
        for key, item in sorted(truth.items())
    ]
    return Corpus("aeb", pages[: limit or None], "shingles")


def _gunzipped(read: Callable[[], bytes]) -> Callable[[], bytes]:
    return lambda: gzip.decompress(read())


# --- running ------------------------------------------------------------------------------


class Output(NamedTuple):
    text: str
    seconds: float
    crashed: bool


def run_all(runs: dict[str, Extractor], pages: list[Page]) -> dict[str, list[Output]]:
    """Every extractor on every page, interleaved page by page in a rotating order, so that
    drifts in machine speed hit all of them alike."""
    labels = list(runs)
    outputs: dict[str, list[Output]] = {label: [] for label in labels}
    warm_up(runs, pages)
    for number, page in enumerate(pages):
        raw = page.read()
        order = labels[number % len(labels) :] + labels[: number % len(labels)]
        for label in order:
            outputs[label].append(_timed(runs[label], raw, label, page.name))
    return outputs


def _timed(run: Extractor, raw: bytes, label: str, name: str) -> Output:
    started = time.perf_counter()
    try:
        text, crashed = run(raw) or "", False
    except Exception as error:  # a crash scores like an empty output (corpus README)
        print(f"  {label} crashed on {name}: {type(error).__name__}: {error}", file=sys.stderr)
        text, crashed = "", True
    return Output(text, time.perf_counter() - started, crashed)


def warm_up(runs: dict[str, Extractor], pages: list[Page]) -> None:
    """Run each extractor once, untimed, before the timed runs: its first call imports its
    modules (laika's first call imported trafilatura for the peers too, ~0.25 s counted as
    laika's), and a one-off import is no part of a page's extraction time."""
    if not pages:
        return
    raw = pages[0].read()
    for run in runs.values():
        try:
            run(raw)
        except Exception:  # scored (as a crash) in the timed run
            continue


# --- scoring ------------------------------------------------------------------------------


def snippet_counts(output: str, expected: dict[str, list[str]]) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) of one page's snippets."""
    text = norm(output)
    found = [norm(snippet) in text for snippet in expected["with"]]
    leaked = [norm(snippet) in text for snippet in expected["without"]]
    return sum(found), sum(leaked), len(found) - sum(found), len(leaked) - sum(leaked)


def snippet_scores(outputs: list[Output], pages: list[Page]) -> dict[str, float]:
    tp = fp = fn = tn = 0
    for output, page in zip(outputs, pages, strict=True):
        counts = snippet_counts(output.text, page.expected)
        tp, fp, fn, tn = tp + counts[0], fp + counts[1], fn + counts[2], tn + counts[3]
    return {
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / (tp + fn) if tp + fn else 0.0,
        "f1": 2 * tp / (2 * tp + fp + fn) if tp else 0.0,
        "accuracy": (tp + tn) / (tp + fp + fn + tn) if tp + fp + fn + tn else 0.0,
    }


def shingles(text: str) -> Counter[tuple[str, ...]]:
    """Runs of SHINGLE consecutive words (a shorter text is one shingle of all its words)."""
    words = _WORD.findall(text)
    if len(words) < SHINGLE:
        return Counter([tuple(words)] if words else [])
    return Counter(tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))


def shingle_counts(output: str, truth: str) -> tuple[float, float, float]:
    """(tp, fp, fn) of one page over shingles, normalized to sum to 1 so that long pages
    weigh no more than short ones."""
    got, want = shingles(output), shingles(truth)
    tp = sum((got & want).values())
    fp = sum((got - want).values())
    fn = sum((want - got).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def shingle_scores(outputs: list[Output], pages: list[Page]) -> dict[str, float]:
    precisions: list[float] = []
    recalls: list[float] = []
    exact = 0
    for output, page in zip(outputs, pages, strict=True):
        truth = page.expected["truth"][0]
        tp, fp, fn = shingle_counts(output.text, truth)
        if tp + fp > 0:
            precisions.append(1.0 if fp == fn == 0 else tp / (tp + fp))
        if tp + fn > 0:
            recalls.append(1.0 if fp == fn == 0 else tp / (tp + fn))
        exact += _WORD.findall(output.text) == _WORD.findall(truth)
    precision = sum(precisions) / len(precisions) if precisions else 0.0
    recall = sum(recalls) / len(recalls) if recalls else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "accuracy": exact / len(pages)}


def scores(corpus: Corpus, outputs: list[Output], pages: list[Page]) -> dict[str, float]:
    scored = (snippet_scores if corpus.scoring == "snippets" else shingle_scores)(outputs, pages)
    elapsed = sum(output.seconds for output in outputs)
    scored["ms_per_page"] = 1000 * elapsed / len(pages) if pages else 0.0
    scored["pages_per_second"] = len(pages) / elapsed if elapsed else 0.0
    scored["crashes"] = sum(output.crashed for output in outputs)
    return scored


def score_all(
    runs: dict[str, Extractor], corpus: Path, names: list[str], expectations: Expectations
) -> dict[str, dict[str, float]]:
    """capture-dev pages `names` scored for each extractor (the CI gate's entry point)."""
    pages = [Page(n, (corpus / "html" / n).read_bytes, expectations[n]) for n in names]
    dev = Corpus("capture-dev", pages, "snippets")
    outputs = run_all(runs, pages)
    return {label: scores(dev, found, pages) for label, found in outputs.items()}


# --- extractors ---------------------------------------------------------------------------


def laika_extractor(include_images: bool) -> Extractor:
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


# --- report -------------------------------------------------------------------------------


def report(title: str, results: dict[str, dict[str, float]], pages: int) -> None:
    print(f"{title}: {pages} pages")
    print(f"{'extractor':26} {'P':>6} {'R':>6} {'Acc':>6} {'F1':>7} {'ms/page':>8}")
    for label, r in results.items():
        print(
            f"{label:26} {r['precision']:6.3f} {r['recall']:6.3f} {r['accuracy']:6.3f} "
            f"{r['f1']:7.4f} {r['ms_per_page']:8.1f}"
        )
    ours, peer = results.get("laika"), results.get("trafilatura")
    if ours and peer and ours["pages_per_second"]:
        print(
            f"laika / trafilatura: F1 {ours['f1'] - peer['f1']:+.4f}, "
            f"P {ours['precision'] - peer['precision']:+.4f}, "
            f"speed {ours['pages_per_second'] / peer['pages_per_second']:.2f}x"
        )
    print()


def evaluate(corpus: Corpus, runs: dict[str, Extractor], split: bool) -> dict[str, float]:
    """Run and print one corpus (and its halves when `split`); laika's scores on it."""
    outputs = run_all(runs, corpus.pages)
    whole = {label: scores(corpus, found, corpus.pages) for label, found in outputs.items()}
    report(corpus.name, whole, len(corpus.pages))
    if split:
        for half in "AB":
            index = [i for i, page in enumerate(corpus.pages) if half_of(page.name) == half]
            pages = [corpus.pages[i] for i in index]
            report(
                f"{corpus.name} half {half}",
                {
                    label: scores(corpus, [found[i] for i in index], pages)
                    for label, found in outputs.items()
                },
                len(pages),
            )
    return whole["laika"]


def _repo(option: Path | None, variable: str) -> Path | None:
    configured = option or (Path(os.environ[variable]) if os.environ.get(variable) else None)
    return configured if configured and configured.is_dir() else None


def corpora(args: argparse.Namespace) -> Iterable[tuple[Corpus, bool]]:
    """Each corpus that is there, with whether to report its halves; a message for the rest."""
    yield capture_dev(args.corpus, args.limit), True
    repo = _repo(args.trafilatura_repo, "LAIKA_TRAFILATURA_REPO")
    unseen = trafilatura_unseen(repo, args.corpus, args.limit) if repo else None
    if unseen is None:
        print("trafilatura-unseen skipped: set LAIKA_TRAFILATURA_REPO (or --trafilatura-repo)")
        print("to a clone or mirror of github.com/adbar/trafilatura\n")
    else:
        yield unseen, False
    repo = _repo(args.aeb_repo, "LAIKA_AEB_REPO")
    benchmark = aeb(repo, args.limit) if repo else None
    if benchmark is None:
        print("aeb skipped: set LAIKA_AEB_REPO (or --aeb-repo) to a clone or mirror of")
        print("github.com/scrapinghub/article-extraction-benchmark\n")
    else:
        yield benchmark, False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--trafilatura-repo", type=Path, default=None)
    parser.add_argument("--aeb-repo", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=0, help="score only the first N pages")
    parser.add_argument(
        "--floor", type=float, default=0.0, help="exit 1 if capture-dev F1 is below"
    )
    parser.add_argument("--only-laika", action="store_true", help="skip the peers")
    parser.add_argument("--only-dev", action="store_true", help="capture-dev alone")
    parser.add_argument("--no-images", action="store_true", help="capture with include_images off")
    parser.add_argument("--no-rss", action="store_true", help="skip the 10 MB memory check")
    args = parser.parse_args()
    import logging

    logging.disable(logging.WARNING)
    runs: dict[str, Extractor] = {"laika": laika_extractor(not args.no_images)}
    if not args.only_laika:
        runs |= {"trafilatura": _trafilatura, "readability+markdownify": _readability_markdownify}
    dev_f1 = 0.0
    for corpus, split in corpora(args):
        ours = evaluate(corpus, runs, split)
        if corpus.name == "capture-dev":
            dev_f1 = ours["f1"]
            if args.only_dev:
                break
    if not args.no_rss:
        print(f"peak RSS capturing a 10 MB page: {peak_rss_mb():.0f} MB (goal <= 150 MB)")
    if dev_f1 < args.floor:
        print(f"F1 {dev_f1:.3f} is below the floor {args.floor:.3f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
