"""Offline answers cite the sentence that answers the question, on capture-dev pages.

The question set (tests/fixtures/offline_questions.json) was written by hand: for each
question, the sentence of the page's stored capture that answers it. The pages go through
the real capture pipeline into a real store and are asked through `flows.ask` with the
offline runtime (bench/offline_answers.py does the work; the test pins its result). The
corpus is third-party pages kept beside the clone; without it the test is skipped.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import bench_module, capture_dev_corpus

HIT_FLOOR = 0.73
"""Share of questions whose answer cites a quote overlapping the answer sentence. Measured
62.2% before the runtime learned sentences and block kinds (tuning 66.7%, held out 53.3%),
75.6% after (tuning 80.0%, held out 66.7%). Deterministic; the margin is one question."""

bench = bench_module("offline_answers")


@pytest.mark.corpus
def test_the_question_set_is_big_varied_and_matches_the_stored_captures() -> None:
    from laika_host.capture import capture_html

    corpus = capture_dev_corpus()
    questions = bench.load_questions()
    assert len(questions) >= 40
    assert len({q["page"] for q in questions}) >= 30
    held = sum(q["holdout"] for q in questions)
    assert held * 3 >= len(questions)
    texts: dict[str, str] = {}
    for q in questions:
        if q["page"] not in texts:
            html = (corpus / "html" / q["page"]).read_bytes()
            text = capture_html(html, bench.page_url(corpus, q["page"])).text
            texts[q["page"]] = " ".join(bench.words(text))
        answer = " ".join(bench.words(q["answer"]))
        assert answer in texts[q["page"]], f"{q['page']}: the answer is not in the capture"
        assert answer != " ".join(bench.words(q["question"]))


@pytest.mark.corpus
def test_offline_answers_cite_the_answer_sentence() -> None:
    report = bench.evaluate(capture_dev_corpus())
    print(report.summary())
    missed = [o.question["question"] for o in report.outcomes if not o.hit]
    assert report.rate() >= HIT_FLOOR, f"{report.summary()}; missed: {missed}"


@given(st.lists(st.sampled_from("abcde"), min_size=1, max_size=30), st.data())
def test_a_quote_cites_a_sentence_when_it_holds_half_of_it_in_one_run(
    sentence: list[str], data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(sentence) - 1))
    end = data.draw(st.integers(start + 1, len(sentence)))
    quote = ["x", *sentence[start:end], "y"]
    run = bench.longest_shared_run(sentence, quote)
    assert run >= end - start
    assert bench.cites(" ".join(sentence), " ".join(quote)) == (run * 2 >= len(sentence))
    assert bench.cites(" ".join(sentence), " ".join(sentence))
