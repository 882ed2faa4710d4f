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


@given(st.permutations(range(12)), st.permutations(range(12)))
def test_fusion_keeps_what_both_orders_rank_first_and_drops_nothing(
    first: list[int], second: list[int]
) -> None:
    from laika_host.agent.passage_rank import _fused

    ranks = []
    for order in (first, second):
        rank = [0] * len(order)
        for place, at in enumerate(order):
            rank[at] = place
        ranks.append(rank)
    fused = _fused(ranks, list(second))
    assert sorted(fused) == list(range(12))
    if first[0] == second[0]:
        assert fused[0] == first[0]
    if first == second:
        assert fused == list(first)
    # a passage is never below one that both orders rank under it
    position = {at: place for place, at in enumerate(fused)}
    for a in range(12):
        for b in range(12):
            if ranks[0][a] < ranks[0][b] and ranks[1][a] < ranks[1][b]:
                assert position[a] < position[b]


def test_the_searchs_first_hit_stays_near_the_top_when_rescoring_ranks_it_low() -> None:
    """Among many passages sharing the question's words, rescoring alone puts the page the
    search ranked first last of 31; fused with the search's order it stays in the first ten
    (what an 8,192-token window reads)."""
    words = "Python installer website download windows"
    markdown = {f"s{n}": f"{words} {words} release notes.".ljust(80) for n in range(30)}
    markdown["right"] = "Download the installer from the Python website.".ljust(80)
    hits = [_hit("right", 0, 0)] + [_hit(f"s{n}", 0, 0) for n in range(30)]
    hits = [PassageHit(h.source_id, 0, "", 0, 80, -1.0) for h in hits]
    ranked = rerank("How do I get the installer from the Python website?", hits, markdown)
    assert [h.source_id for h in ranked].index("right") < 10
