"""The measured capture rules, each on its own: boilerplate blocks and lead recovery."""

from __future__ import annotations

import re
import sys
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.capture import boilerplate
from laika_host.capture.boilerplate import is_boilerplate_block, remove_boilerplate_blocks
from laika_host.capture.lead import find_lead, find_named_lead


def block(html: str) -> lxml.html.HtmlElement:
    return lxml.html.fragment_fromstring(html)


@pytest.mark.parametrize(
    "html",
    [
        "<p>Lea más: Otro artículo sobre el tema</p>",
        "<p>Lesen Sie auch: Die Bahn streicht Züge</p>",
        "<p>Czytaj też: Nowe przepisy od stycznia</p>",
        "<p>» Read more: the full timeline</p>",
        "<p>¡Mira lo que tiene nuestro canal de YouTube!</p>",
        "<p>Follow The Gleaner on Twitter and Instagram</p>",
        "<p>Foto: dpa / Picture Alliance</p>",
        "<p>Copyright: Gisele Wender</p>",
        "<p>Aktualisiert am 17.01.2021.</p>",
        "<p>page.html - Created 03-10-2004 2:20pm - Last Modified: 03-10-2004 2:20pm</p>",
        "<p>Es werden die Weine 1 bis 10 von insgesamt 19 angezeigt!</p>",
        "<h3><a href='/other'>Another story entirely, linked</a></h3>",
        "<tr><td>Kommentare insgesamt: 0</td></tr>",
    ],
)
def test_boilerplate_blocks(html: str) -> None:
    assert is_boilerplate_block(block(html))


@pytest.mark.parametrize(
    "html",
    [
        "<p>Read the report's second chapter before the vote, said the chair.</p>",
        "<p>The photo agency credited the image to a freelancer in court papers.</p>",
        "<h3>How the vote went</h3>",
        "<p>Please support our work: the campaign asked residents to donate.</p>",
    ],
)
def test_content_blocks_are_kept(html: str) -> None:
    assert not is_boilerplate_block(block(html))


def test_support_us_appeals_only_go_in_the_second_half() -> None:
    appeal = "<p>If you enjoyed reading this post, would you consider supporting our work?</p>"
    prose = "".join(f"<p>Paragraph {i} of the article body.</p>" for i in range(6))
    early = block(f"<div>{appeal}{prose}</div>")
    late = block(f"<div>{prose}{appeal}</div>")
    assert remove_boilerplate_blocks(early) == 0
    assert remove_boilerplate_blocks(late) == 1


SEARCHED = [
    (boilerplate.SUPPORT_US, boilerplate.SUPPORT_US_WORDS),
    (boilerplate.AFFILIATE, boilerplate.AFFILIATE_WORDS),
]
"""The patterns searched anywhere in a block, each with the words that let a block skip it."""


def _always_holds(items: list[tuple[object, object]], words: tuple[str, ...]) -> bool:
    """Whether every string the parsed sequence `items` matches holds one of `words`: some
    run of literals in it holds one, or some part that must match always does (a group, a
    branch all of whose alternatives do, a repeat of at least once)."""
    run: list[str] = []
    for op, value in [*items, (None, None)]:
        if op is sre.LITERAL:
            run.append(chr(value).lower())  # type: ignore[arg-type]
            continue
        if any(word in "".join(run) for word in words):
            return True
        run = []
        if op is sre.SUBPATTERN and _always_holds(value[-1], words):  # type: ignore[index]
            return True
        if op is sre.BRANCH and all(_always_holds(b, words) for b in value[1]):  # type: ignore[index]
            return True
        repeats = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
        if op in repeats and value[0] >= 1 and _always_holds(value[2], words):  # type: ignore[index]
            return True
    return False


@pytest.mark.parametrize(("pattern", "words"), SEARCHED)
def test_every_match_of_a_searched_pattern_holds_one_of_its_words(
    pattern: re.Pattern[str], words: tuple[str, ...]
) -> None:
    assert pattern.flags & re.IGNORECASE
    assert all(word.isascii() and word == word.lower() for word in words)
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    assert _always_holds(list(parsed), words)
    # the check itself: a pattern with an alternative that holds none of the words fails it
    assert not _always_holds(list(_parser.parse(pattern.pattern + "|elsewhere", re.I)), words)


def test_only_three_characters_beyond_ascii_fold_to_a_word_character_but_not_by_lowering() -> None:
    """`_holds` lowers the text to look for the words; a character `re.IGNORECASE` matches to
    a character of a word but `str.lower` does not turn into it must make it search anyway."""
    alphabet = {char for _, words in SEARCHED for word in words for char in word}
    any_of = re.compile(f"[{re.escape(''.join(sorted(alphabet)))}]", re.IGNORECASE)
    each = {char: re.compile(re.escape(char), re.IGNORECASE) for char in alphabet}
    folding = set()
    for code in range(sys.maxunicode + 1):
        if any_of.fullmatch(chr(code)):
            matched = {char for char, one in each.items() if one.fullmatch(chr(code))}
            if chr(code).lower() not in matched:
                folding.add(chr(code))
    assert folding == set(boilerplate._FOLDS_TO_ASCII)


_PIECES = st.one_of(
    st.sampled_from([w for _, words in SEARCHED for w in words]).map(str.upper),
    st.sampled_from(boilerplate._FOLDS_TO_ASCII),
    st.from_regex(boilerplate.AFFILIATE),
    st.from_regex(boilerplate.SUPPORT_US),
    st.text(max_size=20),
)


@settings(max_examples=300)
@given(pieces=st.lists(_PIECES, max_size=6), which=st.sampled_from(SEARCHED))
def test_the_word_gate_answers_as_the_search_does(
    pieces: list[str], which: tuple[re.Pattern[str], tuple[str, ...]]
) -> None:
    pattern, words = which
    text = " ".join(pieces)
    assert boilerplate._holds(text, pattern, words) == (pattern.search(text) is not None)


def test_lead_found_through_the_description() -> None:
    tree = lxml.html.document_fromstring(
        "<html><body><h1>Title</h1><p class='x'><strong>Bundespräsident</strong> Frank-Walter "
        "Steinmeier lädt jedes Jahr zum Neujahrsempfang ins Schloss Bellevue.</p></body></html>"
    )
    description = "Bundespräsident Frank-Walter Steinmeier lädt jedes Jahr zum Neujahrsempfang"
    assert find_lead(tree, description) == (
        "Bundespräsident Frank-Walter Steinmeier lädt jedes Jahr zum Neujahrsempfang ins "
        "Schloss Bellevue."
    )
    assert find_lead(tree, "A description that the page does not show anywhere at all") is None


def test_named_lead_near_the_heading_and_not_elsewhere() -> None:
    page = (
        "<html><body><article><header><h1>Title</h1>"
        "<p class='article-lead'>The lead paragraph that the extractor dropped, long enough.</p>"
        "</header><p>Body.</p></article>"
        "<aside><div class='teaser'>A teaser for another story that must not become the lead.</div></aside>"
        "</body></html>"
    )
    tree = lxml.html.document_fromstring(page)
    assert find_named_lead(tree) == "The lead paragraph that the extractor dropped, long enough."
    far = lxml.html.document_fromstring(page.replace("class='article-lead'", "class='x'"))
    assert find_named_lead(far) is None


def test_title_line_only_when_the_h1_is_the_articles_title() -> None:
    from laika_host.capture.metadata import PageMetadata
    from laika_host.capture.pipeline import _article_title

    def meta(h1: str | None, title: str | None) -> PageMetadata:
        return PageMetadata(title, h1, None, None, None, None, None, None)

    assert (
        _article_title(meta("Rail strike ends", "Rail strike ends | News Site"))
        == "Rail strike ends"
    )
    assert _article_title(meta("Press releases", "Rail strike ends after three days")) is None
    assert _article_title(meta(None, "Only the title")) == "Only the title"
    assert _article_title(meta("Only the heading", None)) == "Only the heading"
