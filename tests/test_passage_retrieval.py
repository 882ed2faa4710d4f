"""Passage retrieval (issue #26): the index follows every write, search reads any of the
question's words, and the pack sends the passage that answers even when its page is far
larger than a small model's window.

Real SQLite files, the product's own write paths (save, refresh, title change, delete,
collection delete) and a store migrated from the schema before passages."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from laika_host.agent.flows import _pack
from laika_host.capture import capture_html
from laika_host.demo.pages import PAGES
from laika_host.store import Store, open_store

EVIDENCE = "The harbour master logs the spring tide at 4.1 metres on the eastern gauge."
FILLER = (
    "Visitors walk along the promenade, buy ice cream and watch the ferries come and go "
    "from the terminal while gulls circle over the fish market. "
)


def long_page(evidence: str = EVIDENCE, sections: int = 40) -> bytes:
    """An article of about 40 sections of filler with the evidence deep in section 31."""
    parts = []
    for number in range(sections):
        body = FILLER * 4 + (evidence if number == 31 else "")
        parts.append(f"<h2>Section {number}</h2><p>{body}</p>")
    return (
        "<html><head><title>A day at the harbour</title></head><body><article>"
        f"<h1>A day at the harbour</h1>{''.join(parts)}</article></body></html>"
    ).encode()


def run(db: Path, work: Callable[[Store], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with open_store(db) as store:
            return await work(store)

    return asyncio.run(main())


async def save(store: Store, html: bytes, url: str, collection: str = "Harbour") -> str:
    saved = await store.sources.save_capture(collection, capture_html(html, url))
    return saved.source.id


def test_a_saved_source_is_searchable_by_passage_at_once(tmp_path: Path) -> None:
    async def work(store: Store) -> list[Any]:
        await save(store, long_page(), "https://harbour.test/day")
        for page in PAGES:
            await save(store, page.html.encode(), page.url)
        return await store.passages.search("spring tide eastern gauge metres")

    hits = run(tmp_path / "laika.db", work)
    assert hits
    assert hits[0].heading.endswith("Section 31")


def test_the_index_follows_refresh_title_delete_and_collection_delete(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    changed = "The harbour master logs a neap tide of 1.2 metres on the western gauge."

    async def work(store: Store) -> dict[str, Any]:
        source_id = await save(store, long_page(), "https://harbour.test/day")
        other = await save(store, long_page(), "https://harbour.test/day", collection="Other")
        found: dict[str, Any] = {}
        await save(store, long_page(changed), "https://harbour.test/day")  # a new version
        found["old words"] = await store.passages.search("eastern", collection_id=await cid(store))
        found["new words"] = await store.passages.search("western", collection_id=await cid(store))
        await store.db.connection.execute(
            "UPDATE sources SET title = 'Lighthouse notes' WHERE id = ?", (source_id,)
        )
        await store.db.connection.commit()
        found["title"] = await store.passages.search("lighthouse")
        await store.sources.delete(source_id)
        found["deleted"] = await store.passages.search("western")
        await store.collections.delete("Other")
        found["collection deleted"] = await store.passages.search("eastern")
        found["rows"] = await store.db.fetch_one("SELECT count(*) FROM passages")
        found["other"] = other
        return found

    async def cid(store: Store) -> str:
        return (await store.collections.get("Harbour")).id

    found = run(db, work)
    assert found["old words"] == []
    assert next(hit.heading for hit in found["new words"]).endswith("Section 31")
    assert {hit.source_id for hit in found["title"]} == {
        hit.source_id for hit in found["new words"]
    }
    assert found["deleted"] == []
    assert found["collection deleted"] == []
    assert found["rows"][0] == 0
    assert run(db, lambda store: store.integrity_check()) == ["ok"]


def test_a_collection_filter_scores_only_that_collection(tmp_path: Path) -> None:
    async def work(store: Store) -> tuple[set[str], set[str]]:
        mine = await save(store, long_page(), "https://harbour.test/a", collection="Mine")
        await save(store, long_page(), "https://harbour.test/b", collection="Theirs")
        collection = await store.collections.get("Mine")
        inside = await store.passages.search("spring tide", collection_id=collection.id)
        everywhere = await store.passages.search("spring tide")
        return {h.source_id for h in inside}, {h.source_id for h in everywhere} - {mine}

    inside, others = run(tmp_path / "laika.db", work)
    assert len(inside) == 1
    assert others
    assert not inside & others


def test_a_store_from_before_passages_is_indexed_on_first_search(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    run(db, lambda store: save(store, long_page(), "https://harbour.test/day"))
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        for trigger in ("queue_insert", "queue_update", "follow_source", "drop_source"):
            connection.execute(f"DROP TRIGGER passages_{trigger}")
        for table in ("passages_fts", "passages", "passage_queue"):
            connection.execute(f"DROP TABLE {table}")
        connection.execute("ALTER TABLE sources DROP COLUMN redacted_with")  # m009's
        connection.execute("DROP INDEX sources_by_status")  # m010's
        connection.execute(
            "DELETE FROM _migrations WHERE name IN "
            "('m008_passages', 'm009_redaction_stamp', 'm010_sources_by_status')"
        )
        connection.execute("PRAGMA user_version = 7")

    progress: list[tuple[int, int]] = []

    async def work(store: Store) -> tuple[int, list[Any]]:
        queued = await store.passages.pending()
        await store.passages.catch_up(lambda done, total: progress.append((done, total)))
        return queued, await store.passages.search("eastern gauge")

    queued, hits = run(db, work)
    assert queued == 1
    assert progress == [(1, 1)]
    assert hits
    assert hits[0].heading.endswith("Section 31")


def test_the_evidence_reaches_a_small_window_where_the_whole_page_cannot(tmp_path: Path) -> None:
    """A 2,048-token model: the page is about 9,000 tokens, so whole-source packing sent
    its title or summary. Now the passage that answers goes in, under its heading."""

    async def work(store: Store) -> Any:
        await save(store, long_page(), "https://harbour.test/day")
        for page in PAGES:
            await save(store, page.html.encode(), page.url)
        collection = await store.collections.get("Harbour")
        return await _pack(
            store, collection.id, collection.title, "How high was the spring tide?", 1_200
        )

    pack = run(tmp_path / "laika.db", work)
    sent = " ".join(str(d["content"].get("markdown", "")) for d in pack.documents)
    assert EVIDENCE in " ".join(sent.split())
    assert "Section 31" in sent
    assert pack.tokens <= pack.budget
    assert "as the passages that match the question" in (pack.note() or "")


def test_an_ask_packs_to_the_window_the_server_reports(tmp_path: Path) -> None:
    """llama-server started with `-c 16384` says so in `/props`: the whole page goes in. The
    same server at 2,048 gets the passage that answers, not the page's title."""
    from laika_host.agent.flows import ask
    from laika_host.llm.config import ProviderConfig
    from laika_host.llm.window import forget

    from llm_servers import ProviderServer, Reply, openai_sse

    db = tmp_path / "laika.db"
    run(db, lambda store: save(store, long_page(), "https://harbour.test/day"))
    sent: dict[int, str] = {}
    for window in (16_384, 2_048):
        forget()
        props = {"/props": {"default_generation_settings": {"n_ctx": window}}}
        server = ProviderServer([Reply(chunks=openai_sse(["The tide."]))], windows=props)
        provider = ProviderConfig(
            id="llama", kind="openai_compatible", model="m", base_url=server.url + "/v1"
        )
        try:
            run(
                db,
                lambda store, p=provider: ask(
                    store, "How high was the spring tide?", "Harbour", provider=p
                ),
            )
        finally:
            server.close()
        chat = [r for r in server.received if r.path.endswith("/chat/completions")]
        sent[window] = " ".join(str(m["content"]) for m in chat[0].body["messages"]).replace(
            "\\n", " "
        )
    assert "Section 0" in sent[16_384]
    assert "Section 39" in sent[16_384]  # the whole page
    assert "Section 31" in sent[2_048]
    assert "Section 0" not in sent[2_048]  # only what answers, and its neighbours
    assert EVIDENCE in " ".join(sent[2_048].split())


def test_a_passage_too_long_for_the_budget_goes_in_as_its_answering_sentences() -> None:
    """At a tiny budget the passage that matches is cut to the sentence holding the
    question's words (and neighbours while they fit), marked `[…]` where it was cut."""
    from laika_host.agent.pack import SourceText
    from laika_host.agent.passage_pack import pack_passages
    from laika_host.store.passage_index import PassageHit

    sentences = [f"Sentence {n} tells of ferries and gulls over the quay." for n in range(30)]
    sentences[17] = EVIDENCE
    markdown = " ".join(sentences)
    source = SourceText("src_1", "https://h.test/a", "Harbour", markdown, markdown, "Summary.")
    hit = PassageHit("src_1", 0, "", 0, len(markdown), -5.0)
    pack = pack_passages(
        "col_1",
        "Harbour",
        {"src_1": source},
        [hit],
        {"src_1": {0: (0, len(markdown), "")}},
        budget_tokens=300,
        question="spring tide at the eastern gauge",
    )
    [document] = pack.documents  # a small window lists no index of what it sends
    sent = str(document["content"]["markdown"])
    assert EVIDENCE in sent
    assert sent.startswith("[…]")
    assert sent.endswith("[…]")
    assert len(sent) < len(markdown) / 3
    assert pack.tokens <= pack.budget


def test_a_small_window_lists_only_the_sources_it_does_not_send() -> None:
    """Under 2,000 tokens the index is made last, of the sources not sent, and only when it
    fits what the passages left; at a larger budget it comes first and lists the best."""
    from laika_host.agent.pack import SourceText
    from laika_host.agent.passage_pack import pack_passages
    from laika_host.store.passage_index import PassageHit

    def source(n: int, words: int) -> SourceText:
        text = " ".join(["Ferries cross the quay at dawn."] * words)
        return SourceText(f"src_{n}", f"https://h.test/{n}", f"Page {n}", text, text, "")

    sources = {f"src_{n}": source(n, 3 if n == 0 else 60) for n in range(6)}
    hit = PassageHit("src_0", 0, "", 0, len(sources["src_0"].markdown), -5.0)
    for budget in (300, 945, 1_500, 6_000):
        pack = pack_passages(
            "col_1", "Harbour", sources, [hit], {}, budget_tokens=budget, question="ferries"
        )
        indexes = [d for d in pack.documents if d["kind"] == "collection.index.v1"]
        listed = {e["source_id"] for d in indexes for e in d["content"]["sources"]}
        sent = {d["content"]["source_id"] for d in pack.documents if d not in indexes}
        assert pack.tokens <= pack.budget
        assert "src_0" in sent
        assert pack.unlisted == len(sources) - len(sent | listed), budget
        if budget < 2_000:
            assert listed.isdisjoint(sent), budget
        else:
            assert pack.documents[0] is indexes[0]
            assert "src_0" in listed
