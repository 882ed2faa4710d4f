"""The built-in offline runtime: extractive, verbatim, cited; says so when unsupported."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from laika_host.llm.offline import Passage, _inflected, answer, sentences

TIDES = Passage(
    "src_tides",
    "High tide comes twice a day because the moon pulls the oceans.\n\n"
    "Sailors read the tide tables before leaving port. Spring tides are the largest of the "
    "month, when sun and moon pull together.",
    "Tides",
)
BREAD = Passage(
    "src_bread",
    "Sourdough needs a lively starter and warm water. The dough rises slowly overnight, "
    "and the oven must be very hot.",
    "Bread",
)


def test_the_best_sentences_come_back_verbatim_with_their_source() -> None:
    result = answer("Why are spring tides the largest?", [BREAD, TIDES])
    assert result.supported
    first = result.citations[0]
    assert first.source_id == "src_tides"
    assert first.quote == (
        "Spring tides are the largest of the month, when sun and moon pull together."
    )
    for quote in result.citations:
        source = TIDES if quote.source_id == "src_tides" else BREAD
        assert quote.quote in " ".join(source.text.split())  # verbatim
    assert result.markdown.splitlines()[2] == f"- “{first.quote}” [1]"


def test_sources_are_ranked_across_passages_and_limited() -> None:
    result = answer("How hot must the oven be for sourdough?", [TIDES, BREAD], limit=1)
    assert [q.source_id for q in result.citations] == ["src_bread"]
    assert len(result.citations) == 1


def test_no_support_says_so_and_suggests_what_to_collect() -> None:
    result = answer("What about volcanoes?", [TIDES, BREAD])
    assert not result.supported
    assert result.citations == []
    assert "do not answer" in result.markdown
    assert "“volcanoes”" in result.markdown
    assert not answer("why?", [TIDES]).supported


def test_sentences_drop_markdown_syntax_and_fragments() -> None:
    text = "# Title\n\nA **bold** claim with [a link](https://x.test) in it. Ok.\n\n| a | b |"
    assert sentences(text) == ["A bold claim with a link in it."]


def test_a_question_about_the_gist_gets_the_opening_sentences() -> None:
    result = answer("What is this page about?", [TIDES])
    assert result.supported
    assert (
        result.citations[0].quote
        == "High tide comes twice a day because the moon pulls the oceans."
    )


def test_a_summary_of_several_sources_gives_each_its_say() -> None:
    result = answer("What are these sources about?", [TIDES, BREAD])
    assert [q.source_id for q in result.citations][:2] == ["src_tides", "src_bread"]


TECH = [
    Passage(
        "src_1",
        "Retailers capitalize on consumer rage with loud new adverts. "
        "The new phone ships with a faster chip and a larger battery this autumn. "
        "Analysts expect the chip shortage to ease by the end of the year.",
    )
]


def test_a_question_its_sources_do_not_cover_is_declined_naming_what_is_missing() -> None:
    """Over tech news, "capital of France" matched "capitalize on consumer rage": a
    derivation is not the word asked, and France is nowhere."""
    result = answer("What is the capital of France?", TECH)
    assert not result.supported
    assert result.citations == []
    assert "“capital”, “france”" in result.markdown
    assert result.markdown.startswith("Your sources do not answer this")


def test_a_question_they_cover_in_other_inflections_is_answered() -> None:
    result = answer("Which chips ship in the new phones?", TECH)
    assert result.supported
    assert "faster chip" in result.citations[0].quote


@given(st.text(alphabet="abcdefghiklmnorstuy", min_size=3, max_size=9))
def test_a_word_is_its_own_inflection_and_any_inflection_reads_both_ways(word: str) -> None:
    assert _inflected(word, word)
    for ending in ("s", "ed", "ing"):
        assert _inflected(word, word + ending) == _inflected(word + ending, word)
