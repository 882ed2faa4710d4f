"""Compact LLMX context mode (issue 18, item 3): the LLMX pack carries the JSON pack's
documents, a scripted loopback model answering in LLMX gets its citations verified (a
fabricated quote flagged), a reply that is not LLMX falls back without losing anything, and
`laika ask --context-format llmx` works end to end. Real stores, real loopback servers."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.agent.context_format import DOCUMENTS_LABEL, document_text
from laika_host.agent.flows import Answer, ask
from laika_host.agent.pack import SourceText, estimate_tokens, pack_collection
from laika_host.agent.parse_llmx import parse_llmx_reply
from laika_host.agent.prompts import user_prompt
from laika_host.capture import capture_html
from laika_host.llm.config import ProviderConfig
from laika_host.llmx import parse
from laika_host.llmx.values import to_json
from laika_host.store import open_store

from llm_servers import ProviderServer, Reply, openai_sse
from support import run_laika

TIDES = """<html><head><title>Harbour tides</title></head><body><article><h1>Harbour tides</h1>
<p>High water at the harbour comes twice a day because the moon pulls the oceans.</p>
<p>Spring tides are the largest of the month, when the sun and the moon pull together.</p>
<p>Session cookie: sessionid=c00kie99999999999999999999</p>
</article></body></html>"""
BREAD = """<html><head><title>Bread notes</title></head><body><article><h1>Bread notes</h1>
<p>Sourdough needs a lively starter, warm water and a long, slow rise overnight.</p>
</article></body></html>"""

_text = st.text(
    st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=300
)  # any Unicode, lone surrogates aside (no store or prompt holds them)


@st.composite
def source_texts(draw: st.DrawFn) -> list[SourceText]:
    count = draw(st.integers(min_value=1, max_value=6))
    return [
        SourceText(
            source_id=f"src_{number:04d}{draw(st.text('abcdef0123456789', max_size=8))}",
            url=draw(st.sampled_from(["https://ex.test/a", "https://ex.test/b?q=1", ""])),
            title=draw(_text),
            markdown=draw(_text),
            text=draw(_text),
            summary=draw(_text),
            captured_at=draw(st.none() | st.just("2026-01-02T03:04:05Z")),
            relevance=draw(st.floats(min_value=0, max_value=1)),
        )
        for number in range(count)
    ]


def _json_documents(prompt: str) -> list[dict[str, Any]]:
    return list(json.loads(prompt.split(DOCUMENTS_LABEL, 1)[1]))


@settings(max_examples=60)
@given(sources=source_texts(), budget=st.integers(min_value=256, max_value=20_000))
def test_the_llmx_pack_carries_the_json_packs_documents(
    sources: list[SourceText], budget: int
) -> None:
    """Parse the LLMX prompt back: every document's id, kind, trust and content equal the
    JSON prompt's (the same objects, redacted once, written two ways)."""
    pack = pack_collection("col_1", "Mixed", sources, budget_tokens=budget, context_format="llmx")
    sent = _json_documents(user_prompt("q?", pack.documents, pack.note(), "json"))
    message = parse(user_prompt("q?", pack.documents, pack.note(), "llmx"))
    docs = message.of_type("X_DOC")
    assert len(docs) == len(sent)
    for block, document in zip(docs, sent, strict=True):
        fields = block.fields
        assert fields["id"] == document["doc_id"]
        assert fields["kind"] == document["kind"]
        assert fields["trust"] == document["trust"] == "untrusted"
        content = {k: v for k, v in document["content"].items() if k != "doc_type"}
        assert to_json(fields["c"]) == content
    assert message.of_type("REQ")[0].fields["o"] == "q?"
    assert set(message.blocks[0].fields) == {"f", "t", "s"}  # no x_ envelope


@settings(max_examples=60)
@given(sources=source_texts())
def test_an_llmx_document_never_costs_more_than_its_json(sources: list[SourceText]) -> None:
    """The packer measures each document as written; LLMX writes keys bare and drops the
    repeated doc_type, so a document costs no more than in JSON (C1 controls and line
    separators aside, which LLMX escapes longer)."""
    pack = pack_collection("col_1", "Mixed", sources, budget_tokens=50_000)
    for document in pack.documents:
        written = json.dumps(document, ensure_ascii=False)
        if any("\x7f" <= char <= "\x9f" or char in "\u2028\u2029" for char in written):
            continue
        llmx = estimate_tokens(document_text(document, "llmx"))
        assert llmx <= estimate_tokens(document_text(document, "json"))


def test_the_same_budget_fits_more_sources_in_llmx() -> None:
    """Many short sources: the per-document saving becomes more sources sent in full."""
    sources = [
        SourceText(
            f"src_{number:032x}",
            f"https://ex.test/page/{number}",
            f"Page {number}",
            f"# Page {number}\n\nShort note number {number} about tides and harbours.",
            f"Page {number} Short note number {number} about tides and harbours.",
            f"Note {number}.",
            relevance=1 - number / 100,
        )
        for number in range(60)
    ]
    full = {}
    for fmt in ("json", "llmx"):
        pack = pack_collection("col_1", "Notes", sources, budget_tokens=3_000, context_format=fmt)
        full[fmt] = list(pack.tiers.values()).count("full")
        assert pack.tokens <= 3_000
    assert full["llmx"] > full["json"] > 0


# --- the reply -------------------------------------------------------------------------------


def _seed(db: Path) -> dict[str, str]:
    async def main() -> dict[str, str]:
        async with open_store(db) as store:
            ids = {}
            for name, html, url in (
                ("tides", TIDES, "https://tides.test/harbour"),
                ("bread", BREAD, "https://bread.test/notes"),
            ):
                saved = await store.sources.save_capture("Coast", capture_html(html.encode(), url))
                ids[name] = saved.source.id
            return ids

    return asyncio.run(main())


def _ask(db: Path, reply: str) -> tuple[Answer, ProviderServer]:
    server = ProviderServer([Reply(chunks=openai_sse([reply]))], only="/chat/completions")
    provider = ProviderConfig(
        id="small",
        kind="openai_compatible",
        model="m",
        base_url=f"{server.url}/v1",
        context_window=8192,
        context_format="llmx",
    )

    async def main() -> Answer:
        async with open_store(db) as store:
            return await ask(store, "What drives the tides?", "Coast", provider=provider)

    try:
        return asyncio.run(main()), server
    finally:
        server.close()


@pytest.fixture
def db() -> Path:
    return Path(os.environ["LAIKA_HOME"]) / "laika.db"


def _llmx_reply(ids: dict[str, str]) -> str:
    return (
        'RES:{o:"ACK",msg:"The moon drives the tides [1]. Monks bake the bread [2]."}\n'
        f'RES:{{o:"src:{ids["tides"]}",msg:"the moon pulls the oceans"}}\n'
        f'RES:{{o:"src:{ids["bread"]}",msg:"Bread must be baked at dawn by monks."}}\n'
    )


def test_an_llmx_reply_is_verified_and_a_fabricated_quote_flagged(db: Path) -> None:
    ids = _seed(db)
    answer, server = _ask(db, _llmx_reply(ids))
    assert answer.status == "ok"
    assert answer.answer_markdown == "The moon drives the tides [1]. Monks bake the bread [2]."
    assert [c["verified"] for c in answer.citations] == [True, False]
    assert answer.citations[0]["source_id"] == ids["tides"]
    assert "not in the source" in answer.citations[1]["reason"]
    assert not any("LLMX" in warning for warning in answer.warnings)
    # the model was sent the compact form: LLMX documents, the LLMX reply asked for, no schema
    [received] = [r for r in server.received if r.path.endswith("/chat/completions")]
    assert "response_format" not in received.body
    system, user = (m["content"] for m in received.body["messages"])
    assert "Reply in LLMX only" in system
    message = parse(user)
    assert {b.fields["trust"] for b in message.of_type("X_DOC")} == {"untrusted"}
    assert "sessionid=c00kie" not in user  # redacted as in the JSON path
    assert "x_" not in user.split("\n", 1)[0]


def test_a_header_and_a_fence_around_the_reply_are_read(db: Path) -> None:
    ids = _seed(db)
    reply = "```llmx\nHEADER:{f:model,t:user,s:1}\n" + _llmx_reply(ids) + "```"
    answer, _ = _ask(db, reply)
    assert answer.status == "ok"
    assert [c["verified"] for c in answer.citations] == [True, False]


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("The moon pulls the oceans, twice a day.", "invalid_output"),  # prose
        ('RES:{o:"ACK",msg:"cut off', "invalid_output"),  # unfinished LLMX
        ('RES:{o:"NACK",msg:"cannot"}', "invalid_output"),  # refused
        ("RES:{o:ACK}", "invalid_output"),  # no answer text
    ],
)
def test_a_reply_that_is_not_llmx_falls_back_and_keeps_its_text(
    db: Path, reply: str, status: str
) -> None:
    _seed(db)
    answer, _ = _ask(db, reply)
    assert answer.status == status
    assert answer.answer_markdown.strip() == reply.strip()
    assert any("not valid LLMX" in warning for warning in answer.warnings)


def test_a_json_reply_in_compact_mode_is_read_as_json(db: Path) -> None:
    ids = _seed(db)
    reply = json.dumps(
        {
            "assistant": {"markdown": "The moon drives the tides [1]."},
            "citations": [{"doc_id": f"src:{ids['tides']}", "quote": "the moon pulls the oceans"}],
        }
    )
    answer, _ = _ask(db, reply)
    assert answer.status == "ok"
    assert [c["verified"] for c in answer.citations] == [True]


@given(st.text(max_size=400))
def test_any_reply_parses_without_raising_and_keeps_what_was_sent(reply: str) -> None:
    parsed = parse_llmx_reply(reply, request_id="req_1")
    assert parsed.raw == reply
    assert parsed.outcome in ("parsed", "repaired", "markdown_fallback", "error")


def test_reading_a_reply_stays_linear() -> None:
    """Long replies, valid and not (a HEADER-looking line repeated, a runaway string)."""

    def prepare(size: int) -> Any:
        valid = (
            'RES:{o:"ACK",msg:"'
            + "word " * size
            + '"}\n'
            + 'RES:{o:"src:a",msg:"x"}\n' * (size // 50)
        )
        broken = "RES:\n" * size + 'RES:{o:"ACK",msg:"' + "\\" * size

        def run() -> None:
            parse_llmx_reply(valid, max_chars=10**7)
            parse_llmx_reply(broken, max_chars=10**7)

        return run

    assert_linear(prepare, 2_000, 16_000, bound=24)


@pytest.mark.slow  # subprocesses: > 3 s with the cores busy
@pytest.mark.parametrize("chosen_by", ["the ask flag", "the provider's setting"])
def test_laika_ask_context_format_llmx_end_to_end(tmp_path: Path, chosen_by: str) -> None:
    page = tmp_path / "tides.html"
    page.write_text(TIDES, encoding="utf-8")
    captured = run_laika("capture", str(page), "--url", "https://tides.test/harbour", "--json")
    assert captured.returncode == 0, captured.stderr
    source = json.loads(captured.stdout)["source"]["id"]
    reply = (
        'RES:{o:"ACK",msg:"Twice a day [1]."}\n'
        f'RES:{{o:"src:{source}",msg:"comes twice a day because the moon pulls the oceans"}}'
    )
    server = ProviderServer([Reply(chunks=openai_sse([reply]))], only="/chat/completions")
    try:
        if chosen_by == "the ask flag":
            where = ["--base-url", f"{server.url}/v1", "--kind", "openai_compatible",
                     "--context-format", "llmx"]  # fmt: skip
        else:
            added = run_laika(
                "models", "add", "small", "--kind", "openai_compatible", "--model", "smol",
                "--base-url", f"{server.url}/v1", "--context-format", "llmx",
            )  # fmt: skip
            assert added.returncode == 0, added.stderr
            where = ["--provider", "small"]
        done = run_laika("ask", "How often is high water?", *where, "--json")
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "ok"
    assert result["answer_markdown"] == "Twice a day [1]."
    assert [c["verified"] for c in result["citations"]] == [True]
    [received] = [r for r in server.received if r.path.endswith("/chat/completions")]
    assert parse(received.body["messages"][1]["content"]).of_type("X_DOC")
