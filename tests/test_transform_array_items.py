"""The scanner of a constrained reply's items: for any items, any formatting, any cut and any
split of the stream, exactly the elements completed before the cut come out, each once, and
hostile text costs linear time."""

from __future__ import annotations

import json
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.transform.array_items import ArrayItems

json_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=12)
)  # strings with quotes, braces and backslashes included
elements = st.dictionaries(
    st.text(max_size=6),
    st.recursive(
        json_leaves,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
        ),
        max_leaves=6,
    ),
    max_size=4,
)


def scan(text: str, cuts: list[int]) -> list[str]:
    scanner = ArrayItems()
    found: list[str] = []
    start = 0
    for point in [*sorted({min(c, len(text)) for c in cuts}), len(text)]:
        found += scanner.feed(text[start:point])
        start = point
    return found


@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(elements, max_size=6),
    indent=st.sampled_from([None, 0, 2]),
    cut=st.floats(0, 1),
    splits=st.lists(st.integers(0, 3000), max_size=6),
)
def test_exactly_the_completed_elements_come_out_whatever_the_cut_and_split(
    items: list[dict], indent: int | None, cut: float, splits: list[int]
) -> None:
    whole = json.dumps({"items": items}, indent=indent)
    end = int(len(whole) * cut)
    text = whole[:end]
    got = [json.loads(raw) for raw in scan(text, splits)]
    complete = 0
    for count in range(len(items) + 1):  # the elements whose text ends within the cut
        prefix = json.dumps({"items": items[:count]}, indent=indent)
        closing = prefix.rstrip().removesuffix("}").rstrip().removesuffix("]").rstrip()
        if count == 0 or len(closing) <= end:
            complete = count
    assert got == items[:complete]


def test_an_oversized_element_is_dropped_and_the_next_one_kept() -> None:
    scanner = ArrayItems(max_element=100)
    text = json.dumps({"items": [{"a": "x" * 500}, {"b": 1}]})
    assert [json.loads(raw) for raw in scanner.feed(text)] == [{"b": 1}]
    assert scanner.dropped == 1


def test_hostile_text_costs_linear_time() -> None:
    def prepare(size: int) -> Callable[[], object]:
        scanner = ArrayItems()
        text = '{"items": [' + '{"a": "\\\\\\"{' * size
        return lambda: [scanner.feed(text[i : i + 4096]) for i in range(0, len(text), 4096)]

    assert_linear(prepare, 50_000, 200_000, bound=10)
