"""`sources.get`'s reader view: the stored Markdown as safe HTML with a quote marked, found
with the same word matching as citation verification."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.agent.words import normalize
from laika_host.render.highlight import highlighted_html
from laika_host.render.html import ALLOWED_TAGS, ANNOTATION_TAGS

from native_client import ARTICLE, Client, HostProcess

WORDS = ["Tide", "moon", "pulls", "the", "OCEAN", "3.5", "50%", "<b>", "&amp;", "[1]", "x_y"]
MARKUP = ["**", "*", "`", "\n\n", "\n- ", "\n> ", "\n# ", " [a](https://e.test/) ", " | "]
tokens = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(MARKUP)), min_size=1)


def fragment(html: str) -> Any:
    return lxml.html.fragment_fromstring(html, create_parent="div")


def marked_text(html: str) -> str:
    return " ".join(mark.text_content() for mark in fragment(html).iter("mark"))


@settings(max_examples=300, deadline=None)
@given(tokens, st.data())
def test_a_quote_from_the_rendered_text_is_marked_and_nothing_else(
    parts: list[str], data: st.DataObject
) -> None:
    markdown = " ".join(parts)
    plain, _ = highlighted_html(markdown, None)
    shown = fragment(plain).text_content().split()
    quote = None
    if shown:
        first = data.draw(st.integers(0, len(shown) - 1))
        last = data.draw(st.integers(first, min(len(shown) - 1, first + 6)))
        quote = " ".join(shown[first : last + 1])
    html, found = highlighted_html(markdown, quote)
    for element in fragment(html).iterdescendants():
        assert element.tag in ALLOWED_TAGS | ANNOTATION_TAGS, html
        assert element.tag not in ("span",), html
    assert fragment(html).text_content() == fragment(plain).text_content()
    if quote and normalize(quote):
        assert found, (markdown, quote, html)
        assert normalize(marked_text(html)) == normalize(quote), (markdown, quote, html)
    else:
        assert "<mark>" not in html


@settings(max_examples=100, deadline=None)
@given(tokens, st.sampled_from(["the moon pushes", "<mark>", "ocean ocean ocean ocean tide"]))
def test_words_that_are_not_there_mark_nothing(parts: list[str], quote: str) -> None:
    markdown = " ".join(parts)
    html, found = highlighted_html(markdown, quote)
    plain, _ = highlighted_html(markdown, None)
    assert found == (normalize(quote) in normalize(fragment(plain).text_content()))
    if not found:
        assert html == plain


def test_an_elided_quote_marks_each_part_in_order() -> None:
    markdown = "Spring tides are large. Neap tides are small. The moon pulls the sea."
    html, found = highlighted_html(markdown, "Spring tides are large … the moon pulls the sea")
    assert found
    assert [m.text_content() for m in fragment(html).iter("mark")] == [
        "Spring tides are large",
        "The moon pulls the sea",
    ]


@pytest.mark.slow  # > 3 s with the cores busy
def test_marking_time_grows_linearly() -> None:
    """A quote that is not there, in 8x more text: well under quadratic (64x)."""

    def prepare(repeat: int) -> Callable[[], object]:
        markdown = "The **moon** pulls *the* ocean, twice a day.\n\n" * repeat
        return lambda: highlighted_html(markdown, "the moon pulls the ocean three times")

    assert_linear(prepare, 500, 4000, bound=24)


@pytest.mark.slow  # > 3 s with the cores busy
def test_sources_get_returns_the_reader_view_with_the_quote_marked(tmp_path: Any) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        saved = client.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
        source_id = saved["result"]["source"]["id"]
        plain = client.call("sources.get", {"source_id": source_id})
        marked = client.call(
            "sources.get", {"source_id": source_id, "highlight": "THE MOON pulls the oceans"}
        )
        missing = client.call(
            "sources.get", {"source_id": source_id, "highlight": "the moon pushes the oceans"}
        )
        bad = client.call("sources.get", {"source_id": source_id, "highlight": ""})
    finally:
        host.kill()
    assert plain["result"]["highlighted"] is False
    assert "<mark>" not in plain["result"]["html"]
    assert plain["result"]["html"].startswith("<h1>")
    assert marked["result"]["highlighted"] is True
    assert normalize(marked_text(marked["result"]["html"])) == "the moon pulls the oceans"
    assert missing["result"]["highlighted"] is False
    assert missing["result"]["html"] == plain["result"]["html"]
    assert bad["error"]["code"] == "bad_request"
