"""The retrieval benchmark's question set (bench/data/retrieval_questions.json) is well formed.

bench/retrieval.py measures whether the sentence that answers each question reaches the model's
pack (issue 26); it is only as good as its questions. Each answerable question names a
capture-dev page and the sentence of that page's capture that answers it (the evidence), so
the evidence must be in the capture as the product stores it, and in no other page of the set
(otherwise "the right page" would be ambiguous). The corpus is third-party pages kept beside
the clone; without it the capture check is skipped.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from support import bench_module, capture_dev_corpus

bench = bench_module("retrieval")
LANGUAGES = {"de", "en", "es", "fr", "it", "pl", "pt", "no"}


def test_the_question_set_is_big_varied_and_has_no_duplicates() -> None:
    questions = bench.load_questions()
    answerable = [q for q in questions if q["answerable"]]
    unanswerable = [q for q in questions if not q["answerable"]]
    assert len(answerable) >= 190
    assert len(unanswerable) >= 40
    asked = Counter(" ".join(q["question"].casefold().split()) for q in questions)
    assert [q for q, n in asked.items() if n > 1] == []
    pages = Counter(q["page"] for q in answerable)
    assert [p for p, n in pages.items() if n > 1] == []
    evidence = Counter(bench.norm(q["evidence"]) for q in answerable)
    assert [e for e, n in evidence.items() if n > 1] == []
    for q in answerable:
        assert isinstance(q["page"], str), q
        assert q["page"].endswith(".html"), q
        assert q["language"] in LANGUAGES, q
        assert isinstance(q["paraphrase"], bool), q
        assert 40 <= len(q["evidence"]) <= 300, q
        assert q["evidence"] == bench.norm(q["evidence"]), f"not whitespace-normalized: {q}"
        assert bench.norm(q["question"]) != q["evidence"], q
        assert q["question"].rstrip().endswith("?"), q
    for q in unanswerable:
        assert q["page"] is None, q
        assert q["evidence"] is None, q
        assert q["language"] in LANGUAGES, q
        assert q["topic"] in {"general", "near"}, q
    paraphrased = sum(q["paraphrase"] for q in answerable)
    assert paraphrased * 4 >= len(answerable), "about a third should be paraphrased"
    assert len({q["language"] for q in answerable}) >= 5


@pytest.mark.corpus
@pytest.mark.slow  # captures 200+ pages: > 3 s with the cores busy
def test_every_evidence_is_in_its_page_capture_and_no_other() -> None:
    corpus = capture_dev_corpus()
    expected = bench.expectations(corpus)
    answerable = [q for q in bench.load_questions() if q["answerable"]]
    texts: dict[str, tuple[str, str]] = {}
    for q in answerable:
        assert q["page"] in expected, f"{q['page']} is not a capture-dev page"
        capture = bench.capture_page(corpus, q["page"], bench.page_url(expected[q["page"]]))
        texts[q["page"]] = (bench.norm(capture.markdown), bench.norm(capture.text))
    for q in answerable:
        markdown, text = texts[q["page"]]
        assert q["evidence"] in markdown, f"{q['page']}: the evidence is not in the Markdown"
        assert q["evidence"] in text, f"{q['page']}: the evidence is not in the text"
        elsewhere = [p for p, (m, _) in texts.items() if p != q["page"] and q["evidence"] in m]
        assert elsewhere == [], f"{q['page']}: the evidence is also in {elsewhere}"


def test_the_peer_ors_the_words_and_packs_whole_sources_within_the_budget() -> None:
    peer = bench.Peer()
    peer.add(
        [
            bench.PeerSource("a", "Tides", "spring tides at the harbour", "spring tides " * 30),
            bench.PeerSource("b", "Moon", "the moon and the sun", "moon " * 300),
            bench.PeerSource("c", "Other", "nothing relevant here", "other"),
        ]
    )
    assert [s.source_id for s in peer.ranked("Moon, spring tides?")] == ["a", "b"]
    assert [s.source_id for s in peer.pack("Moon, spring tides?", 200)] == ["a"]  # b: too big
    assert peer.ranked("?") == []


def test_evidence_is_found_in_any_string_of_the_pack_whitespace_normalized() -> None:
    documents = [{"content": {"passages": [{"markdown": "One.\n\nThe  answer\nis here. Two."}]}}]
    assert bench.reached("The answer is here.", documents)
    assert not bench.reached("The answer is not here.", documents)


def test_distractors_never_hold_an_evidence_sentence() -> None:
    banned = ["The evidence sentence sits in this paragraph."]
    markdown = (
        "# Title\n\nA first paragraph that is long enough to be kept as a distractor piece.\n\n"
        "Before. The evidence sentence sits in this paragraph. After, and long enough.\n\n"
        "A third paragraph, long enough as well to be kept for recombination here."
    )
    kept = bench.paragraphs(markdown, banned)
    assert len(kept) == 2
    assert not any(banned[0] in bench.norm(block) for block in kept)
    rng = bench.random.Random(1)
    made = list(bench.distractor_texts([("Title", kept)], 20, rng))
    assert len(made) == 20
    assert all(len(body) >= 1_000 for _, body in made)
    assert not any(re.search("evidence sentence", body) for _, body in made)
