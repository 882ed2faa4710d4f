"""`AnswerText`: the prose of a streamed JSON reply, decoded as it arrives, however the
stream is cut; anything that is not a JSON reply passes through as it is."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.agent.stream_text import AnswerText


def _fed(text: str, cuts: list[int]) -> str:
    view = AnswerText()
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return "".join(view.feed(text[a:b]) for a, b in itertools.pairwise(points))


@given(
    st.text(max_size=300),
    st.lists(st.integers(min_value=0), max_size=40),
    st.booleans(),
    st.sampled_from(["", " ", "\n  "]),
)
def test_the_markdown_of_any_reply_is_decoded_whatever_the_chunks(
    prose: str, cuts: list[int], ascii_only: bool, space: str
) -> None:
    reply = (
        "{"
        + space
        + '"assistant":'
        + space
        + "{"
        + '"markdown":'
        + space
        + json.dumps(prose, ensure_ascii=ascii_only)
        + "},"
        + json.dumps({"citations": [{"quote": 'x "markdown": "no"'}]})[1:]
    )
    assert _fed(reply, cuts) == prose


@given(
    st.text(max_size=200).filter(lambda t: t.strip()[:1] not in ("{", "`", "")),
    st.lists(st.integers(min_value=0), max_size=20),
)
def test_a_reply_that_is_not_json_passes_through(text: str, cuts: list[int]) -> None:
    assert _fed(text, cuts) == text


def test_a_lone_surrogate_escape_is_shown_as_a_replacement_character() -> None:
    view = AnswerText()
    assert view.feed('{"assistant": {"markdown": "a\\ud800b\\udc00c\\ud83d') == "a\ufffdb\ufffdc"
    assert view.feed('\\ude00!"}}') == "😀!"


def test_decoding_is_linear_in_the_reply() -> None:
    """A reply that never names the key, or one long string: time(4n)/time(n) stays near 4."""

    def prepare(size: int) -> Callable[[], object]:
        view = AnswerText()
        text = "{" + '"k": "' + "a\\n" * size + '"' + ' "markdown" : "' + 'b\\"' * size
        return lambda: [view.feed(text[i : i + 1000]) for i in range(0, len(text), 1000)]

    assert_linear(prepare, 50_000, 200_000, bound=10)
