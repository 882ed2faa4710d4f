"""CI gate: capture quality on capture-dev must not drop below a pinned floor.

The corpus is third-party pages kept outside the repository (../shared/corpora/capture-dev,
or LAIKA_CAPTURE_DEV). The floor is pinned a little under the measured F1 so that a real
regression fails while run-to-run noise (there is none: capture is deterministic) cannot.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import bench_module, capture_dev_corpus

F1_FLOOR = 0.947
"""Measured 0.9485 (2026-11-23; 0.9455 before issue 14's capture rules); trafilatura 2.3.1
scores 0.930 on the same pages. Capture is deterministic; the small margin absorbs upstream
drift in trafilatura and readability-lxml (lower-bound pins), not noise. capture-dev is a
development set: `bench/capture_quality.py` also scores its two halves and, when present,
pages no rule was tuned on (trafilatura's other annotated pages, the article-extraction
benchmark)."""


@pytest.mark.corpus
def test_capture_dev_f1_stays_above_the_floor() -> None:
    corpus = capture_dev_corpus()
    bench = bench_module("capture_quality")
    expectations = json.loads((corpus / "expectations.json").read_text(encoding="utf-8"))
    names = sorted(expectations)
    result = bench.score_all({"laika": bench.laika_extractor(True)}, corpus, names, expectations)[
        "laika"
    ]
    assert result["crashes"] == 0
    assert result["f1"] >= F1_FLOOR, f"capture-dev F1 {result['f1']:.4f} fell below {F1_FLOOR}"


_WORDS = st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=4, max_size=40)
"""At least one shingle's worth (a shorter text is one shingle of all its words)."""


@given(truth=_WORDS, extra=_WORDS)
def test_the_shingle_score_counts_extra_text_against_precision_only(
    truth: list[str], extra: list[str]
) -> None:
    """The article-extraction benchmark's rule, as the bench implements it: everything
    true plus something else keeps recall whole; a part of the truth keeps precision."""
    bench = bench_module("capture_quality")
    text = " ".join(truth)
    tp, fp, fn = bench.shingle_counts(f"{text} {' '.join(extra)}", text)
    assert fn == 0
    assert tp > 0
    assert abs(tp + fp + fn - 1) < 1e-9
    half = " ".join(truth[: max(4, len(truth) // 2)])
    tp, fp, fn = bench.shingle_counts(half, text)
    assert fp == 0


def test_the_halves_split_by_a_fixed_hash() -> None:
    bench = bench_module("capture_quality")
    names = [f"page-{n}.html" for n in range(1000)]
    halves = [bench.half_of(name) for name in names]
    assert halves == [bench.half_of(name) for name in names]  # stable
    assert 400 < halves.count("A") < 600
