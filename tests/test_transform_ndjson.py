"""The NDJSON item parser over the whole input space: whatever lines a model writes and however
the stream splits them, valid items come out, bad lines are skipped and logged
(`malformed_json_line`), nothing raises, and time stays linear in the reply's length."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.transform.items import Event, QuizQuestion, Term
from laika_host.transform.ndjson import MAX_LINE, NdjsonItems

valid_terms = st.builds(
    lambda term, definition, source, quote: {
        "term": term,
        "definition": definition,
        "citations": [{"source_id": source, "quote": quote}],
    },
    st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and "\n" not in t),
    st.text(min_size=1, max_size=80).filter(lambda t: t.strip() and "\n" not in t),
    st.from_regex(r"src_[a-f0-9]{6}", fullmatch=True),
    st.text(min_size=1, max_size=60).filter(lambda t: t.strip()),
)
wrong_fields = st.one_of(
    st.fixed_dictionaries({"term": st.integers()}),
    st.fixed_dictionaries({"definition": st.text(max_size=10)}),
    st.fixed_dictionaries({"term": st.just("x"), "definition": st.just("")}),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.lists(st.integers(), max_size=3),
    st.integers(),
)
garbage = st.text(max_size=60).filter(lambda t: "\n" not in t and "\r" not in t)
line_kinds = st.one_of(
    valid_terms.map(lambda v: ("valid", json.dumps(v, ensure_ascii=False), v)),
    wrong_fields.map(lambda v: ("bad", json.dumps(v), None)),
    garbage.map(lambda t: ("text", t, None)),
)


def expected_item(value: dict) -> Term:
    return Term.model_validate(value)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(line_kinds, max_size=12), cuts=st.lists(st.integers(0, 2000), max_size=8))
def test_any_lines_any_split_give_the_valid_items_and_skip_the_rest(
    lines: list[tuple[str, str, dict | None]], cuts: list[int]
) -> None:
    text = "\n".join(line for _, line, _ in lines)
    parser = NdjsonItems(Term, phase="test")
    got = []
    points = sorted({min(cut, len(text)) for cut in cuts})
    start = 0
    for point in [*points, len(text)]:
        got += parser.feed(text[start:point])
        start = point
    got += parser.close()
    wanted = [expected_item(value) for kind, _, value in lines if kind == "valid" and value]
    assert [item.model_dump() for item in got] == [item.model_dump() for item in wanted]
    nonblank = [line for _, line, _ in lines if line.strip() and line.strip() not in _WRAPPERS]
    assert parser.bad == len(nonblank) - len(got)
    assert parser.lines == len(nonblank)


_WRAPPERS = {"[", "]", "```", "```json", "```ndjson", "```jsonl", "~~~"}


def test_a_bad_line_is_logged_as_malformed_json_line_and_the_stream_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="laika.transform")
    good = {"date": "1969", "event": "Moon landing", "citations": []}
    parser = NdjsonItems(Event, phase="timeline")
    items = parser.feed('{"date": "1969", "event": tru\n' + json.dumps(good) + "\n")
    assert [item.event for item in items] == ["Moon landing"]
    records = [json.loads(r.getMessage()) for r in caplog.records]
    assert [r["event"] for r in records] == ["malformed_json_line"]
    assert records[0]["phase"] == "timeline"
    assert records[0]["line_number"] == 1
    assert "tru" in records[0]["line"]
    assert parser.summary() is not None
    assert "1 of 2 line(s)" in (parser.summary() or "")


def test_fences_brackets_and_trailing_commas_around_ndjson_are_tolerated() -> None:
    one = json.dumps({"term": "a", "definition": "b"})
    two = json.dumps({"term": "c", "definition": "d"})
    parser = NdjsonItems(Term)
    items = parser.feed(f"```json\n[\n{one},\n{two}\n]\n```")
    items += parser.close()
    assert [item.term for item in items] == ["a", "c"]
    assert parser.bad == 0


def test_a_quiz_line_whose_answer_is_not_an_option_is_skipped() -> None:
    bad = {"question": "q", "options": ["a", "b", "d"], "answer": "c"}
    good = {"question": "q", "options": ["a", " B ", "d"], "answer": "b"}
    parser = NdjsonItems(QuizQuestion)
    items = parser.feed(json.dumps(bad) + "\n" + json.dumps(good) + "\n")
    assert len(items) == 1
    assert items[0].answer == "B"  # the option as written, matched caselessly
    assert "answer" in parser.problems[0].error


@pytest.mark.parametrize(
    "options",
    [
        ["The source_id is not known.", "The source_id is unknown."],  # what SmolLM2 wrote
        ["Spring tide", "spring  TIDE", "neap tide"],  # three written, two different
    ],
)
def test_a_quiz_line_with_fewer_than_three_different_options_is_skipped(
    options: list[str],
) -> None:
    parser = NdjsonItems(QuizQuestion)
    line = {"question": "q", "options": options, "answer": options[-1]}
    assert parser.feed(json.dumps(line) + "\n") == []
    assert "options" in parser.problems[0].error


@pytest.mark.parametrize(
    "hostile",
    [
        "[" * 30_000,
        '{"a":' * 10_000,
        '"' + "\\u" * 10_000,
        "1" * 5_000,
        '{"term": "' + "x" * 400 + '", "definition": "y"}',
    ],
)
def test_hostile_lines_are_skipped_without_raising(hostile: str) -> None:
    parser = NdjsonItems(Term)
    assert parser.feed(hostile + "\n") == []
    assert parser.bad == 1


def _time_one_line(size: int, piece: int) -> float:
    parser = NdjsonItems(Term)
    chunk = "x" * piece
    started = time.perf_counter()
    for _ in range(size // piece):
        parser.feed(chunk)
    parser.feed("\n")
    assert parser.bad == 1  # too long: dropped, reported
    assert parser.problems[0].error.startswith("the line is longer than")
    return time.perf_counter() - started


def test_a_huge_line_streamed_in_small_pieces_costs_linear_time_and_no_memory() -> None:
    small = _time_one_line(MAX_LINE * 20, 64)
    large = _time_one_line(MAX_LINE * 80, 64)
    assert large / max(small, 1e-6) < 10  # 4x the input: about 4x the time, never 16x
    assert _time_one_line(20_000_000, 1_000_000) < 2.0  # 20 MB in big chunks


def test_many_lines_cost_linear_time() -> None:
    line = json.dumps({"term": "t", "definition": "d", "citations": []}) + "\n"

    def prepare(count: int) -> Callable[[], object]:
        parser, text = NdjsonItems(Term), line * count
        return lambda: parser.feed(text)

    assert len(NdjsonItems(Term).feed(line * 5_000)) == 5_000
    assert_linear(prepare, 5_000, 20_000, bound=10)
