"""Capture cost grows linearly with the page: twice the page, about twice the CPU time.

Issue 24: pages of 0.8-1.3 MB took seconds to capture. What made the cost grow faster than
the page was in three places (each has its own test where it lives): an ordered list's item
numbers (each item counted its earlier siblings), a link's context (each link read its whole
block again), and the settings read once per redacted link. The largest constant was two
regexes searched in every block (tests/test_capture_rules.py). These tests double whole pages
of the shapes that exercised them and check the whole capture: `complexity.assert_linear`
compares CPU time (best of five runs, the collector paused, measured again before failing),
with a bound of 3 between linear (2) and quadratic (4).

The pages stay under the structural bound of 10,000 elements (`limits.MAX_ELEMENTS`): past it
a page is cut, and its cost stops growing.
"""

from __future__ import annotations

from collections.abc import Callable

import lxml.html
import pytest

from complexity import assert_linear, assert_linear_calls
from laika_host.capture import CaptureOptions, capture_html
from laika_host.capture.limits import MAX_ELEMENTS

from support import bench_module, capture_dev_corpus

DOUBLED = 3.0
"""Twice the page may cost at most this many times as much: linear is 2, quadratic 4."""
URL = "https://example.org/harbour/history"

SECTION = (
    "<h2>Part {n}: the harbour in {year}</h2>"
    "<p>In {year} the harbour office recorded <a href='/records/{n}'>{n} arrivals</a>, most "
    "of them <em>coastal traders</em> carrying timber, grain and salt; the pilots' log names "
    "each one and the berth it took.</p>"
    "<p>The tide tables of that year, printed by the <strong>port authority</strong>, list "
    "the high waters at <code>06:{mm}</code> and <code>18:{mm}</code> on the first of each "
    "month, and the <a href='/tables/{year}'>full table</a> survives in the archive.</p>"
    "<blockquote><p>Every captain read the tables before leaving port, the harbour master "
    "wrote in {year}.</p></blockquote>"
    "<ul><li>Timber from the northern forests</li><li>Grain from the inland farms</li>"
    "<li>Salt from the southern pans</li></ul>"
    "<figure><img src='/img/quay-{n}.jpg' alt='The quay in {year}' width='640' height='400'>"
    "<figcaption>The quay in {year}, seen from the lighthouse.</figcaption></figure>"
    "<table><tr><th>Month</th><th>High water</th></tr><tr><td>January</td><td>06:{mm}</td></tr>"
    "<tr><td>July</td><td>18:{mm}</td></tr></table>"
)
"""One section of a long article: about 30 elements and 1.5 KB."""


def _page(body: str, *, title: str = "A history of the harbour") -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title>"
        "<meta name='description' content='How the harbour grew, year by year, from the "
        "records of its office and the logs of its pilots.'>"
        f"<link rel='canonical' href='{URL}'></head><body>"
        "<header><a href='/'>Harbour Museum</a><nav><a href='/visit'>Visit</a> "
        "<a href='/collections'>Collections</a> <a href='/about'>About</a></nav></header>"
        f"<main><article><h1>{title}</h1>{body}</article></main>"
        "<aside><h3>Related</h3><a href='/lighthouse'>The lighthouse</a></aside>"
        "<footer><a href='/privacy'>Privacy</a> Harbour Museum, Quay Street 1</footer>"
        "</body></html>"
    )


def long_article(sections: int) -> str:
    return _page(
        "".join(
            SECTION.format(n=n, year=1800 + n, mm=f"{n % 60:02d}") for n in range(1, sections + 1)
        )
    )


def numbered_steps(steps: int) -> str:
    """A long numbered list (instructions, a checklist): one item per step."""
    items = "".join(
        f"<li>Step {n}: check the mooring lines, the fenders and the hatches.</li>"
        for n in range(1, steps + 1)
    )
    return _page(f"<p>The checks a crew makes before a storm, in order.</p><ol>{items}</ol>")


def capturing(build: Callable[[int], str], mode: str) -> Callable[[int], Callable[[], object]]:
    options = CaptureOptions(mode=mode)  # type: ignore[arg-type]

    def prepare(size: int) -> Callable[[], object]:
        html = build(size)
        return lambda: capture_html(html, URL, options=options)

    return prepare


def test_the_pages_stay_under_the_element_bound() -> None:
    """The doubled pages below are not cut (a cut page's cost stops growing)."""
    for html in (long_article(240), numbered_steps(4000)):
        assert len(lxml.html.document_fromstring(html).xpath("//*")) < MAX_ELEMENTS


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("mode", ["auto", "full", "selection"])
def test_a_long_article_costs_twice_as_much_at_twice_the_size(mode: str) -> None:
    assert_linear(capturing(long_article, mode), 120, 240, bound=DOUBLED)


@pytest.mark.parametrize("mode", ["auto", "full", "selection"])
def test_a_long_article_makes_twice_the_calls_at_twice_the_size(mode: str) -> None:
    """Counted, not timed: the same check, deterministic, for what runs as Python."""
    assert_linear_calls(capturing(long_article, mode), 60, 120, bound=2.2)


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("mode", ["full", "selection"])
def test_a_long_numbered_list_costs_twice_as_much_at_twice_the_size(mode: str) -> None:
    """Numbering counted each item's earlier siblings: 4,000 steps cost 3-4x 2,000, and
    made 3.9x the Python calls (now 2.0x)."""
    assert_linear_calls(capturing(numbered_steps, mode), 1_000, 2_000, bound=2.2)
    assert_linear(capturing(numbered_steps, mode), 2_000, 4_000, bound=DOUBLED)


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.corpus
def test_concatenated_real_articles_cost_twice_as_much_at_twice_the_size() -> None:
    """The benchmark's large pages: capture-dev article bodies concatenated into one real
    page (bench/capture_large.py), from 0.4 to 0.8 MB."""
    corpus = capture_dev_corpus()
    large = bench_module("capture_large")
    pages: dict[int, bytes] = {}

    def prepare(size: int) -> Callable[[], object]:
        html = pages.setdefault(size, large.concatenated(corpus, size))
        return lambda: capture_html(html, URL)

    assert_linear(prepare, 400_000, 800_000, bound=DOUBLED)
