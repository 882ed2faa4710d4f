"""Transform runs with a model: a real loopback server speaking OpenAI's streaming wire format
sends NDJSON items split across chunks. Items are validated per line (bad lines skipped and
counted), verified against the stored text (a fabricated quote is flagged), streamed as `item`
events, and stored; a stream that breaks keeps the items so far (`partial`), or fails with the
reason when nothing came; cancelling keeps the items made."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from laika_host.capture import capture_html
from laika_host.demo.pages import PAGES
from laika_host.llm.config import ProviderConfig
from laika_host.store import open_store
from laika_host.transform import CancelToken, cancel_artifact, run_transform

from llm_servers import ProviderServer, Reply, openai_sse

SPRING = (
    "Spring tides run higher than neap tides because the moon and the sun pull together at new "
    "and full moon."
)
FEED = (
    "Feed the starter once a day by discarding half of it and stirring in equal weights of "
    "fresh flour and water."
)


def seed(db: Path) -> dict[str, str]:
    async def main() -> dict[str, str]:
        async with open_store(db) as store:
            ids = {}
            for page in PAGES:
                saved = await store.sources.save_capture(
                    "Demo", capture_html(page.html.encode(), page.url)
                )
                ids[page.url.rsplit("/", 1)[-1]] = saved.source.id
            return ids

    return asyncio.run(main())


def provider_for(server: ProviderServer) -> ProviderConfig:
    return ProviderConfig(
        id="rec",
        kind="openai_compatible",
        model="m",
        base_url=server.url,
        context_window=16_000,
    )


def faq_lines(ids: dict[str, str]) -> list[str]:
    tides, starter = ids["harbour-tides"], ids["sourdough-starter"]
    return [
        json.dumps(
            {
                "question": "Why are spring tides higher?",
                "answer": "The sun and moon pull together.",
                "citations": [{"source_id": f"src:{tides}", "quote": SPRING}],
            }
        ),
        '{"question": "Broken", "answer": tru',  # not JSON
        json.dumps({"question": "No answer field", "citations": []}),  # not an item
        json.dumps(
            {
                "question": "How often to feed?",
                "answer": "Every hour, the page says.",
                "citations": [{"source_id": starter, "quote": "Feed the starter every hour."}],
            }
        ),
        json.dumps(
            {
                "question": "How often to feed a starter?",
                "answer": "Once a day.",
                "citations": [{"source_id": starter, "quote": FEED}],
            }
        ),
    ]


def pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def transform(db: Path, server: ProviderServer, **kwargs: Any) -> tuple[dict[str, Any], list]:
    events: list[tuple[str, dict[str, Any]]] = []

    async def main() -> dict[str, Any]:
        async with open_store(db) as store:
            result = await run_transform(
                store,
                "Demo",
                kwargs.pop("type_id", "faq"),
                kwargs.pop("config", None),
                provider=provider_for(server),
                on_event=lambda event, data: events.append((event, data)),
                **kwargs,
            )
            return result.to_json()

    return asyncio.run(main()), events


def test_model_items_are_validated_per_line_verified_streamed_and_stored(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    reply = "\n".join(faq_lines(ids)) + "\n"
    server = ProviderServer([Reply(chunks=openai_sse(pieces(reply)))])
    try:
        result, events = transform(db, server)
    finally:
        server.close()
    artifact = result["artifact"]
    assert result["status"] == "completed"
    assert not result["partial"]
    assert artifact["provider"] == "rec"
    items = artifact["items"]
    assert [item["data"]["question"] for item in items] == [
        "Why are spring tides higher?",
        "How often to feed?",
        "How often to feed a starter?",
    ]
    assert [item["verified"] for item in items] == [True, False, True]
    assert "not in the source" in items[1]["flag"]
    assert items[0]["citations"][0]["source_id"] == ids["harbour-tides"]  # `src:` prefix undone
    assert items[0]["citations"][0]["locator"].startswith(PAGES[0].url + "#:~:text=")
    assert any("2 of 5 line(s)" in warning for warning in result["warnings"])
    assert any("1 item(s) could not be verified" in warning for warning in result["warnings"])
    shown = [data for event, data in events if event == "item"]
    assert [data["index"] for data in shown] == [0, 1, 2]
    assert shown[1]["item"]["verified"] is False
    stages = [data["stage"] for event, data in events if event == "progress"]
    assert stages[0] == "running"
    assert stages[-1] == "completed"
    markdown = artifact["content_markdown"]
    assert "### How often to feed?" in markdown
    assert "*(unverified)*" in markdown

    sent = server.received[0].body
    system, user = sent["messages"][0]["content"], sent["messages"][1]["content"]
    assert "NDJSON" in system
    assert '"question"' in system  # the item's JSON Schema
    assert "untrusted" in system
    assert ids["harbour-tides"] in user
    assert "response_format" not in sent  # NDJSON is not one JSON object

    async def runs() -> list[Any]:
        async with open_store(db) as store:
            return await store.runs.list()

    (run,) = asyncio.run(runs())
    assert (run.kind, run.provider_id, run.artifact_id) == ("transform.run", "rec", artifact["id"])
    assert run.status == "ok"


def test_a_stream_that_breaks_keeps_its_items_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    lines = faq_lines(ids)
    chunks = openai_sse([lines[0] + "\n", lines[4][:20]])
    server = ProviderServer([Reply(chunks=chunks, drop_after=2)])  # after the first line
    try:
        result, events = transform(db, server)
    finally:
        server.close()
    artifact = result["artifact"]
    assert result["status"] == "completed"
    assert result["partial"] is True
    assert [item["data"]["question"] for item in artifact["items"]] == [
        "Why are spring tides higher?"
    ]
    assert any("1 item(s) received are kept" in warning for warning in result["warnings"])
    assert [event for event, _ in events].count("item") == 1


def test_a_stream_that_breaks_before_any_item_fails_with_the_reason(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    chunks = openai_sse([faq_lines(ids)[0][:30]])
    server = ProviderServer([Reply(chunks=chunks, drop_after=1)])
    try:
        result, _ = transform(db, server)
    finally:
        server.close()
    artifact = result["artifact"]
    assert result["status"] == "failed"
    assert artifact["items"] == []
    assert "rec gave no usable faq item" in artifact["error"]
    assert "the offline runtime (provider `offline`" in artifact["error"]


def slow_server(ids: dict[str, str], count: int = 40, delay: float = 0.15) -> ProviderServer:
    line = faq_lines(ids)[0]
    lines = [line.replace("Why are", f"Q{n}: why are") for n in range(count)]
    return ProviderServer(
        [Reply(chunks=openai_sse([f"{x}\n" for x in lines]), delay_between=delay)]
    )


def test_cancelling_the_caller_ends_the_artifact_cancelled_with_its_items(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    server = slow_server(ids)

    async def main() -> str:
        async with open_store(db) as store:
            seen = asyncio.Event()
            ids_seen: list[str] = []

            def on_event(event: str, data: dict[str, Any]) -> None:
                ids_seen.append(data["artifact_id"])
                if event == "item" and data["index"] >= 1:
                    seen.set()

            task = asyncio.create_task(
                run_transform(
                    store, "Demo", "faq", provider=provider_for(server), on_event=on_event
                )
            )
            await asyncio.wait_for(seen.wait(), 20)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return ids_seen[0]

    try:
        artifact_id = asyncio.run(main())
    finally:
        server.close()

    async def read() -> Any:
        async with open_store(db) as store:
            return await store.artifacts.get(artifact_id)

    artifact = asyncio.run(read())
    assert artifact.status == "cancelled"
    assert len(artifact.items) >= 2
    assert artifact.partial is True
    assert artifact.content_markdown is not None
    assert "Q1: why are" in artifact.content_markdown


@pytest.mark.parametrize("how", ["token", "another connection"])
def test_a_cancel_request_stops_the_run_and_keeps_its_items(tmp_path: Path, how: str) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    server = slow_server(ids, count=80)
    token = CancelToken()

    async def main() -> dict[str, Any]:
        async with open_store(db) as store, open_store(db) as other:
            started = asyncio.Event()
            artifact: list[str] = []

            def on_event(event: str, data: dict[str, Any]) -> None:
                artifact.append(data["artifact_id"])
                if event == "item":
                    started.set()

            task = asyncio.create_task(
                run_transform(
                    store,
                    "Demo",
                    "faq",
                    provider=provider_for(server),
                    on_event=on_event,
                    cancel=token,
                )
            )
            await asyncio.wait_for(started.wait(), 20)
            if how == "token":
                token.cancel()
            else:
                assert await cancel_artifact(other, artifact[0]) is True
            result = await asyncio.wait_for(task, 20)
            return result.to_json()

    try:
        result = asyncio.run(main())
    finally:
        server.close()
    assert result["status"] == "cancelled"
    assert result["partial"] is True
    assert 1 <= len(result["artifact"]["items"]) < 80, result


def test_two_identical_concurrent_runs_make_one_artifact(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    server = slow_server(ids, count=20, delay=0.1)

    async def one(started: asyncio.Event | None = None) -> dict[str, Any]:
        async with open_store(db) as store:
            result = await run_transform(
                store,
                "Demo",
                "faq",
                provider=provider_for(server),
                on_event=lambda event, _data: started and event == "item" and started.set(),
            )
            return result.to_json()

    async def both() -> list[dict[str, Any]]:
        started = asyncio.Event()
        first = asyncio.create_task(one(started))
        await asyncio.wait_for(started.wait(), 30)  # the first is making it: the second joins
        return list(await asyncio.gather(first, one()))

    try:
        results = asyncio.run(both())
    finally:
        server.close()
    assert len(server.received) == 1  # one model call
    assert {r["artifact"]["id"] for r in results} == {results[0]["artifact"]["id"]}
    assert sorted(r["joined"] for r in results) == [False, True]
    assert all(r["status"] == "completed" for r in results)
    assert [len(r["artifact"]["items"]) for r in results] == [20, 20]

    async def count() -> int:
        async with open_store(db) as store:
            collection = await store.collections.get("Demo")
            return len(await store.artifacts.list(collection.id))

    assert asyncio.run(count()) == 1


def test_a_model_that_writes_no_ndjson_is_asked_again_under_the_items_schema(
    tmp_path: Path,
) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    items = [json.loads(line) for line in faq_lines(ids) if line.startswith('{"question": "Why')]
    prose = "Here are some questions about tides and bread: why spring tides are higher."
    server = ProviderServer(
        [
            Reply(chunks=openai_sse([prose])),
            Reply(chunks=openai_sse(pieces(json.dumps({"items": [*items, {"bad": 1}]})))),
        ]
    )
    try:
        result, _ = transform(db, server)
    finally:
        server.close()
    assert result["status"] == "completed"
    assert [i["data"]["question"] for i in result["artifact"]["items"]] == [
        "Why are spring tides higher?"
    ]
    assert result["artifact"]["items"][0]["verified"] is True
    assert any("asked again" in warning for warning in result["warnings"])
    retry = server.received[1].body
    schema = retry["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["items"]
    assert schema["properties"]["items"]["items"]["properties"]["citations"]["items"] == {
        "$ref": "#/$defs/Cited"
    }
    assert "Cited" in schema["$defs"]  # references resolve at the root


def test_a_multi_phase_type_plugs_into_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the knowledge-notes pipeline will do: phase 1 streams one item model, phase 2
    another built from it; only what the runner emits becomes the artifact's items."""
    from laika_host.transform import catalog
    from laika_host.transform.config import EmptyConfig
    from laika_host.transform.items import Bullet, Term
    from laika_host.transform.model_run import ModelContext
    from laika_host.transform.prompt import user_prompt
    from laika_host.transform.spec import TransformType

    async def two_phases(context: ModelContext) -> None:
        terms = [
            t
            async for t in context.phase(
                Term, "find terms", user_prompt(context.pack), phase="terms"
            )
        ]
        listed = "\n".join(f"{t.term}: {t.definition}" for t in terms)
        async for bullet in context.phase(Bullet, "restate", listed, phase="restate"):
            await context.sink.add(bullet)

    spec = TransformType(
        id="two-phase-test",
        title="Two phases",
        description="test",
        config=EmptyConfig,
        item=Bullet,
        layout="bullets",
        instructions=lambda _c: "",
        offline=lambda _corpus, _config: iter(()),
        model=two_phases,
    )
    monkeypatch.setitem(catalog.catalog(), spec.id, spec)
    db = tmp_path / "laika.db"
    ids = seed(db)
    term = {"term": "starter", "definition": "flour and water"}
    bullet = {
        "text": "A starter is fed daily.",
        "citations": [{"source_id": ids["sourdough-starter"], "quote": FEED}],
    }
    server = ProviderServer(
        [
            Reply(chunks=openai_sse([json.dumps(term) + "\n"])),
            Reply(chunks=openai_sse([json.dumps(bullet) + "\n"])),
        ]
    )
    try:
        result, events = transform(db, server, type_id="two-phase-test")
    finally:
        server.close()
    assert result["status"] == "completed"
    assert [i["data"]["text"] for i in result["artifact"]["items"]] == ["A starter is fed daily."]
    assert result["artifact"]["items"][0]["verified"] is True
    assert server.received[1].body["messages"][1]["content"] == "starter: flour and water"
    phases = [d.get("phase") for e, d in events if e == "progress" and d["stage"] == "generating"]
    assert phases == ["terms", "restate"]


def test_a_constrained_reply_cut_at_max_tokens_keeps_its_complete_items(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    ids = seed(db)
    items = [json.loads(line) for line in faq_lines(ids) if "Once a day" in line or "Why" in line]
    whole = json.dumps({"items": items}, indent=2)
    cut = whole[: whole.index("How often to feed a starter") + 10]  # inside the second item
    server = ProviderServer(
        [
            Reply(
                chunks=openai_sse(["Sure! Here are the questions you asked for"], finish="length")
            ),
            Reply(chunks=openai_sse(pieces(cut, 13), finish="length")),
        ]
    )
    try:
        result, events = transform(db, server, config={"count": 3})
    finally:
        server.close()
    assert result["status"] == "completed"
    assert result["partial"] is True
    assert [i["data"]["question"] for i in result["artifact"]["items"]] == [
        "Why are spring tides higher?"
    ]
    assert [e for e, _ in events].count("item") == 1
    retry = server.received[1].body["response_format"]["json_schema"]["schema"]
    assert retry["properties"]["items"]["maxItems"] == 3  # the config's count


def test_a_podcast_whose_every_line_is_by_another_speaker_fails_saying_why(tmp_path: Path) -> None:
    """Seen with the real local model: it wrote lines for "Alice" and "Bob" while the hosts
    were Host and Guest. Every line is left out, and the run fails with that reason instead of
    completing with nothing in it."""
    db = tmp_path / "laika.db"
    seed(db)
    lines = [json.dumps({"speaker": name, "line": "Tides follow the moon."}) for name in "AB"]
    server = ProviderServer([Reply(chunks=openai_sse(pieces("\n".join(lines) + "\n")))])
    try:
        result, _ = transform(db, server, type_id="podcast-script")
    finally:
        server.close()
    artifact = result["artifact"]
    assert artifact["status"] == "failed"
    assert (
        "rec gave no usable podcast script item (all 2 were left out: lines by speakers"
        in (artifact["error"])
    )
    assert "offline runtime (provider `offline`" in artifact["error"]
