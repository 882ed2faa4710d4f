"""Capture speed on large pages (0.8-1.3 MB), against trafilatura alone, in the same run.

    .venv/bin/python bench/capture_large.py [--corpus DIR] [--trafilatura-repo DIR] [--runs N]

Pages (none is copied into this repository; each is built or read when the bench runs):

- `concat-*`: real article bodies from capture-dev (`--corpus`), concatenated into one real
  page (its head, navigation and footer kept) until the page reaches 0.8, 1.0 or 1.3 MB. The
  corpus holds no page over 122 KB, and a long article is where the cost per element shows.
- `links-1.0MB`: a long article with a link and an emphasis in every paragraph (the shape of
  a reference article or a long report), built here.
- the pages of trafilatura's evaluation set between 0.8 and 1.4 MB (`--trafilatura-repo` or
  `$LAIKA_TRAFILATURA_REPO`: a clone or bare mirror of github.com/adbar/trafilatura): real
  heavy pages, mostly scripts and markup around a normal-length article.

Speed is CPU time of this process (`time.process_time`: the machine's other work does not
count), the best of `--runs` captures of each page, the collector run before each; one
untimed warm-up capture per extractor first. The peer is `trafilatura.extract` with the
settings of its published benchmark (bench/capture_quality.py), run on the same bytes,
interleaved with ours. Then the cost per MB of one page grown from 0.25 to 2 MB: flat when
capture is linear in the page's size (past 10,000 elements the structural bound cuts the
page, so it falls).
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import lxml.html
from lxml import etree

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "capture-dev"
SIZES = (800_000, 1_000_000, 1_300_000)
BIG_RANGE = (800_000, 1_400_000)
SCALE = (250_000, 500_000, 1_000_000, 2_000_000)
MIN_BODY_TEXT = 1500
_BODY_QUERIES = ("//article", "//*[@itemprop='articleBody']", "//main")
_LINKED = (
    "<p>Paragraph {i} of the survey describes field {field} of the sky, its "
    "<a href='/field/{i}'>brightest stars</a>, the <em>nebulae</em> nearby and the weather "
    "during the exposure, which decides how deep the images go.</p>"
)


class LargePage(NamedTuple):
    name: str
    html: bytes


# --- pages --------------------------------------------------------------------------------


def article_bodies(corpus: Path) -> Iterator[tuple[lxml.html.HtmlElement, lxml.html.HtmlElement]]:
    """(page tree, its article element) for each capture-dev page, in name order, whose
    `<article>` (or articleBody, or `<main>`) holds at least `MIN_BODY_TEXT` characters."""
    for path in sorted((corpus / "html").glob("*.html")):
        try:
            tree = lxml.html.document_fromstring(path.read_bytes())
        except (etree.ParserError, ValueError):
            continue
        for query in _BODY_QUERIES:
            found = tree.xpath(query)
            if not found:
                continue
            node = max(found, key=lambda element: len(element.text_content()))
            if len(" ".join(node.text_content().split())) >= MIN_BODY_TEXT:
                yield tree, node
                break


def concatenated(corpus: Path, target: int, skip: int = 0) -> bytes:
    """A real page whose article holds, after its own, the article bodies of the next
    capture-dev pages (each as a `<section>`) until the page is `target` bytes or more;
    `skip` pages with a body are passed over first, for a different mix."""
    bodies = article_bodies(corpus)
    for _ in range(skip):
        next(bodies, None)
    host = next(bodies, None)
    if host is None:
        raise SystemExit(f"no article bodies in {corpus}")
    tree, article = host
    size = len(lxml.html.tostring(tree))
    for _, body in bodies:
        chunk = lxml.html.tostring(body, encoding="unicode", with_tail=False)
        article.append(lxml.html.fragment_fromstring(chunk, create_parent="section"))
        size += len(chunk.encode("utf-8"))
        if size >= target:
            break
    return lxml.html.tostring(tree, doctype="<!DOCTYPE html>", encoding="utf-8")


def linked_article(target: int) -> bytes:
    """A long article of about `target` bytes: a link and an emphasis in every paragraph,
    a heading every 20 paragraphs."""
    parts = ["<!doctype html><html lang='en'><head><title>Sky survey</title></head><body>"]
    parts.append("<nav><a href='/'>Home</a> <a href='/surveys'>Surveys</a></nav>")
    parts.append("<article><h1>Sky survey</h1>")
    size, index = 0, 0
    while size < target:
        index += 1
        block = (f"<h2>Section {index}</h2>" if index % 20 == 1 else "") + _LINKED.format(
            i=index, field=index * 7
        )
        parts.append(block)
        size += len(block)
    parts.append("</article><footer>Observatory newsletter</footer></body></html>")
    return "".join(parts).encode("utf-8")


def evaluation_pages(repo: Path, low: int, high: int) -> list[LargePage]:
    """trafilatura's evaluation pages (tests/cache, tests/eval) of `low` to `high` bytes."""
    bare = not (repo / ".git").exists() and (repo / "HEAD").is_file()
    git = ["git", "--git-dir", str(repo)] if bare else ["git", "-C", str(repo)]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-l", "-z", "HEAD", "tests/cache", "tests/eval"],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    pages = []
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        size = meta.split()[-1]
        if path.endswith(".html") and size.isdigit() and low <= int(size) <= high:
            html = subprocess.run(
                [*git, "show", f"HEAD:{path}"], capture_output=True, check=True
            ).stdout
            pages.append(LargePage(Path(path).name, html))
    return sorted(pages)


def large_pages(corpus: Path, repo: Path | None) -> list[LargePage]:
    pages = [
        LargePage(f"concat-{size / 1e6:.1f}MB-{skip}", concatenated(corpus, size, skip))
        for size in SIZES
        for skip in (0, 150)
    ]
    pages.append(LargePage("links-1.0MB", linked_article(1_000_000)))
    if repo is not None:
        pages += evaluation_pages(repo, *BIG_RANGE)
    return pages


# --- running ------------------------------------------------------------------------------

Extractor = Callable[[bytes], object]


def laika(raw: bytes) -> object:
    from laika_host.capture import capture_html

    return capture_html(raw)


def trafilatura_alone(raw: bytes) -> object:
    import trafilatura

    return trafilatura.extract(raw, fast=False, include_tables=True, include_comments=False)


def cpu_seconds(run: Extractor, raw: bytes, runs: int) -> float:
    """The best CPU time of `runs` calls, each after a collection."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        started = time.process_time()
        run(raw)
        best = min(best, time.process_time() - started)
    return best


def compare(pages: list[LargePage], runs: int) -> None:
    extractors: dict[str, Extractor] = {"laika": laika, "trafilatura": trafilatura_alone}
    for run in extractors.values():
        run(pages[0].html)  # imports and caches: not per-page work
    totals = dict.fromkeys(extractors, 0.0)
    megabytes = sum(len(page.html) for page in pages) / 1e6
    print(f"{'page':44} {'MB':>5} {'laika s':>8} {'traf. s':>8} {'ratio':>6}")
    for number, page in enumerate(pages):
        order = list(extractors)[number % 2 :] + list(extractors)[: number % 2]
        seconds = {label: cpu_seconds(extractors[label], page.html, runs) for label in order}
        for label, spent in seconds.items():
            totals[label] += spent
        print(
            f"{page.name[:44]:44} {len(page.html) / 1e6:5.2f} {seconds['laika']:8.3f} "
            f"{seconds['trafilatura']:8.3f} {seconds['laika'] / seconds['trafilatura']:6.2f}"
        )
    print()
    for label, spent in totals.items():
        rate, per_mb = len(pages) / spent, spent / megabytes
        print(f"{label:12} {rate:6.2f} pages/s  {per_mb:6.3f} CPU s per MB")
    print(f"ratio laika / trafilatura: {totals['laika'] / totals['trafilatura']:.2f} (CPU time)")


def scaling(corpus: Path, runs: int) -> None:
    print("\ncost per MB as one page grows (flat = linear):")
    print(f"{'page':14} " + " ".join(f"{size / 1e6:>7.2f}MB" for size in SCALE))
    builders: dict[str, Callable[[int], bytes]] = {
        "concat": lambda size: concatenated(corpus, size),
        "links": linked_article,
    }
    for name, build in builders.items():
        cells = []
        for size in SCALE:
            html = build(size)
            cells.append(cpu_seconds(laika, html, runs) / (len(html) / 1e6))
        print(f"{name:14} " + " ".join(f"{cell:8.3f}s" for cell in cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--trafilatura-repo", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3, help="captures per page (best counts)")
    parser.add_argument("--no-scaling", action="store_true", help="skip the growth table")
    args = parser.parse_args()
    import logging

    logging.disable(logging.WARNING)
    if not (args.corpus / "html").is_dir():
        print(f"capture-dev not found at {args.corpus} (set --corpus)", file=sys.stderr)
        return 1
    repo = args.trafilatura_repo or (
        Path(os.environ["LAIKA_TRAFILATURA_REPO"])
        if os.environ.get("LAIKA_TRAFILATURA_REPO")
        else None
    )
    if repo is None:
        print("trafilatura's heavy pages skipped: set LAIKA_TRAFILATURA_REPO or --trafilatura-repo")
    compare(large_pages(args.corpus, repo), args.runs)
    if not args.no_scaling:
        scaling(args.corpus, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
