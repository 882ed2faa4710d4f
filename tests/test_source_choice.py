"""Choosing which sources an answer reads (issue 26, item 5): `laika ask --source ID`,
`--skip-source ID`, `chat.ask`'s `sources` and `skip_sources`. The pack holds only what the
choice allows, whatever it is; an id that is not in the collection is named, with the fix."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.agent.flows import _pack
from laika_host.agent.source_choice import SourceChoice
from laika_host.capture import capture_html
from laika_host.cli import main
from laika_host.store import Store, open_store

from native_client import serve_in_process

PAGES = {
    "tides": "Tides rise and fall twice a day because the moon pulls the oceans toward it.",
    "harbour": "The harbour master logs the spring tide on the eastern gauge every morning.",
    "bridges": "The council approved a new bridge over the river after a long debate on tides.",
}


def _page(name: str, sentence: str) -> bytes:
    body = f"<p>{sentence}</p>" + "<p>Sailors read the tables before they leave port.</p>" * 2
    return f"<html><head><title>{name}</title></head><body><article><h1>{name.title()}</h1>{body}</article></body></html>".encode()


async def _seed(store: Store) -> dict[str, str]:
    ids = {}
    for name, sentence in PAGES.items():
        capture = capture_html(_page(name, sentence), f"https://coast.test/{name}")
        ids[name] = (await store.sources.save_capture("Coast", capture)).source.id
    return ids


def _home_db() -> Path:
    import os

    return Path(os.environ["LAIKA_HOME"]) / "laika.db"


def _seeded() -> dict[str, str]:
    async def work() -> dict[str, str]:
        async with open_store(_home_db()) as store:
            return await _seed(store)

    return asyncio.run(work())


def _cited(output: str) -> set[str]:
    answer = json.loads(output)
    return {c["source_id"] for c in answer["citations"]}


def test_the_cli_reads_only_the_sources_chosen_and_never_a_skipped_one() -> None:
    ids = _seeded()
    question = ["ask", "Why do the tides rise?", "-c", "Coast", "--provider", "offline", "--json"]
    runner = CliRunner()
    everything = runner.invoke(main, question)
    assert everything.exit_code == 0, everything.output
    assert ids["tides"] in _cited(everything.stdout)
    only = runner.invoke(main, [*question, "--source", ids["harbour"]])
    assert only.exit_code == 0, only.output
    assert _cited(only.stdout) <= {ids["harbour"]}
    skipped = runner.invoke(main, [*question, "--skip-source", ids["tides"]])
    assert skipped.exit_code == 0, skipped.output
    assert ids["tides"] not in _cited(skipped.stdout)


def test_an_id_not_in_the_collection_is_named_with_the_fix() -> None:
    _seeded()
    done = CliRunner().invoke(
        main, ["ask", "Tides?", "-c", "Coast", "--source", "src_" + "0" * 32, "--no-tools"]
    )
    assert done.exit_code == 1
    assert f"no source src_{'0' * 32} in the collection 'Coast'" in done.stderr
    assert "laika sources list -c 'Coast'" in done.stderr


def test_chat_ask_takes_the_choice_and_names_a_stranger_without_a_command() -> None:
    ids = _seeded()
    asked = {"question": "Why do the tides rise?", "collection": "Coast", "provider": "offline"}
    messages = asyncio.run(
        serve_in_process(
            [
                {"id": "a", "type": "chat.ask", "payload": {**asked, "sources": [ids["bridges"]]}},
                {
                    "id": "b",
                    "type": "chat.ask",
                    "payload": {**asked, "skip_sources": [ids["tides"]]},
                },
                {
                    "id": "c",
                    "type": "chat.ask",
                    "payload": {**asked, "sources": ["src_" + "1" * 32]},
                },
                {"id": "d", "type": "chat.ask", "payload": {**asked, "sources": ["not-an-id"]}},
            ]
        )
    )
    replies = {m["id"]: m for m in messages if "ok" in m}
    assert {c["source_id"] for c in replies["a"]["result"]["citations"]} <= {ids["bridges"]}
    assert ids["tides"] not in {c["source_id"] for c in replies["b"]["result"]["citations"]}
    assert replies["c"]["error"]["code"] == "not_found"
    assert "in the collection 'Coast'" in replies["c"]["error"]["message"]
    assert "laika " not in replies["c"]["error"]["message"]
    assert replies["d"]["error"]["code"] == "bad_request"


@pytest.fixture(scope="module")
def coast(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    db = tmp_path_factory.mktemp("choice") / "laika.db"

    async def work() -> dict[str, str]:
        async with open_store(db) as store:
            return await _seed(store)

    return db, asyncio.run(work())


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    only=st.sets(st.sampled_from(sorted(PAGES))),
    skip=st.sets(st.sampled_from(sorted(PAGES))),
    question=st.sampled_from(["Why do tides rise?", "bridge council", "port", "zzz"]),
    budget=st.sampled_from([300, 945, 6_000]),
)
def test_the_pack_holds_nothing_the_choice_leaves_out(
    coast: tuple[Path, dict[str, str]], only: set[str], skip: set[str], question: str, budget: int
) -> None:
    db, ids = coast
    choice = SourceChoice(tuple(ids[n] for n in sorted(only)), tuple(ids[n] for n in sorted(skip)))

    async def work() -> Any:
        async with open_store(db) as store:
            collection = await store.collections.get("Coast")
            return await _pack(store, collection.id, "Coast", question, budget, choice=choice)

    pack = asyncio.run(work())
    indexes = [d for d in pack.documents if d["kind"] == "collection.index.v1"]
    sent = {str(d["doc_id"]).removeprefix("src:") for d in pack.documents if d not in indexes}
    allowed = {source_id for source_id in ids.values() if choice.allows(source_id)}
    assert sent <= allowed
    listed = {s["source_id"] for d in indexes for s in d["content"]["sources"]}
    assert listed <= allowed


def test_leaving_every_source_out_is_refused_with_the_fix() -> None:
    ids = _seeded()
    skips = [arg for source_id in ids.values() for arg in ("--skip-source", source_id)]
    done = CliRunner().invoke(main, ["ask", "Tides?", "-c", "Coast", "--no-tools", *skips])
    assert done.exit_code == 1
    assert "every source of 'Coast' is left out" in done.stderr
