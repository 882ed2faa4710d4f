"""Knowledge notes (spec 001) on a real store: offline, and with a real loopback server
speaking OpenAI's streaming format. The three phases are NDJSON streams validated per line (a
bad line logged and skipped, linear time); decisions are capped at 2 per block and page and
applied once a block's are complete; a broken stream keeps what came and the next run continues
from it without asking about any block twice; integrating again never duplicates a statement."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.capture import capture_html
from laika_host.demo.pages import PAGES
from laika_host.store import open_store
from laika_host.transform import run_transform
from laika_host.transform.items import Cited
from laika_host.transform.load import load_corpus
from laika_host.transform.ndjson import NdjsonItems
from laika_host.transform.notes import offline
from laika_host.transform.notes.blocks import Block, corpus_blocks
from laika_host.transform.notes.decisions import CAP, DecisionBuffer
from laika_host.transform.notes.models import PHASES, IntegrationDecisionChunk
from laika_host.transform.notes.notebook import Notebook, Statement, apply_block, norm
from test_transform_model import pieces, provider_for
from test_transform_offline import assert_safe, assert_structure, tokens

from llm_servers import ProviderServer, Reply, openai_sse

ACTIVITY_PAGE = """<html><head><title>My week</title></head><body><article><h1>My week</h1>
<p>I went to the farmers market yesterday and we bought three loaves of rye bread.</p>
<p>Subscribe to our newsletter and click here to read more stories like this one.</p>
<p>Glaciers are large masses of ice that form where more snow falls than melts each year.</p>
</article></body></html>"""
EXTRA_PAGE = """<html><head><title>Glaciers</title></head><body><article><h1>Glaciers</h1>
<p>A glacier is a persistent body of dense ice that moves slowly under its own weight.</p>
<p>About ten percent of the land on earth is covered by glacial ice today and in winter.</p>
</article></body></html>"""


def seed(db: Path, pages: list[tuple[str, str]]) -> None:
    async def main() -> None:
        async with open_store(db) as store:
            for url, html in pages:
                await store.sources.save_capture("Demo", capture_html(html.encode(), url))

    asyncio.run(main())


def demo_pages() -> list[tuple[str, str]]:
    return [(page.url, page.html) for page in PAGES]


def run(db: Path, server: ProviderServer | None = None, **kwargs: Any) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with open_store(db) as store:
            provider = provider_for(server) if server else None
            result = await run_transform(
                store, "Demo", "knowledge-notes", provider=provider, **kwargs
            )
            return result.to_json()

    return asyncio.run(main())


def blocks_of(db: Path) -> list[Block]:
    async def main() -> list[Block]:
        async with open_store(db) as store:
            return corpus_blocks(await load_corpus(store, "Demo"))

    return asyncio.run(main())


def statements(artifact: dict[str, Any]) -> list[tuple[str, str]]:
    return [(i["data"]["section"], i["data"]["statement"]) for i in artifact["items"]]


def ndjson(rows: list[dict[str, Any]]) -> list[str]:
    return openai_sse(pieces("".join(json.dumps(row) + "\n" for row in rows), 23))


def classified(block: Block, knowledge: bool = True) -> dict[str, Any]:
    return {"block_id": block.id, "is_knowledge": knowledge, "confidence": 0.9, "reason": "r"}


def reworded(block: Block, cite: bool = True) -> dict[str, Any]:
    row: dict[str, Any] = {"block_id": block.id, "reworded_content": block.sentences[0]}
    if cite:
        row["citations"] = [{"source_id": block.source_id, "quote": block.sentences[0]}]
    return row


def decision(block: Block, action: str, title: str | None, page: str = "Demo") -> dict[str, Any]:
    return {
        "knowledge_block_id": block.id,
        "target_page": page,
        "action": action,
        "target_block_id": None,
        "target_block_title": title,
        "confidence": 0.8,
        "reasoning": "fits",
    }


def asked_ids(server: ProviderServer, phase: str, blocks: list[Block]) -> list[str]:
    """The blocks each request of `phase` showed the model (under short ids), in order."""
    marker = {"classify": "Classify these", "reword": "Reword these"}[phase]
    by_text = {block.shown(): block.id for block in blocks}
    found = []
    for received in server.received:
        user = received.body["messages"][1]["content"]
        if user.startswith(marker):
            found += [by_text[t] for t in re.findall(r"Content: (.*)$", user, flags=re.MULTILINE)]
    return found


def alias(row: dict[str, Any], key: str, short: str) -> dict[str, Any]:
    """The row as a model writes it: the block under the short id it was shown."""
    return {**row, key: short}


# --- offline ------------------------------------------------------------------------------


def test_offline_notes_of_the_demo_are_sections_of_verified_statements(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    seed(db, [*demo_pages(), ("https://week.test/", ACTIVITY_PAGE)])
    artifact = run(db)["artifact"]
    assert artifact["status"] == "completed", artifact["error"]
    assert_structure("knowledge-notes", artifact)
    assert_safe(artifact["content_markdown"])
    assert all(item["verified"] for item in artifact["items"])
    sections = list(dict.fromkeys(section for section, _ in statements(artifact)))
    assert sections == [
        "Harbour tides",
        "Keeping a sourdough starter",
        "How honey bees survive the winter",
        "My week",
    ]
    headings = [t.content for t in tokens(artifact["content_markdown"]) if t.type == "inline"]
    assert all(title in headings for title in sections)
    said = " ".join(text for _, text in statements(artifact))
    assert "Glaciers are large masses of ice" in said  # the page's one general fact
    assert "farmers market" not in said
    assert "newsletter" not in said
    progress = artifact["progress"]["notes"]
    assert progress["based"] is True
    assert progress["provider"] == "offline"


def test_adding_a_source_integrates_its_notes_without_duplicating_any(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    seed(db, demo_pages()[:2])
    first = run(db)["artifact"]
    seed(db, [*demo_pages()[2:], ("https://glaciers.test/", EXTRA_PAGE)])
    second = run(db)["artifact"]
    again = run(db, force=True)["artifact"]
    assert second["id"] != first["id"]
    assert again["id"] != second["id"]
    before, after = statements(first), statements(second)
    assert before == after[: len(before)]  # the notes so far kept, in place
    assert len(after) == len(set(after))
    assert len(after) > len(before)
    assert any("glacier" in text for _, text in after[len(before) :])
    assert statements(again) == after  # integrating again adds nothing
    assert all(item["verified"] for item in again["items"])

    async def remove_glaciers() -> None:
        async with open_store(db) as store:
            found = await store.sources.list(collection="Demo")
            (glaciers,) = [s for s in found if "glaciers.test" in s.url]
            await store.sources.delete(glaciers.id)

    asyncio.run(remove_glaciers())
    last = run(db)
    assert statements(last["artifact"]) == [p for p in after if "glacier" not in p[1]]
    assert any("sources no longer here were removed" in w for w in last["warnings"])


@settings(max_examples=8, deadline=None)
@given(order=st.permutations(range(5)), cuts=st.sets(st.integers(1, 4), max_size=2))
def test_notes_built_source_by_source_equal_the_notes_built_at_once(
    order: list[int], cuts: set[int]
) -> None:
    """Whatever order sources arrive in and however runs split them, each run keeps every
    statement before it, never holds one twice, and ends with the notes made in one go."""
    pool = [
        *demo_pages(),
        ("https://glaciers.test/", EXTRA_PAGE),
        ("https://w.test/", ACTIVITY_PAGE),
    ]
    with tempfile.TemporaryDirectory() as folder:
        db, whole = Path(folder) / "a.db", Path(folder) / "b.db"
        seed(whole, pool)
        wanted = set(statements(run(whole)["artifact"]))
        before: list[tuple[str, str]] = []
        bounds = [0, *sorted(cuts), 5]
        for start, end in itertools.pairwise(bounds):
            seed(db, [pool[n] for n in order[start:end]])
            now = statements(run(db)["artifact"])
            assert len(now) == len(set(now))
            assert set(before) <= set(now)
            before = now
    assert set(before) == wanted


def test_a_changed_paragraph_replaces_its_statement_in_place(tmp_path: Path) -> None:
    def page(middle: str) -> str:
        return f"""<html><head><title>Glaciers</title></head><body><article><h1>Glaciers</h1>
        <p>A glacier is a persistent body of dense ice that moves slowly under its own weight.</p>
        <p>{middle}</p>
        <p>Glaciers carve valleys into a U shape as they grind the rock beneath them.</p>
        </article></body></html>"""

    db = tmp_path / "laika.db"
    old = "About ten percent of the land on earth is covered by glacial ice."
    new = "About eleven percent of the land on earth was covered by glacial ice in 1900."
    seed(db, [("https://glaciers.test/", page(old))])
    before = statements(run(db)["artifact"])
    seed(db, [("https://glaciers.test/", page(new))])  # the same page, captured again
    after = run(db)["artifact"]
    assert [text for _, text in before] == [before[0][1], old, before[2][1]]
    assert statements(after) == [before[0], ("Glaciers", new), before[2]]
    assert all(item["verified"] for item in after["items"])


# --- with a model --------------------------------------------------------------------------


ID = "knowledge_block_id"


def test_a_block_gets_at_most_two_decisions_per_page_applied(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    seed(db, demo_pages())
    blocks = blocks_of(db)
    one, two = blocks[0], blocks[5]
    server = ProviderServer(
        [
            Reply(
                chunks=openai_sse(
                    [
                        json.dumps(classified(one)) + "\n",
                        '{"block_id": "b3", "is_knowledge": tru\n',  # cut: not JSON
                        json.dumps({**classified(one), "confidence": 7}) + "\n",  # out of range
                        json.dumps(alias(classified(two), "block_id", "b6")) + "\n",
                    ]
                )
            ),
            Reply(
                chunks=ndjson([reworded(one), alias(reworded(two, cite=False), "block_id", "B2")])
            ),
            Reply(
                chunks=ndjson(
                    [
                        decision(one, "add_section", "First home"),
                        alias(decision(one, "add_section", "Second home"), ID, "b1"),
                        decision(one, "add_section", "Third home"),
                        alias(decision(two, "add_section", "Elsewhere", "Another page"), ID, "b2"),
                    ]
                )
            ),
        ]
    )
    try:
        result = run(db, server)
    finally:
        server.close()
    artifact = result["artifact"]
    assert result["status"] == "completed", artifact["error"]
    assert statements(artifact) == [
        ("First home", one.sentences[0]),
        ("Second home", one.sentences[0]),
        (two.heading, two.sentences[0]),  # its only decision named another page: filed
    ]
    assert all(item["verified"] for item in artifact["items"])  # cited, or its block cited
    assert any("1 integration decision(s) beyond 2" in w for w in result["warnings"])
    assert any("named a page other than" in w for w in result["warnings"])
    assert any("2 of 4 line(s)" in w and "classification" in w for w in result["warnings"])
    assert len(server.received) == 3
    shown = server.received[0].body["messages"][1]["content"]
    assert f"Block ID: b6\nContent: {two.shown()}" in shown  # short ids, mapped back
    assert_safe(artifact["content_markdown"])


def test_a_broken_stream_keeps_its_results_and_the_next_run_continues(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    seed(db, demo_pages())
    blocks = blocks_of(db)
    done, rest = blocks[:4], blocks[4:]
    rows = "".join(json.dumps(reworded(b)) + "\n" for b in blocks)
    cut = rows.index(json.dumps(reworded(rest[0])))  # the break comes after four blocks
    first = ProviderServer(
        [
            Reply(chunks=ndjson([classified(b) for b in blocks])),
            Reply(chunks=openai_sse([rows[:cut], rows[cut : cut + 30]]), drop_after=1),
        ]
    )
    try:
        broken = run(db, first)
    finally:
        first.close()
    assert broken["status"] == "failed"  # not reused: the next run continues
    assert "the next run continues" in broken["artifact"]["error"]
    kept = broken["artifact"]["progress"]["notes"]["blocks"]
    assert {key.split("@")[0] for key, entry in kept.items() if "s" in entry} == {
        b.id for b in done
    }
    assert len(kept) == len(blocks)  # every block's classification is kept

    second = ProviderServer(
        [
            Reply(chunks=ndjson([reworded(b) for b in rest])),
            Reply(chunks=ndjson([decision(rest[0], "add_section", "Tides, again")])),
        ]
    )
    try:
        result = run(db, second)
    finally:
        second.close()
    artifact = result["artifact"]
    assert result["status"] == "completed", artifact["error"]
    assert len(second.received) == 2  # no classify request: every block was classified
    assert asked_ids(second, "classify", blocks) == []
    assert asked_ids(second, "reword", blocks) == [b.id for b in rest]
    classify = asked_ids(first, "classify", blocks) + asked_ids(second, "classify", blocks)
    assert sorted(classify) == sorted(b.id for b in blocks)  # each block classified once
    answered = {b.id for b in done}
    assert not answered & set(asked_ids(second, "reword", blocks))  # what came: not asked again
    assert sorted(text for _, text in statements(artifact)) == sorted(
        b.sentences[0] for b in blocks
    )
    assert all(item["verified"] for item in artifact["items"])


# --- the phases' lines over the whole input space ------------------------------------------

block_ids = st.from_regex(r"src_[a-f0-9]{4}#[0-9]{1,2}", fullmatch=True)
words = st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and "\n" not in t)
valid_rows = {
    "classify": st.builds(
        lambda b, k, c, r: {"block_id": b, "is_knowledge": k, "confidence": c, "reason": r},
        block_ids,
        st.booleans(),
        st.floats(0, 1),
        st.text(max_size=40),
    ),
    "reword": st.builds(lambda b, t: {"block_id": b, "reworded_content": t}, block_ids, words),
    "integrate": st.builds(
        lambda b, a, t: decision(Block(b, "s", "", "", ("x",), "d"), a, t),
        block_ids,
        st.sampled_from(["add_section", "add_under", "replace"]),
        st.none() | words,
    ),
}
wrong = st.one_of(
    st.fixed_dictionaries({"block_id": st.integers()}),
    st.fixed_dictionaries({"confidence": st.floats(1.01, 9), "block_id": st.just("b")}),
    st.fixed_dictionaries({"action": st.text(max_size=8), "knowledge_block_id": st.just("b")}),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.lists(st.integers(), max_size=3),
)
garbage = st.text(max_size=60).filter(lambda t: "\n" not in t and "\r" not in t and t.strip())


def line_kinds(phase: str) -> st.SearchStrategy[tuple[str, str]]:
    return st.one_of(
        valid_rows[phase].map(lambda row: ("valid", json.dumps(row))),
        wrong.map(lambda row: ("bad", json.dumps(row))),
        garbage.filter(lambda t: t.strip() not in ("[", "]", "```", "~~~")).map(
            lambda t: ("bad", t)
        ),
        st.integers(40_000, 80_000).map(lambda n: ("bad", '{"block_id": "' + "x" * n + '"}')),
    )


class Logged(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.events: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.events.append(json.loads(record.getMessage()))


@pytest.mark.parametrize("phase", list(PHASES))
def test_any_lines_of_any_phase_give_the_valid_chunks_and_log_the_rest(phase: str) -> None:
    model = PHASES[phase]

    @settings(max_examples=60, deadline=None)
    @given(lines=st.lists(line_kinds(phase), max_size=10), size=st.integers(1, 5000))
    def check(lines: list[tuple[str, str]], size: int) -> None:
        text = "\n".join(line for _, line in lines)
        parser = NdjsonItems(model, phase=phase)
        handler = Logged()
        logger = logging.getLogger("laika.transform")
        logger.addHandler(handler)
        try:
            got = [c for s in range(0, len(text), size) for c in parser.feed(text[s : s + size])]
            got += parser.close()
        finally:
            logger.removeHandler(handler)
        valid = [json.loads(line) for kind, line in lines if kind == "valid"]
        assert [c.model_dump(exclude={"citations"}) for c in got] == [
            model.model_validate(row).model_dump(exclude={"citations"}) for row in valid
        ]
        bad = sum(kind == "bad" for kind, _ in lines)
        assert parser.bad == bad
        assert [e["event"] for e in handler.events] == ["malformed_json_line"] * bad
        assert all(e["phase"] == phase and len(e["line"]) <= 200 for e in handler.events)

    check()


@pytest.mark.parametrize("phase", list(PHASES))
def test_parsing_a_phase_costs_linear_time(phase: str) -> None:
    """Valid and bad lines mixed (the bad ones logged): 4x the lines, about 4x the time."""
    mixed = json.dumps(_row(phase)) + "\n" + '{"block_id": tru\n' + "not json at all\n"

    def prepare(count: int) -> Callable[[], object]:
        parser, text = NdjsonItems(PHASES[phase], phase=phase), mixed * count
        return lambda: parser.feed(text)

    logger = logging.getLogger("laika.transform")
    logger.disabled = True  # the log's output is not what is measured
    try:
        assert len(NdjsonItems(PHASES[phase]).feed(mixed * 100)) == 100
        assert_linear(prepare, 2_000, 8_000, bound=10)
    finally:
        logger.disabled = False


def _row(phase: str) -> dict[str, Any]:
    block = Block("src_ab#1", "src_ab", "H", "t", ("A sentence of five words.",), "d")
    return {
        "classify": classified(block),
        "reword": reworded(block),
        "integrate": decision(block, "add_under", "H"),
    }[phase]


# --- decisions, notes, heuristics ----------------------------------------------------------

decisions = st.lists(
    st.tuples(st.sampled_from("abc"), st.sampled_from(["Demo", "demo ", "Other"])), max_size=30
)


@settings(max_examples=200, deadline=None)
@given(stream=decisions, complete=st.booleans())
def test_decisions_are_capped_per_block_and_page_and_released_when_complete(
    stream: list[tuple[str, str]], complete: bool
) -> None:
    buffer = DecisionBuffer("Demo")
    released: list[tuple[str, list[IntegrationDecisionChunk]]] = []
    for number, (block, page) in enumerate(stream):
        before = len(released)
        released += buffer.add(
            IntegrationDecisionChunk(
                knowledge_block_id=block,
                target_page=page,
                action="add_section",
                target_block_title=str(number),
                confidence=0.5,
            )
        )
        if len(released) > before:  # released only when another block's line came
            assert released[-1][0] == stream[number - 1][0] != block
    released += buffer.close(complete=complete)
    counts = Counter((b, norm(d.target_page)) for b, group in released for d in group)
    assert all(count <= CAP for count in counts.values())
    assert all(norm(d.target_page) == "demo" for _, group in released for d in group)
    runs = [key for n, (key, _) in enumerate(stream) if n == 0 or stream[n - 1][0] != key]
    assert [b for b, _ in released] == (runs if complete else runs[:-1])
    if complete:
        applied = sum(len(group) for _, group in released)
        assert applied + buffer.over_cap + buffer.elsewhere == len(stream)


sections = st.sampled_from(["Tides", "tides", "Bread", "Bees", None])
actions = st.sampled_from(["add_section", "add_under", "replace"])


@settings(max_examples=200, deadline=None)
@given(
    plan=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.lists(st.sampled_from(["One fact.", "Two facts.", "one  FACT."]), max_size=3),
            st.lists(st.tuples(actions, sections, st.booleans()), max_size=3),
        ),
        max_size=12,
    )
)
def test_integrating_never_duplicates_a_statement_and_replaces_a_blocks_earlier_ones(
    plan: list[tuple[int, list[str], list[tuple[str, str | None, bool]]]],
) -> None:
    book = Notebook()
    for index, texts, chosen in plan:
        block = f"src_a#{index}"
        made = [Statement(t, f"{block}@d", [Cited(source_id="src_a", quote=t)]) for t in texts]
        existing = [s.id for section in book.sections for s in section.statements]
        found = [
            IntegrationDecisionChunk(
                knowledge_block_id=block,
                target_page="Demo",
                action=action,  # type: ignore[arg-type]
                target_block_id=(existing[0] if use_id and existing else None),
                target_block_title=title,
                confidence=0.5,
            )
            for action, title, use_id in chosen
        ]
        apply_block(book, made, found, "Fallback")
        for section in book.sections:
            shown = [norm(s.text) for s in section.statements]
            assert len(shown) == len(set(shown)), "a statement twice in one section"
            assert section.statements, "an empty section is kept"
        titles = [norm(section.title) for section in book.sections]
        assert len(titles) == len(set(titles)), "a section twice"
        if made:
            mine = {norm(s.text) for _, s in _all(book) if s.block_id == block}
            assert mine <= {norm(s.text) for s in made}, "the block's earlier statements stay"
            shown = {norm(s.text) for _, s in _all(book)}
            assert {norm(s.text) for s in made} <= shown, "a new statement is missing"
    again = Notebook.from_items([item_json(n) for n in book.notes()])
    assert [(s.title, [t.text for t in s.statements]) for s in again.sections] == [
        (s.title, [t.text for t in s.statements]) for s in book.sections
    ]


def _all(book: Notebook) -> list[tuple[str, Statement]]:
    return [(section.title, s) for section in book.sections for s in section.statements]


def item_json(note: Any) -> dict[str, Any]:
    return {
        "kind": "note",
        "data": note.data(),
        "citations": [c.model_dump() for c in note.citations],
    }


nouns = st.sampled_from(["glacier", "starter", "tide", "colony", "harbour", "market"])
first_person = st.sampled_from(["I", "we", "my", "our", "us"])


@settings(max_examples=200, deadline=None)
@given(subject=nouns, other=nouns, who=first_person, number=st.integers(2, 999))
def test_offline_classify_keeps_facts_and_leaves_out_first_person_narrative(
    subject: str, other: str, who: str, number: int
) -> None:
    fact = f"A {subject} is a large body that holds about {number} tonnes of {other} water."
    story = f"Last week {who} walked past the {subject} and saw {number} people near the {other}."
    assert offline.classify(_block(fact)).is_knowledge
    assert not offline.classify(_block(story)).is_knowledge
    chunk = offline.classify(_block(story))
    assert "first-person" in chunk.reason
    assert 0 <= chunk.confidence <= 1
    for sentence in (fact, story):
        statement = offline.trimmed(sentence)
        assert statement  # a suffix of the sentence's words: nothing invented
        assert norm(sentence).endswith(norm(statement[:1].lower() + statement[1:]))
    (reworded_fact,) = offline.reword(_block(fact))
    assert reworded_fact.citations[0].quote == fact  # quoted exactly: it verifies
    assert list(offline.reword(_block(story))) == []


def _block(sentence: str) -> Block:
    return Block("src_a#1", "src_a", "Heading", sentence, (sentence,), "d")
