"""The passage search's hits reordered by how much of the question each covers
(`agent.passage_rank`): each candidate at most once, the covering passage first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from laika_host.agent.passage_rank import TOP_SOURCES, candidates, rerank
from laika_host.store.passage_index import PassageHit


def _hit(source: str, ordinal: int, text_at: int, score: float = -1.0) -> PassageHit:
    return PassageHit(source, ordinal, "", text_at, text_at + 40, score)


def test_the_passage_holding_every_word_beats_one_repeating_a_rare_word() -> None:
    markdown = {
        "a": "Zebra zebra zebra zebra stripes.".ljust(40) + "The ermine mates in summer.".ljust(40),
        "b": "Ermine fur was a symbol of purity.".ljust(40),
    }
    hits = [_hit("a", 0, 0), _hit("b", 0, 0), _hit("a", 1, 40)]
    ranked = rerank("When does the ermine mate in summer?", hits, markdown)
    assert ranked[0] == hits[2]


def test_every_passage_of_the_best_sources_joins_the_candidates() -> None:
    hits = [_hit(f"s{n}", 0, 0) for n in range(TOP_SOURCES + 2)]
    spans = {f"s{n}": {0: (0, 40, ""), 1: (40, 80, "H")} for n in range(TOP_SOURCES + 2)}
    found = {(hit.source_id, hit.ordinal) for hit in candidates(hits, spans)}
    assert found == {(f"s{n}", 0) for n in range(TOP_SOURCES + 2)} | {
        (f"s{n}", 1) for n in range(TOP_SOURCES)
    }


_WORDS = st.sampled_from(["tide", "tides", "moon", "ocean", "rise", "fall", "the", "Ebbe"])


@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.lists(_WORDS, max_size=12)), max_size=30),
    st.lists(_WORDS, max_size=6),
)
def test_the_order_holds_each_candidate_at_most_once(
    passages: list[tuple[str, list[str]]], question: list[str]
) -> None:
    markdown: dict[str, str] = {}
    hits = []
    for ordinal, (source, words) in enumerate(passages):
        text = " ".join(words)
        start = len(markdown.get(source, ""))
        markdown[source] = markdown.get(source, "") + text
        hits.append(PassageHit(source, ordinal, "", start, start + len(text), 0.0))
    ranked = rerank(" ".join(question), hits, markdown)
    assert len(set(ranked)) == len(ranked)
    assert set(ranked) <= set(hits)
