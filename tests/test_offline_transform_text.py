"""What the offline transforms show a reader, over the whole input space of their text tests:
a sentence cut out of a longer quotation (its first or last piece: a middle one is a whole
sentence), or one pointing back to a sentence not shown, is never picked; a title loses only the site's name after it; a byline gives names, never its
lead, a handle or shouting capitals; a year that describes a thing is not an event's date."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from laika_host.llm.evidence import split_sentences
from laika_host.transform.corpus import (
    POINTS_BACK,
    POINTS_BACK_BEFORE_NOUN,
    introduces,
    quotes_pair,
    stands_alone,
    without_site,
)
from laika_host.transform.offline.authors import authors, people
from laika_host.transform.offline.patterns import when

WORD = st.text(string.ascii_lowercase, min_size=3, max_size=9).filter(
    lambda w: w not in POINTS_BACK | POINTS_BACK_BEFORE_NOUN
)
NAME = st.text(string.ascii_lowercase, min_size=2, max_size=9).map(str.capitalize)


def sentence(words: list[str]) -> str:
    return " ".join([words[0].capitalize(), *words[1:]])


@given(st.lists(st.lists(WORD, min_size=5, max_size=9), min_size=2, max_size=4), NAME, NAME)
def test_a_sentence_split_out_of_a_quotation_is_never_picked(
    quoted: list[list[str]], first: str, last: str
) -> None:
    inner = " ".join(f"{sentence(words)}." for words in quoted)[:-1]
    paragraph = f"\u201c{inner},\u201d said {first} {last} on the radio."
    pieces = split_sentences(paragraph)
    assert len(pieces) == len(quoted)  # the splitter cuts inside the quotation...
    marked = [piece for piece in pieces if set(piece) & set("\u201c\u201d")]
    assert len(marked) == 2  # ...so its first and last pieces hold half of it
    assert not any(quotes_pair(piece) for piece in marked)
    assert quotes_pair(paragraph)


@given(st.lists(WORD, min_size=5, max_size=12), st.sampled_from(["This", "It", "However,"]))
def test_a_sentence_that_points_back_does_not_stand_alone(words: list[str], opener: str) -> None:
    assert stands_alone(f"{sentence(words)}.")
    assert not stands_alone(f"{opener} {' '.join(words)}.")
    assert not stands_alone(f"{sentence(words)}:")
    assert introduces(f"{sentence(words)}:")


TITLE_WORD = st.text(string.ascii_letters + string.digits + "'", min_size=1, max_size=10)
SITE_WORD = st.text(string.ascii_letters + string.digits, min_size=4, max_size=10)


@given(
    st.lists(TITLE_WORD, min_size=1, max_size=10),
    st.lists(SITE_WORD, min_size=1, max_size=5),
    st.sampled_from([" | ", " - ", " \u2013 ", " \u2014 "]),
)
def test_a_title_loses_only_the_site_after_it(
    head: list[str], site: list[str], separator: str
) -> None:
    title = " ".join(head)
    named = f"{title}{separator}{' '.join(site)}"
    own_site = f"https://www.{''.join(site).lower()}.example/page"
    assert without_site(named, own_site) == title
    assert without_site(title, own_site) == title
    # after a dash, words that do not name the page's host are part of the title
    kept = without_site(named, "https://q.zz/page")
    assert kept == (title if separator == " | " else named)


@given(st.text(max_size=200))
def test_any_byline_text_gives_names_drawn_from_it(byline: str) -> None:
    lowered = byline.casefold()
    for name in people(byline):
        assert name.strip()
        assert not name.startswith("@")
        assert all(word.casefold() in lowered for word in name.split())
    for author in authors(byline) or []:
        assert author.family
        assert author.apa().startswith(author.family)


@given(st.lists(st.tuples(NAME, NAME), min_size=1, max_size=3), st.booleans())
def test_a_byline_of_names_becomes_each_styles_names(
    names: list[tuple[str, str]], shout: bool
) -> None:
    written = " and ".join(f"{given} {family}" for given, family in names)
    byline = f"View all posts by {written.upper() if shout else written}"
    found = authors(byline)
    assert found is not None
    assert [(a.given, a.family) for a in found] == [((g,), f) for g, f in names]
    assert found[0].apa() == f"{names[0][1]}, {names[0][0][0]}."
    assert found[0].inverted() == f"{names[0][1]}, {names[0][0]}"


@given(NAME, st.integers(1000, 2099), st.lists(WORD, min_size=2, max_size=6))
def test_a_year_that_describes_a_thing_is_not_the_events_date(
    owner: str, year: int, rest: list[str]
) -> None:
    described = f"The museum bought {owner}'s {year} {rest[0].capitalize()} for {' '.join(rest)}."
    found = when(described)
    assert found is None or found.key[0] == 1  # a time phrase at most, never that year
    placed = f"The museum bought {owner}'s painting in {year} for {' '.join(rest)}."
    dated = when(placed)
    assert dated is not None
    assert dated.label == str(year)
