"""The library tools through the gate on a real store, as a user's call (so writes are
approved first): they do what `laika search`, `collections` and `sources` do, a page is
fetched from a real loopback server (playing a public site: `public_loopback`), a refused
call changes nothing, and no tool fetches from the user's machine or network."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from laika_host.demo.pages import PAGES
from laika_host.store import Store, open_store
from laika_host.tools import gate
from laika_host.tools.policy import GateContext, Proposal

from html_server import serve, serve_at
from public_loopback import loopback_is_public  # noqa: F401 (a fixture)

T = TypeVar("T")
USER = GateContext(origin="user")


def on_store(db: Path, work: Callable[[Store], Awaitable[T]]) -> T:
    async def main() -> T:
        async with open_store(db) as store:
            return await work(store)

    return asyncio.run(main())


async def run(store: Store, name: str, arguments: dict[str, Any]) -> gate.CallOutcome:
    """Propose as the user; approve what the gate asks about."""
    outcome = await gate.propose(store, Proposal(name=name, arguments=arguments), USER)
    if outcome.approval_id is not None:
        outcome = await gate.decide(store, outcome.approval_id, True)
    return outcome


@pytest.mark.usefixtures("loopback_is_public")
def test_collections_sources_and_search(tmp_path: Path) -> None:
    page = PAGES[0]

    async def work(store: Store) -> None:
        created = await run(store, "collection.create", {"title": "Reading", "tags": ["t"]})
        assert created.result["collection"]["tags"] == ["t"]
        collection_id = created.result["collection"]["id"]
        note = {"type": "note", "title": "Idea", "text": "zymurgy <b>is</b> brewing"}
        added = await run(
            store, "collection.add_sources", {"collectionId": "Reading", "sources": [note]}
        )
        assert added.call.status == "executed", added.error
        listed = await run(store, "collection.list_sources", {"collectionId": collection_id})
        assert listed.call.decision == "allow"
        assert [s["title"] for s in listed.result["sources"]] == ["Idea"]
        found = await run(store, "search", {"query": "zymurgy"})
        assert found.call.decision == "allow"
        assert [hit["title"] for hit in found.result["hits"]] == ["Idea"]
        web = await run(store, "search", {"query": "zymurgy", "engine": "bing"})
        assert web.call.status == "failed"
        assert "not available" in (web.error or "")
        with serve(lambda path: page.html if path == "/a" else None) as base:
            captured = await run(
                store,
                "source.capture",
                {"collectionId": "Reading", "url": f"{base}/a", "maxChars": 5000},
            )
            assert captured.call.status == "executed", captured.error
            source_id = captured.result["source"]["id"]
            refreshed = await run(store, "source.refresh", {"sourceId": source_id})
            assert refreshed.call.status == "executed", refreshed.error
            assert refreshed.result["outcome"] in ("unchanged", "updated")
        titles = [s.title for s in await store.sources.list("Reading")]
        assert len(titles) == 2

    on_store(tmp_path / "laika.db", work)


def test_a_missing_collection_fails_the_call_and_creates_nothing(tmp_path: Path) -> None:
    async def work(store: Store) -> None:
        note = {"type": "note", "text": "x"}
        outcome = await run(
            store, "collection.add_sources", {"collectionId": "Nowhere", "sources": [note]}
        )
        assert outcome.call.status == "failed"
        assert "Nowhere" in (outcome.error or "")
        assert await store.collections.find("Nowhere") is None

    on_store(tmp_path / "laika.db", work)


def test_an_integration_is_refused_even_when_approved(tmp_path: Path) -> None:
    async def work(store: Store) -> None:
        arguments = {"integration": "notes", "operation": "append", "payload": {}}
        denied = await gate.propose(
            store, Proposal(name="integration.invoke", arguments=arguments), USER
        )
        assert (denied.call.status, denied.call.rule_id) == ("denied", "guard.integration")
        configured = USER.model_copy(update={"integrations": frozenset({"notes"})})
        asked = await gate.propose(
            store, Proposal(name="integration.invoke", arguments=arguments), configured
        )
        ran = await gate.decide(store, asked.approval_id or "", True)
        assert ran.call.status == "failed"
        assert "no integrations yet" in (ran.error or "")

    on_store(tmp_path / "laika.db", work)


def test_untrusted_context_makes_a_read_wait_and_the_session_keeps_its_arguments(
    tmp_path: Path,
) -> None:
    async def work(store: Store) -> None:
        session = gate.Session()
        context = GateContext(origin="model", untrusted_context=True)
        proposal = Proposal(name="app.calculate", arguments={"expression": "1+1"})
        asked = await gate.propose(store, proposal, context, session=session)
        assert asked.call.status == "pending"
        assert asked.approval_id in session.pending_arguments
        assert "untrusted" in asked.call.reason
        denied = await gate.decide(
            store, asked.approval_id or "", False, remember="session", session=session
        )
        assert denied.call.status == "denied"
        again = await gate.propose(store, proposal, context, session=session)
        assert (again.call.status, again.call.rule_id) == (
            "denied",
            "remembered.session.app.calculate",
        )

    on_store(tmp_path / "laika.db", work)


INSIDE_URLS = [
    "http://127.0.0.1:{port}/a",
    "http://0x7f000001:{port}/a",
    "http://2130706433:{port}/a",
    "http://0177.0.0.1:{port}/a",
    "http://127.1:{port}/a",
    "http://[::1]:{port}/a",
    "http://[::ffff:127.0.0.1]:{port}/a",
    "http://localhost:{port}/a",
]


@pytest.mark.parametrize("template", INSIDE_URLS)
def test_no_tool_fetches_from_the_users_machine_even_when_the_user_allows_it(
    tmp_path: Path, template: str
) -> None:
    """`source.capture`, `collection.add_sources` (a URL) and `source.refresh` run for a
    model (or a rule): an address on the user's machine is refused whatever the setting
    says, and the server there sees no request (issue #24)."""
    from laika_host.config import registry
    from laika_host.service import sources

    registry.mutate({"capture.allow_private_addresses": True}, who="cli", tool="config.set")
    with serve_at(lambda _path: PAGES[0].html) as inside:
        url = template.format(port=inside.port)

        async def work(store: Store) -> None:
            await run(store, "collection.create", {"title": "Reading"})
            captured = await run(store, "source.capture", {"collectionId": "Reading", "url": url})
            assert captured.call.status == "failed"
            assert "which Laika never fetches for a model" in (captured.error or "")
            assert "--allow-private-address" in (captured.error or "")
            spec = {"type": "url", "url": url}
            added = await run(
                store, "collection.add_sources", {"collectionId": "Reading", "sources": [spec]}
            )
            assert added.call.status == "failed"
            assert "never fetches for a model" in (added.error or "")
            assert await store.sources.list("Reading") == []
            # the user's own source at that address (queued with their allowance)
            mine = await sources.add_url(store, url, collection="Reading", allow_private=True)
            refreshed = await run(store, "source.refresh", {"sourceId": mine.source.id})
            job = refreshed.result["job"]
            assert job["status"] == "failed"
            assert "never fetches for a model" in job["last_error"]
            assert not await store.sources.private_fetch_allowed(mine.source.id)  # used up

        on_store(tmp_path / "laika.db", work)
    assert inside.paths == []
