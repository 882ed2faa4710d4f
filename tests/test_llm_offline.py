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


def test_a_sentence_read_with_its_neighbours_answers_what_it_alone_does_not_name() -> None:
    tower = Passage(
        "src_tower",
        "The Eiffel Tower stands on the Champ de Mars in Paris. It opened to visitors in 1889, "
        "two years after building began.",
        "Eiffel Tower",
    )
    result = answer("When did the Eiffel Tower open?", [tower, BREAD])
    assert result.supported
    assert any(q.quote.startswith("It opened to visitors in 1889") for q in result.citations)


def test_sentences_that_miss_most_of_the_question_are_offered_as_leads_not_an_answer() -> None:
    """Half the question's weight is no answer: the closest sentences are quoted and cited,
    and the answer says plainly that they do not answer it as asked."""
    result = answer("What do sailors read in hurricanes?", [TIDES, BREAD])
    assert not result.supported
    assert [q.source_id for q in result.citations] == ["src_tides"]
    assert result.markdown.startswith("No sentence in your sources answers this as asked")
    assert "do not mention “hurricanes”" in result.markdown
    assert "come nearest" in result.markdown


_VOCABULARY = [f"{a}{b}{c}ox" for a in "bdfgk" for b in "aeiou" for c in "lmnrt"]


@given(
    st.lists(st.lists(st.sampled_from(_VOCABULARY), min_size=4, max_size=12), min_size=1),
    st.lists(st.sampled_from(_VOCABULARY), min_size=1, max_size=6),
)
def test_an_answer_is_supported_only_when_one_sentence_in_context_holds_most_of_the_question(
    texts: list[list[str]], asked: list[str]
) -> None:
    passages = [
        Passage(f"src_{n}", "The " + " and the ".join(words) + ".") for n, words in enumerate(texts)
    ]
    assert all(p.sentences() == [p.text] for p in passages)  # each is one sentence of prose
    result = answer(f"Why {' '.join(asked)}?", passages)
    held = [set(words) for words in texts]
    wanted = set(asked)
    if not any(wanted & words for words in held):
        assert not result.supported
        assert result.citations == []
    if any(wanted <= words for words in held):
        assert result.supported
    if result.supported:  # each sentence is its whole passage here: no neighbours to read
        assert any(len(wanted & words) * 2 > len(wanted) for words in held)


def test_a_question_asking_for_a_number_is_answered_only_by_a_sentence_holding_one() -> None:
    munich = Passage(
        "src_munich",
        "Munich's goalkeeper faced a storm of shots from the visitors all evening.\n\n"
        "The people of Munich came to the stadium in their thousands.",
        "Hockey",
    )
    result = answer("How many goalkeepers does Munich have?", [munich])
    assert not result.supported
    assert result.citations  # the closest sentences are still offered
    assert "the closest give no number" in result.markdown
    counted = Passage("src_count", "Munich has three goalkeepers on its roster this season.")
    assert answer("How many goalkeepers does Munich have?", [munich, counted]).supported
