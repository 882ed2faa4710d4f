"""The service layer (`laika_host.service`), the one place each operation is orchestrated:
called directly on a real SQLite store with the offline runtime, and through both of its
callers (the `laika` command and the native host, real subprocesses) to check that the
terminal and the browser get the same result for the same operation."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.defaults import DEFAULT_COLLECTION
from laika_host.paths import data_dir
from laika_host.service import ask, capture, models, search, sources
from laika_host.service.ask import AskOptions, coverage_line
from laika_host.service.capture import ObservedPage
from laika_host.service.models import ProviderChoice
from laika_host.service.summarize import summarize_page
from laika_host.store import InvalidInputError, Store, open_store

from llm_servers import closed_port_url
from native_client import Client, HostProcess
from support import run_laika

T = TypeVar("T")
PAGES = {
    "https://tides.test/harbour": (
        "Harbour tides",
        [
            "High water at the harbour comes twice a day because the moon pulls the oceans.",
            "Spring tides are the largest of the month, when the sun and the moon pull together.",
            "Neap tides come a week later, when the sun pulls across the moon's line.",
        ],
    ),
    "https://bread.test/notes": (
        "Bread notes",
        [
            "Sourdough needs a lively starter, warm water and a long, slow rise overnight.",
            "A hot oven with steam gives the loaf its open crumb and a crackling crust.",
        ],
    ),
}
WORDS = sorted(
    {
        word.strip(".,'").lower()
        for _, paragraphs in PAGES.values()
        for p in paragraphs
        for word in p.split()
    }
)
SLOW = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def page_html(title: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{body}</article></body></html>"


def on_store(work: Callable[[Store], Awaitable[T]]) -> T:
    """Run `work` on the test's own store (`LAIKA_HOME` is a fresh directory per test)."""

    async def main() -> T:
        async with open_store() as store:
            return await work(store)

    return asyncio.run(main())


async def seed(store: Store, collection: str = "Coast") -> list[str]:
    """Capture and store every page through the service, as `laika capture` does."""
    ids = []
    for url, (title, paragraphs) in PAGES.items():
        captured = await capture.capture_bytes(page_html(title, paragraphs).encode(), url)
        saved = await capture.store_capture(store, captured, collection=collection)
        ids.append(saved.source.id)
    return ids


questions = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(
    lambda words: " ".join(words) + "?"
)


@pytest.mark.slow  # real subprocesses: about 2 s per question here
@SLOW
@given(question=questions)
def test_the_command_and_the_host_give_the_same_answer(question: str) -> None:
    """`laika ask --json` and the host's `chat.ask` are one service call: the same answer,
    citations and verification for any question (the host adds the rendered HTML and the
    coverage line the CLI prints under its answer)."""
    home = data_dir()
    if not (home / "laika.db").exists():
        on_store(seed)
    done = run_laika("ask", "--json", "-c", "Coast", "--provider", "offline", question)
    assert done.returncode == 0, done.stderr
    from_cli = json.loads(done.stdout)
    host = HostProcess(home)
    try:
        reply = Client(host).call(
            "chat.ask", {"question": question, "collection": "Coast", "provider": "offline"}
        )
    finally:
        host.kill()
    assert reply["ok"], reply
    from_host = reply["result"]
    assert from_host.pop("answer_html")
    assert from_host.pop("coverage_line") == coverage_line(from_cli["coverage"])
    assert from_host.pop("run_id") != from_cli.pop("run_id")  # two turns, each recorded
    assert from_host == from_cli


@pytest.mark.slow  # real subprocesses: about 9 s here
def test_listing_searching_and_saving_agree_between_the_command_and_the_host(
    tmp_path: Path,
) -> None:
    """The same store read through both callers gives the same records; the same page saved
    from a file and from the extension's DOM gives the same text."""
    on_store(seed)
    host = HostProcess(data_dir())
    client = Client(host)
    try:
        for args, message, payload in (
            (["sources", "list", "-c", "Coast"], "sources.list", {"collection": "Coast"}),
            (
                ["search", "-c", "Coast", "moon", "tides"],
                "search.query",
                {"query": "moon tides", "collection": "Coast"},
            ),
            (["collections", "list"], "collections.list", {}),
        ):
            done = run_laika(*args, "--json")
            assert done.returncode == 0, done.stderr
            reply = client.call(message, payload)
            assert reply["ok"], reply
            assert reply["result"] == json.loads(done.stdout), message

        url, (title, paragraphs) = next(iter(PAGES.items()))
        file = tmp_path / "page.html"
        file.write_text(page_html(title, paragraphs), encoding="utf-8")
        done = run_laika("capture", str(file), "--url", url, "-c", "From file", "--json")
        assert done.returncode == 0, done.stderr
        saved = client.call(
            "sources.save_page",
            {"url": url, "html": page_html(title, paragraphs), "collection": "From tab"},
        )
        assert saved["ok"], saved
    finally:
        host.kill()
    from_file = json.loads(done.stdout)["source"]
    from_tab = saved["result"]["source"]
    for field in ("title", "content_hash", "normalized_url", "markdown_chars", "signals"):
        assert from_file[field] == from_tab[field], field


@settings(max_examples=25, deadline=None)
@given(blank=st.text(alphabet=" \t\n\r\x0b\x0c\u00a0\u2003\u3000", max_size=12))
def test_a_blank_question_is_refused_and_records_nothing(blank: str) -> None:
    async def work(store: Store) -> int:
        await store.collections.ensure(DEFAULT_COLLECTION)
        with pytest.raises(InvalidInputError, match="the question is empty"):
            await ask.ask(store, blank)
        target = await store.collections.get(DEFAULT_COLLECTION)
        return len(await store.chat.list(target.id))

    assert on_store(work) == 0


@settings(max_examples=10, deadline=None)
@given(chosen=st.sets(st.integers(0, 2), min_size=1))
def test_a_selection_saved_or_summarized_is_its_own_source(chosen: set[int]) -> None:
    """The page's saved copy is never replaced by a part of it, whichever call stores the
    part: `save_page` with a selection, or `summarize_page` of a selection."""
    url, (title, paragraphs) = next(iter(PAGES.items()))
    selection = "".join(f"<p>{paragraphs[i]}</p>" for i in sorted(chosen))
    page = ObservedPage(url, page_html(title, paragraphs), title)
    selected = ObservedPage(url, page.html, title, selection_html=selection)

    reading = f"Reading {uuid.uuid4().hex[:8]}"  # each example its own collection

    async def work(store: Store) -> None:
        whole = await capture.save_page(store, page, collection=reading, mode="article")
        part = await capture.save_page(store, selected, collection=reading)
        answer = await summarize_page(store, selected, AskOptions(collection=reading))
        assert answer.status == "ok"
        found = await sources.list_sources(store, collection=reading)
        by_id = {s.id: s for s in found}
        assert by_id[whole.source.id].content_hash == whole.source.content_hash
        assert part.source.id != whole.source.id
        assert part.source.normalized_url is not None
        assert part.source.normalized_url.startswith(f"{url}#laika-selection=")
        assert len(found) == 2  # the summary stored the same selection: no third source
        detail = await sources.get_source(store, part.source.id)
        assert detail.markdown is not None
        assert all(paragraphs[i] in detail.markdown for i in chosen)

    on_store(work)


@settings(max_examples=15, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
def test_a_collection_is_searched_the_same_by_title_or_id(words: list[str]) -> None:
    async def work(store: Store) -> None:
        await seed(store)
        target = await store.collections.get("Coast")
        query = " ".join(words)
        results = [
            await search.search(store, query, collection=name)
            for name in ("Coast", "coast", target.id)
        ]
        assert results[0] == results[1] == results[2]
        everywhere = await search.search(store, query)
        assert {h.id for h in results[0].hits} <= {h.id for h in everywhere.hits}

    on_store(work)


@given(
    provider_id=st.sampled_from([None, "offline", "homebox"]),
    base_url=st.sampled_from([None, "http://127.0.0.1:9/v1"]),
    model=st.sampled_from([None, "m"]),
    fallback=st.booleans(),
)
def test_only_a_provider_chosen_by_default_falls_back(
    provider_id: str | None, base_url: str | None, model: str | None, fallback: bool
) -> None:
    options = AskOptions(provider=ProviderChoice(provider_id, model, base_url), fallback=fallback)
    assert options.falls_back() == (fallback and provider_id is None and base_url is None)


@pytest.mark.slow  # the client's connection retries: several seconds here
def test_a_default_provider_that_is_down_is_replaced_only_when_asked() -> None:
    spec = models.ProviderSpec("homebox", "openai_compatible", "m", f"{closed_port_url()}/v1")
    models.add_provider(spec)
    assert models.list_providers()["default"] == "homebox"
    question = "Why are spring tides so large?"

    async def work(store: Store) -> list[dict[str, Any]]:
        await seed(store)
        asked = [
            AskOptions(collection="Coast", fallback=True),
            AskOptions(collection="Coast", fallback=False),
            AskOptions(collection="Coast", provider=ProviderChoice("homebox"), fallback=True),
        ]
        return [(await ask.ask(store, question, options)).to_json() for options in asked]

    replaced, failed, named = on_store(work)
    assert replaced["status"] == "ok"
    assert replaced["fallback"]["provider"] == "homebox"
    assert replaced["citations"]
    assert all(c["verified"] for c in replaced["citations"])
    for answer in (failed, named):
        assert answer["status"] == "error"
        assert "fallback" not in answer
