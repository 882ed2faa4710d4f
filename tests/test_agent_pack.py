"""Packing within a budget: tiers by relevance, untrusted documents, stable ids, the note."""

from __future__ import annotations

from laika_host.agent.pack import SourceText, estimate_tokens, pack_collection, pack_page
from laika_host.protocol.request import Context


def source(number: int, chars: int, relevance: float) -> SourceText:
    text = f"Source {number} " + "word " * (chars // 5)
    return SourceText(
        source_id=f"src_{number}",
        url=f"https://s.test/{number}",
        title=f"Source {number}",
        markdown=f"# {text}",
        text=text,
        summary=text[:300],
        relevance=relevance,
    )


def test_everything_fits_in_full_with_valid_untrusted_documents() -> None:
    pack = pack_collection(
        "col_1", "Small", [source(1, 1000, 0.5), source(2, 1000, 0.9)], budget_tokens=10_000
    )
    assert pack.tiers == {"src_2": "full", "src_1": "full"}
    assert pack.note() is None
    assert [d["doc_id"] for d in pack.documents] == ["index:col_1", "src:src_2", "src:src_1"]
    assert all(d["trust"] == "untrusted" for d in pack.documents)
    Context.model_validate({"documents": pack.documents})  # valid LLMCP context documents
    assert pack.tokens <= pack.budget


def test_over_budget_the_most_relevant_go_full_then_summaries_then_titles() -> None:
    items = [source(n, 6000, relevance=n / 10) for n in range(10)]
    pack = pack_collection("col_1", "Big", items, budget_tokens=3_500)
    assert pack.tiers["src_9"] == "full"  # the most relevant
    assert "summary" in pack.tiers.values()
    assert "title" in pack.tiers.values()
    assert pack.tiers["src_0"] == "title"  # the least relevant
    assert pack.tokens <= pack.budget
    note = pack.note()
    assert note is not None
    assert "as titles only" in note
    index = pack.documents[0]["content"]["sources"]
    assert {entry["source_id"] for entry in index} == {f"src_{n}" for n in range(10)}
    summaries = [d for d in pack.documents[1:] if d["doc_id"] != "src:src_9"]
    assert all(
        "[Truncated: captured partial content]" in d["content"]["markdown"] for d in summaries
    )
    # citations are checked against full text, whatever tier was sent
    assert {s.doc_id for s in pack.sources} == {d["doc_id"] for d in pack.documents[1:]}


def test_a_tiny_context_lists_only_the_most_relevant_titles() -> None:
    items = [source(n, 500, relevance=n) for n in range(300)]
    pack = pack_collection("col_1", "Many", items, budget_tokens=1_000)
    listed = pack.documents[0]["content"]["sources"]
    assert len(listed) < 300
    assert listed[0]["source_id"] == "src_299"
    assert pack.unlisted == 300 - len(listed)
    assert f"{pack.unlisted} more sources were not sent at all" in (pack.note() or "")
    assert estimate_tokens(str(listed)) < 1_000


def test_a_long_page_becomes_a_summary_and_chunks() -> None:
    pack = pack_page(
        url="https://p.test/a",
        title="A",
        markdown="# A\n\nbody",
        text="A body",
        summary="A body",
        chunks=["part one", "part two"],
        content_hash="f" * 64,
        signals=[],
        links=[],
    )
    kinds = [d["kind"] for d in pack.documents]
    assert kinds == [
        "web.observation.summary.v1",
        "web.observation.chunk.v1",
        "web.observation.chunk.v1",
    ]
    assert pack.documents[2]["content"]["chunk_index"] == 2
    Context.model_validate({"documents": pack.documents})
    assert {s.doc_id for s in pack.sources} == {d["doc_id"] for d in pack.documents}
