"""Grounded chat end to end on a real store: offline and through a recording model server.

Citations shown as verified are found in the stored text; a fabricated quote is flagged; a
source outside the pack is rejected; seeded secrets reach neither the model, the database
nor the logs.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from laika_host.agent.flows import Answer, ask
from laika_host.capture import capture_html
from laika_host.llm.config import ProviderConfig
from laika_host.store import open_store
from laika_host.store.chat import MAX_CHAT_MARKDOWN

from llm_servers import ProviderServer, Reply, openai_sse
from support import run_laika

SECRET_KEY = "sk-proj-" + "S3cr3t" * 6
COOKIE = "sessionid=c00kie" + "9" * 20
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "capture-dev" / "html"

TIDES = """<html><head><title>Harbour tides</title></head><body><article><h1>Harbour tides</h1>
<p>High water at the harbour comes twice a day because the moon pulls the oceans.</p>
<h2>Spring tides</h2>
<p>Spring tides are the largest of the month, when the sun and the moon pull together.</p>
<p>Read the <a href="https://tides.test/table?token=SEEDEDTOKEN123&amp;day=1">full table</a>.</p>
<p>Cookie: {cookie}</p></article></body></html>"""
BREAD = """<html><head><title>Bread notes</title></head><body><article><h1>Bread notes</h1>
<p>Sourdough needs a lively starter, warm water and a long, slow rise overnight.</p>
</article></body></html>"""


def seed(store_path: Path) -> dict[str, str]:
    async def main() -> dict[str, str]:
        async with open_store(store_path) as store:
            ids = {}
            for name, html, url in (
                (
                    "tides",
                    TIDES.format(cookie=COOKIE),
                    "https://tides.test/harbour?token=SEEDEDTOKEN123",
                ),
                ("bread", BREAD, "https://bread.test/notes"),
            ):
                saved = await store.sources.save_capture("Coast", capture_html(html.encode(), url))
                ids[name] = saved.source.id
            return ids

    return asyncio.run(main())


def run_ask(store_path: Path, question: str, provider: ProviderConfig | None = None) -> Answer:
    async def main() -> Answer:
        async with open_store(store_path) as store:
            return await ask(store, question, "Coast", provider=provider)

    return asyncio.run(main())


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return Path(os.environ["LAIKA_HOME"]) / "laika.db"


def test_offline_answers_are_all_verified_and_persisted(db: Path) -> None:
    ids = seed(db)
    answer = run_ask(db, "Why do spring tides get so large?")
    assert answer.status == "ok"
    assert answer.citations
    assert all(c["verified"] for c in answer.citations)
    assert answer.citations[0]["source_id"] == ids["tides"]
    assert answer.citations[0]["locator"].startswith("https://tides.test/harbour#:~:text=")
    assert answer.run_id is not None

    async def history() -> tuple[list[Any], list[Any]]:
        async with open_store(db) as store:
            collection = await store.collections.get("Coast")
            return await store.chat.list(collection.id), await store.runs.list()

    events, runs = asyncio.run(history())
    assert [e.role for e in events] == ["user", "assistant"]
    assert events[1].citations[0]["verified"] is True
    assert runs[0].id == answer.run_id
    assert runs[0].provider_id == "offline"
    request = runs[0].request_redacted
    assert isinstance(request, dict)
    assert all("sha256" in d["body"] for d in request["documents"])  # bodies are digests
    unsupported = run_ask(db, "What about volcanoes?")
    assert unsupported.status == "unsupported"
    assert "do not answer" in unsupported.answer_markdown


def scripted_answer(tides_id: str, bread_id: str) -> str:
    return json.dumps(
        {
            "assistant": {
                "markdown": "The moon drives the tides [1]; bread is unrelated [2]; see [3]."
            },
            "citations": [
                {"doc_id": f"src:{tides_id}", "quote": "the moon pulls the oceans"},
                {"doc_id": f"src:{bread_id}", "quote": "Bread must be baked at dawn by monks."},
                {"source_id": "src_not_in_the_pack", "quote": "High water at the harbour"},
            ],
        }
    )


def test_a_model_answer_is_verified_flagged_and_rejected_and_no_secret_leaks(
    db: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    ids = seed(db)
    monkeypatch.setenv("SEEDED_API_KEY", SECRET_KEY)
    chunks = openai_sse([scripted_answer(ids["tides"], ids["bread"])])
    server = ProviderServer([Reply(chunks=chunks)])
    provider = ProviderConfig(
        id="rec", kind="openai", model="m", base_url=server.url, api_key_env="SEEDED_API_KEY"
    )
    caplog.set_level("DEBUG")
    try:
        answer = run_ask(db, "What drives the tides?", provider)
    finally:
        server.close()
    assert answer.status == "ok"
    verified = [c["verified"] for c in answer.citations]
    assert verified == [True, False, False]
    assert "not in the source" in answer.citations[1]["reason"]
    assert answer.citations[2]["reason"].startswith("rejected")
    assert any("could not be verified" in w for w in answer.warnings)
    assert [c["marker"] for c in answer.citations] == [1, 2, 3]

    # the model received the documents as untrusted data, and nothing secret
    [received] = server.received
    body = json.dumps(received.body)
    assert received.headers["authorization"] == f"Bearer {SECRET_KEY}"  # sent to the model host
    assert SECRET_KEY not in body
    assert "SEEDEDTOKEN123" not in body
    assert COOKIE not in body  # the page showed a cookie header; capture scrubbed it
    assert '"trust": "untrusted"' in received.body["messages"][1]["content"]
    assert received.body["response_format"]["type"] == "json_schema"

    stored = b"".join(p.read_bytes() for p in db.parent.glob("laika.db*"))
    logs = b"".join(p.read_bytes() for p in (db.parent / "logs").rglob("*") if p.is_file())
    for secret in (SECRET_KEY, "SEEDEDTOKEN123", COOKIE):
        assert secret.encode() not in stored
        assert secret.encode() not in logs
        assert secret not in caplog.text
    audit = [
        json.loads(line) for line in (db.parent / "logs" / "audit.jsonl").read_text().splitlines()
    ]
    assert [e["event"] for e in audit] == ["llm.request", "llm.response"]
    assert audit[0]["correlation_id"] == audit[1]["correlation_id"]
    assert audit[1]["unverified"] == 2


@pytest.mark.slow  # > 3 s with the cores busy
def test_laika_ask_cli_json_shape(db: Path) -> None:
    seed(db)
    done = run_laika("ask", "Why do spring tides get so large?", "--collection", "Coast", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) >= {"status", "answer_markdown", "citations", "run_id", "warnings"}
    for citation in result["citations"]:
        assert set(citation) >= {"source_id", "doc_id", "url", "quote", "locator", "verified"}
        assert citation["verified"] is True
    plain = run_laika(
        "ask", "Why do spring tides get so large?", "-c", "Coast", "--provider", "offline"
    )
    assert plain.returncode == 0, plain.stderr
    assert "verified: “" in plain.stdout


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason="capture-dev corpus not beside the repository")
def test_offline_over_capture_dev_pages_shows_only_verified_citations(db: Path) -> None:
    pages = sorted(CORPUS.glob("*.html"))[:25]

    async def main() -> list[Answer]:
        async with open_store(db) as store:
            for page in pages:
                capture = capture_html(page.read_bytes(), f"https://dev.test/{page.stem}")
                await store.sources.save_capture("Coast", capture)
            questions = ["What is this about?", "Who wrote the article?", "When was it published?"]
            return [await ask(store, q, "Coast") for q in questions]

    answers = asyncio.run(main())
    shown = [c for a in answers for c in a.citations]
    assert shown
    assert all(c["verified"] for c in shown)


@pytest.mark.slow  # > 3 s with the cores busy
def test_laika_summarize_and_logs_cli(tmp_path: Path) -> None:
    page = tmp_path / "tides.html"
    page.write_text(TIDES.format(cookie=COOKIE))
    done = run_laika("summarize", str(page), "--url", "https://tides.test/h", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "ok"
    assert result["citations"]
    assert all(c["verified"] for c in result["citations"])
    assert "High water at the harbour" in result["answer_markdown"]
    listed = run_laika("logs", "list", "--json")
    runs = json.loads(listed.stdout)["runs"]
    assert runs[0]["kind"] == "page.summarize"
    shown = run_laika("logs", "show", runs[0]["id"])
    assert json.loads(shown.stdout)["id"] == runs[0]["id"]
    missing = run_laika("logs", "show", "run_nope")
    assert missing.returncode == 1
    assert "laika logs list" in missing.stderr
    assert COOKIE not in shown.stdout


@pytest.mark.slow  # > 3 s with the cores busy
def test_markdown_mode_provider_gets_the_markdown_prompt_and_its_quotes_are_checked(
    db: Path,
) -> None:
    """`laika models add --markdown-mode`, then `laika ask`: no schema is sent, the reply is
    Markdown, and its quote lines are verified like JSON citations."""
    ids = seed(db)
    reply = (
        "High water comes twice a day because the moon pulls the oceans [1]. "
        "Monks bake the bread [2].\n\nQuotes:\n"
        f'> "the moon pulls the oceans" (src:{ids["tides"]})\n'
        f'> "Bread must be baked at dawn by monks." (src:{ids["bread"]})\n'
    )
    server = ProviderServer([Reply(chunks=openai_sse([reply]))])
    try:
        added = run_laika(
            "models", "add", "plain", "--kind", "openai_compatible", "--model", "m",
            "--base-url", server.url, "--markdown-mode", "--context-window", "4096",
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        done = run_laika(
            "ask", "What drives the tides?", "-c", "Coast", "--provider", "plain", "--json"
        )
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "ok"
    assert result["answer_markdown"].endswith("Monks bake the bread [2].")  # quote list gone
    assert [c["verified"] for c in result["citations"]] == [True, False]
    assert result["citations"][0]["source_id"] == ids["tides"]
    [received] = [r for r in server.received if r.path.endswith("/chat/completions")]
    assert "response_format" not in received.body
    system = received.body["messages"][0]["content"]
    assert "Reply in Markdown" in system
    assert "JSON Schema" not in system


HOSTILE_URLS = (
    "javascript:alert(document.cookie)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "https://evil.test/phish",
)


def hostile_citations(tides_id: str) -> str:
    """A reply whose every citation carries a URL (and a locator) of the model's choosing:
    one verified, one with a changed quote, one naming a source outside the pack."""
    quotes = [
        (f"src:{tides_id}", "the moon pulls the oceans"),
        (f"src:{tides_id}", "the moon never pulls the oceans"),
        ("src:not-packed", "High water at the harbour"),
    ]
    citations = [
        {
            "doc_id": doc_id,
            "quote": quote,
            "url": url,
            "locator": {"type": "text_fragment", "value": url},
        }
        for (doc_id, quote), url in zip(quotes, HOSTILE_URLS, strict=True)
    ]
    return json.dumps(
        {
            "assistant": {"markdown": "The moon [1], never [2], elsewhere [3]."},
            "citations": citations,
        }
    )


def url_fields(value: Any) -> list[Any]:
    """Every value under a key that names a link, anywhere inside `value`."""
    if isinstance(value, dict):
        found = [v for k, v in value.items() if k in ("url", "locator", "href", "link")]
        return found + [u for v in value.values() for u in url_fields(v)]
    if isinstance(value, list):
        return [u for item in value for u in url_fields(item)]
    return []


def test_citation_urls_come_from_the_stored_source_never_from_the_model(db: Path) -> None:
    ids = seed(db)
    server = ProviderServer([Reply(chunks=openai_sse([hostile_citations(ids["tides"])]))])
    provider = ProviderConfig(id="rec", kind="openai_compatible", model="m", base_url=server.url)
    try:
        answer = run_ask(db, "What drives the tides?", provider)
    finally:
        server.close()
    # (citations whose URL is not even a URL are dropped by the parser, then salvaged in place)
    shown = {c["quote"]: c for c in answer.citations}
    stored_url = "https://tides.test/harbour"
    verified, changed, elsewhere = (
        shown["the moon pulls the oceans"],
        shown["the moon never pulls the oceans"],
        shown["High water at the harbour"],
    )
    assert [verified["verified"], changed["verified"], elsewhere["verified"]] == [1, 0, 0]
    assert [verified["url"], changed["url"], elsewhere["url"]] == [stored_url, stored_url, None]
    assert verified["locator"].startswith(stored_url + "#:~:text=")
    assert [changed["locator"], elsewhere["locator"]] == [None, None]
    # [1], [2], [3] name the citations the reply wrote first, second, third, though the
    # parser dropped the first two (their URLs are no URLs) and salvaged them
    assert [verified["marker"], changed["marker"], elsewhere["marker"]] == [1, 2, 3]

    async def history() -> list[Any]:
        async with open_store(db) as store:
            collection = await store.collections.get("Coast")
            return [e.model_dump(mode="json") for e in await store.chat.list(collection.id)]

    events = asyncio.run(history())
    assert events[-1]["citations"] == answer.citations
    for link in url_fields([answer.to_json(), events]):
        assert link is None or str(link).startswith(stored_url)
    stored = b"".join(p.read_bytes() for p in db.parent.glob("laika.db*"))
    for url in HOSTILE_URLS:
        assert url.encode() not in stored


HOSTILE_REPLIES = {
    "huge_text": ("Tides. " * 40_000, "partial"),
    "huge_json_answer": (json.dumps({"assistant": {"markdown": "Tides. " * 40_000}}), "partial"),
    "deep_json": ("[" * 150_000 + "]" * 150_000, "partial"),
    "deep_json_under_the_cap": ("[" * 50_000 + "]" * 50_000, "invalid_output"),
    "deep_key_in_valid_answer": (
        json.dumps({"assistant": {"markdown": "The moon."}, "extra": "DEEP"}).replace(
            '"DEEP"', "[" * 900 + "]" * 900
        ),
        "invalid_output",
    ),
    "lone_surrogates": (json.dumps({"assistant": {"markdown": "The moon \ud800."}}), "ok"),
    "prose": ("The moon pulls the oceans, in prose where JSON was asked.", "invalid_output"),
    "only_reasoning": ("<think>the user wants to know", "error"),
}


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("name", sorted(HOSTILE_REPLIES))
def test_a_hostile_reply_still_saves_the_turn_with_its_status(db: Path, name: str) -> None:
    reply, status = HOSTILE_REPLIES[name]
    seed(db)
    pieces = [reply[at : at + 8192] for at in range(0, len(reply), 8192)]
    server = ProviderServer([Reply(chunks=openai_sse(pieces))])
    provider = ProviderConfig(id="rec", kind="openai_compatible", model="m", base_url=server.url)
    try:
        answer = run_ask(db, "What drives the tides?", provider)
    finally:
        server.close()
    assert answer.status == status, answer.warnings
    assert len(answer.answer_markdown) <= MAX_CHAT_MARKDOWN
    if status == "partial":
        assert answer.answer_markdown.endswith("characters.]*")  # the visible truncation note
        assert answer.answer_markdown.count("Tides.") > 20_000 or "[[[" in answer.answer_markdown
    answer.answer_markdown.encode("utf-8")  # storable and sendable, whatever the model sent

    async def saved() -> tuple[list[Any], list[Any]]:
        async with open_store(db) as store:
            collection = await store.collections.get("Coast")
            return await store.chat.list(collection.id), await store.runs.list()

    events, runs = asyncio.run(saved())
    assert [e.role for e in events] == ["user", "assistant"]
    assert events[1].markdown == (answer.answer_markdown or "(no answer)")
    assert events[1].model == {"provider": "rec", "model": "m", "status": status}
    assert runs[0].id == answer.run_id


def test_a_dropped_citation_keeps_its_place_so_markers_name_the_right_one(db: Path) -> None:
    """The second citation is no citation at all (a bare string): it stays second, rejected
    with the parser's reason, and [3] still names the third one the reply wrote."""
    ids = seed(db)
    reply = json.dumps(
        {
            "assistant": {"markdown": "The moon [1], nonsense [2], the moon again [3]."},
            "citations": [
                {"doc_id": f"src:{ids['tides']}", "quote": "the moon pulls the oceans"},
                "not a citation",
                {"doc_id": f"src:{ids['tides']}", "quote": "the moon pulls the oceans"},
            ],
        }
    )
    server = ProviderServer([Reply(chunks=openai_sse([reply]))])
    provider = ProviderConfig(id="rec", kind="openai_compatible", model="m", base_url=server.url)
    try:
        answer = run_ask(db, "What drives the tides?", provider)
    finally:
        server.close()
    first, second, third = answer.citations
    assert [first["verified"], second["verified"], third["verified"]] == [1, 0, 1]
    assert [first["marker"], second["marker"], third["marker"]] == [1, 2, 3]
    assert second["reason"].startswith("rejected: the reply's citation is not valid")


def seed_shelf(store_path: Path, count: int = 40) -> None:
    """`count` long pages: more than the offline runtime's budget holds in full."""

    async def main() -> None:
        async with open_store(store_path) as store:
            for n in range(count):
                paragraphs = "".join(
                    f"<p>Shelf {n} paragraph {k}: the barometer reading {n * 100 + k} came after "
                    f"a long spell of weather that sailors on coast {n} still remember.</p>"
                    for k in range(60)
                )
                html = f"<html><head><title>Shelf page {n}</title></head><body><article>"
                html += f"<h1>Shelf page {n}</h1>{paragraphs}</article></body></html>"
                capture = capture_html(html.encode(), f"https://shelf.test/{n}")
                await store.sources.save_capture("Shelf", capture)

    asyncio.run(main())


def test_notes_about_the_pack_come_only_with_the_answer_they_apply_to(db: Path) -> None:
    """The offline runtime reads each packed source's full text, and no prompt: a note that
    sources were "sent in part, to fit the model's context" is not true of its
    answer. It says how many it read instead; a model's answer keeps the pack's note."""
    seed_shelf(db)

    async def main(provider: ProviderConfig | None) -> Answer:
        async with open_store(db) as store:
            return await ask(
                store, "What did the barometer read on coast 7?", "Shelf", provider=provider
            )

    offline = asyncio.run(main(None))
    assert offline.status == "ok", offline
    assert not any("summaries" in w or "model" in w for w in offline.warnings), offline.warnings
    [note] = [w for w in offline.warnings if "offline runtime read" in w]
    assert note.startswith("the offline runtime read the ")
    assert "of 40 sources" in note

    reply = json.dumps({"assistant": {"markdown": "It rose."}, "citations": []})
    server = ProviderServer([Reply(chunks=openai_sse([reply]))])
    small = ProviderConfig(
        id="rec", kind="openai_compatible", model="m", base_url=server.url, context_window=4096
    )
    try:
        answered = asyncio.run(main(small))
    finally:
        server.close()
    assert any(
        w.startswith("Sent in part, to fit the model's context:") for w in answered.warnings
    ), answered.warnings
