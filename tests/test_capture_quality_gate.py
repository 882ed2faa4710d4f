"""CI gate: capture quality on capture-dev must not drop below a pinned floor.

The corpus is third-party pages kept outside the repository (../shared/corpora/capture-dev,
or LAIKA_CAPTURE_DEV). The floor is pinned a little under the measured F1 so that a real
regression fails while run-to-run noise (there is none: capture is deterministic) cannot.
"""

from __future__ import annotations

import json

import pytest

from support import bench_module, capture_dev_corpus

F1_FLOOR = 0.944
"""Measured 0.9452 (2026-11-22; the goal is 0.945); trafilatura 2.3.1 scores 0.930 on the same
pages. Capture is deterministic; the small margin absorbs upstream drift in trafilatura and
readability-lxml (lower-bound pins), not noise."""


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
