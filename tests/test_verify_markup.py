"""Quotes copied from the Markdown the pack shows: inline syntax is read as its text, on the
quote's side and on the source's, and a link's address is never a quoted word.

The pages are written by the real Markdown writer (`capture.convert.html_to_markdown`) and
stored as the store keeps them (text = `markdown_to_text(markdown)`)."""

from __future__ import annotations

import re
from collections.abc import Callable

import lxml.html
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.agent.verify import PackedSource, VerifiedCitation, readings, verify_citations
from laika_host.agent.words import normalize
from laika_host.capture.convert import html_to_markdown
from laika_host.capture.text import markdown_to_text
from laika_host.render.highlight import highlighted_html

URL = "https://page.test/a"
ADDED = "https://added.test/tides?id=7&ref=moon"


def stored(html: str) -> PackedSource:
    """A page as the store keeps it: the writer's Markdown, and its text."""
    markdown = html_to_markdown(lxml.html.fragment_fromstring(html, create_parent="div"))
    return PackedSource("doc-1", "src_1", URL, markdown_to_text(markdown), markdown, "Page")


def check(source: PackedSource, quote: str) -> VerifiedCitation:
    return verify_citations([{"doc_id": "doc-1", "quote": quote}], [source]).citations[0]


PAGE = stored(
    "<h2>Spring tides</h2><p>Spring tides are the <a href='https://tides.test/spring'>largest "
    "tides of the month</a>, as <a href='https://moon.test/' title='The moon (full)'>the "
    "moon</a> and sun pull <b>together</b>; they fall at <code>t*2</code> with <em>neap</em> "
    "tides in between.</p><p>The range is 2*3 metres<img src='https://img.test/a.png' "
    "alt='a chart of ranges'> at most.</p>"
)


@pytest.mark.parametrize(
    "quote",
    [
        "Spring tides are the [largest tides of the month](https://tides.test/spring), as "
        '[the moon](https://moon.test/ "The moon (full)") and sun pull **together**',
        'the month](https://tides.test/spring), as [the moon](https://moon.test/ "The moon',
        "The range is 2\\*3 metres![a chart of ranges](https://img.test/a.png) at most.",
        "tides of the month](https://tides.test/spring), as [the moon](https://mo … with "
        "*neap* tides in between",
    ],
)
def test_a_quote_copied_from_the_markdown_verifies_and_shows_the_stored_text(quote: str) -> None:
    found = check(PAGE, quote)
    assert found.verified, found.reason
    assert found.quote in PAGE.text or " … " in found.quote
    assert "](" not in found.quote
    assert "https" not in found.quote
    assert found.heading == "Spring tides"
    assert found.locator is not None
    assert "tides.test" not in found.locator
    assert "moon.test" not in found.locator


def test_a_link_the_source_does_not_have_verifies_on_its_words_only() -> None:
    assert PAGE.markdown == (  # what the pack shows the model
        "## Spring tides\n\nSpring tides are the [largest tides of the month]"
        '(https://tides.test/spring), as [the moon](https://moon.test/ "The moon (full)") and '
        "sun pull **together**; they fall at `t*2` with *neap* tides in between.\n\n"
        "The range is 2\\*3 metres![a chart of ranges](https://img.test/a.png) at most."
    )
    added = check(PAGE, f"they fall at t*2 with [neap tides]({ADDED}) in between")
    assert added.verified, added.reason
    assert added.quote == "they fall at t*2 with neap tides in between"
    assert "added.test" not in str(added.to_json())
    changed = check(PAGE, f"they fall at t*2 with [spring tides]({ADDED}) in between")
    assert not changed.verified  # the link's text is quoted words: a changed one is caught
    # an address never stands for the words it holds: `neap` is missing from the quote
    address = check(PAGE, "they fall at t*2 with [the](https://x.test/neap) tides in between")
    assert not address.verified
    for word_in_address in ("tides", "neap tides"):
        hidden = check(PAGE, f"they fall at t*2 with [x](https://{word_in_address}.test)")
        assert not hidden.verified


def test_inline_syntax_the_writer_writes_around_words_is_read_away() -> None:
    page = stored(
        "<p>Me interesa recorrer Chile para traer <b>buenas noticias, y para escucha</b>r "
        "a todos.</p><p>Set <code>a``b</code> to 2*3 and 4_5 before noon.</p>"
    )
    assert "escucha**r" in page.markdown
    assert "``` a``b ```" in page.markdown
    for quote in (
        "para traer **buenas noticias, y para escucha**r a todos",
        "Set ``` a``b ``` to 2\\*3 and 4_5 before noon",
    ):
        found = check(page, quote)
        assert found.verified, (quote, found.reason)
    # what the page wrote as text (`2*3*4`, `|`, `>`) is read as written before as Markdown
    source = PackedSource("doc-1", "src_1", URL, "It costs 2*3*4 units | per day > 5 units.")
    assert check(source, "It costs 2*3*4 units | per day > 5 units").verified
    assert check(source, "costs 2*3*4 units").quote == "costs 2*3*4 units"


def test_references_and_autolinks_in_a_note_read_as_a_reader_shows_them() -> None:
    markdown = "Fish &amp; chips cost &#x20AC;5 at <https://fish.test/menu> all day.\\&amp; stays"
    note = PackedSource("doc-1", "src_1", URL, markdown_to_text(markdown), markdown)
    assert note.text == "Fish & chips cost €5 at https://fish.test/menu all day.&amp; stays"
    for quote in (
        "Fish & chips cost €5 at https://fish.test/menu all day",
        "Fish &amp; chips cost &#x20AC;5 at <https://fish.test/menu> all day",
    ):
        assert check(note, quote).verified, quote
    assert not check(note, "Fish & chips cost €6").verified


def test_the_reader_view_marks_a_quote_copied_with_its_links() -> None:
    html, found = highlighted_html(
        PAGE.markdown, 'as [the moon](https://moon.test/ "The moon (full)") and sun pull'
    )
    assert found
    assert "<mark>the moon</mark>" in html


# --- any span of written Markdown, cut anywhere between words -------------------------------

WORDS = [f"{stem}{n}" for stem in ("tide", "moon", "sea", "gull", "pier") for n in range(9)]


@st.composite
def written_pages(draw: st.DrawFn) -> PackedSource:
    """A paragraph of distinct words, some in links (with or without a title), emphasis, code,
    or next to characters the writer escapes."""
    words = iter(draw(st.permutations(WORDS)))
    pieces: list[str] = []
    for _ in range(draw(st.integers(3, 12))):
        kind = draw(st.sampled_from(["plain", "link", "titled", "bold", "em", "code", "chars"]))
        some = " ".join(next(words) for _ in range(draw(st.integers(1, 3))))
        if kind == "link":
            some = f"<a href='https://x.test/{next(words)}?a=1&amp;b=(2)'>{some}</a>"
        elif kind == "titled":
            some = f"<a href='https://x.test/p' title='{next(words)} [x]'>{some}</a>"
        elif kind in ("bold", "em", "code"):
            tag = {"bold": "b", "em": "em", "code": "code"}[kind]
            some = f"<{tag}>{some}</{tag}>"
        elif kind == "chars":
            some += draw(st.sampled_from([" *", " [1]", " 2*3", " _x_", " \\", " &amp;", " <"]))
        pieces.append(some + draw(st.sampled_from([" ", ", ", ". ", "; "])))
    return stored(f"<p>{''.join(pieces)}</p>")


@settings(max_examples=300, deadline=None)
@given(written_pages(), st.data())
def test_any_span_of_the_markdown_verifies_as_its_text(
    page: PackedSource, data: st.DataObject
) -> None:
    tokens = page.markdown.split(" ")
    first = data.draw(st.integers(0, len(tokens) - 1))
    last = data.draw(st.integers(first, len(tokens) - 1))
    quote = " ".join(tokens[first : last + 1])
    shown = markdown_to_text(quote, excerpt=True)
    assume(any(word in normalize(shown).split() for word in WORDS))
    assume('"' not in quote)  # a cut inside a link's title: its words are no page text
    found = check(page, quote)
    assert found.verified, (quote, page.markdown, found.reason)
    read = [[word for part in parts for word in part] for parts in readings(quote)]
    assert normalize(found.quote).split() in read  # a cut code span may pair other backticks
    assert "x.test" not in found.quote
    assert found.locator is not None
    assert "x.test" not in found.locator


@settings(max_examples=200, deadline=None)
@given(written_pages(), st.data())
def test_a_link_put_around_any_words_never_counts_its_address(
    page: PackedSource, data: st.DataObject
) -> None:
    """A span of the stored text with a link added around some of its words verifies; with the
    address holding the span's next word instead of the quote, it does not."""
    words = page.text.split()
    assume(len(words) >= 4)
    first = data.draw(st.integers(0, len(words) - 4))
    last = data.draw(st.integers(first + 2, len(words) - 1))
    at = data.draw(st.integers(first, last - 1))
    span = words[first : last + 1]
    linked = [*words[first:at], f"[{words[at]}]({ADDED})", *words[at + 1 : last + 1]]
    assume(re.fullmatch(r"\w+[,.;]?", words[at]) is not None)  # a word a link may hold as is
    assert check(page, " ".join(linked)).verified, (linked, page.text)
    dropped = words[at + 1]
    assume(normalize(dropped) and normalize(dropped) not in normalize(" ".join(span[:2])))
    hidden = [*words[first : at + 1], f"[]({ADDED}/{dropped})", *words[at + 2 : last + 1]]
    found = check(page, " ".join(hidden))
    assert not found.verified or normalize(found.quote) != normalize(" ".join(span)), hidden


# --- time -------------------------------------------------------------------------------------


def linked_source(repeat: int) -> PackedSource:
    unit = "The [tide](https://t.test/a_(b)) is **high** and the `tide` is [low](https://t.test/). "
    markdown = "".join(f"## Part {n}\n\n{unit * 3}\n\n" for n in range(repeat)) + "The end [is"
    return PackedSource("doc-1", "src_1", URL, markdown_to_text(markdown), markdown)


@pytest.mark.slow  # > 3 s with the cores busy
def test_reading_quotes_and_markdown_is_linear() -> None:
    long_quote = "[the tide](https://t.test/a) is **high** and " * 40
    quotes = [
        "The [tide](https://t.test/a_(b)) is **high** and the `tide` is [low](https://t.test/)",
        long_quote[:2000],  # the longest quote, all links: never there, a full scan
        "](" * 1000,  # unclosed syntax everywhere
        "[" * 2000,
        "the tide is high and … the end [is",
    ]

    def prepare(repeat: int) -> Callable[[], object]:
        source = linked_source(repeat)
        citations = [{"doc_id": "doc-1", "quote": quote} for quote in quotes]
        return lambda: verify_citations(citations, [source])

    citations = [{"doc_id": "doc-1", "quote": quote} for quote in quotes]
    found = verify_citations(citations, [linked_source(50)]).citations
    assert [c.verified for c in found] == [True, False, False, False, False]
    assert_linear(prepare, 200, 1600, bound=24)  # 8x the text: linear 8, quadratic 64


def test_readings_of_a_quote() -> None:
    assert readings("a [b c](https://x.test/d) e") == [[["a", "b", "c", "e"]]]
    assert readings("c](https://x.test/d) e f") == [[["c", "e", "f"]]]
    assert readings("e f [g h](https://x.te") == [[["e", "f", "g", "h"]]]
    assert readings("2*3*4 units") == [[["2*3*4", "units"]], [["234", "units"]]]
    assert readings("plain words … here") == [[["plain", "words"], ["here"]]]
    # a bracket the page wrote (the writer escaped its closing one) is no cut link
    assert readings("per shift[1\\], up to intervention[2\\].") == [
        [["per", "shift", "1", "up", "to", "intervention", "2"]]
    ]
    # cut inside code at both ends: the backticks pair the wrong way round
    assert [["a", "b", "2*3", "c", "d"]] in readings("a` b 2\\*3 c `d")
