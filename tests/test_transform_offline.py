"""Every transform type with the offline runtime, on a real store: structurally valid output
(a table has its rows, a quiz its options and answer), every item verified (offline items quote
the sources verbatim) or flagged with a reason, and Markdown that shows page text as text (no
raw HTML, no link but the Sources' web links), whatever the pages hold."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from laika_host.capture import capture_html
from laika_host.demo.pages import PAGES
from laika_host.store import InvalidInputError, open_store
from laika_host.transform import get_type, list_types, run_transform

from support import capture_dev_corpus

READY = [t["id"] for t in list_types() if t["ready"] and not t["needs_model"]]
NEEDS_MODEL = [t["id"] for t in list_types() if t["needs_model"]]
CONFIG = {"custom": {"instructions": "How do bees keep warm in winter?"}}
PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")

HOSTILE = """<html><head><title>Tricky | page <b>x</b></title></head><body><article>
<h1>Tricky | page</h1>
<p>The vendor is a company that sells &lt;script&gt;alert(1)&lt;/script&gt; widgets for 40 dollars.</p>
<p>Remember to read [the terms](javascript:alert(2)) before you pay | split the * cost * now.</p>
<p># Not a heading: an API key is a secret that unlocks the server since 2019.</p>
<p>A widget is an object that costs 12 euros and breaks after 3 weeks of use.</p>
<p>Users should avoid the &lt;img src=x onerror=alert(3)&gt; trick, because it fails in 2021.</p>
</article></body></html>"""


def seed(db: Path, pages: list[tuple[str, bytes]], collection: str = "Demo") -> None:
    async def main() -> None:
        async with open_store(db) as store:
            for url, html in pages:
                await store.sources.save_capture(collection, capture_html(html, url))

    asyncio.run(main())


def run(db: Path, type_id: str, collection: str = "Demo", config: Any = None) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with open_store(db) as store:
            result = await run_transform(store, collection, type_id, config)
            return result.to_json()

    return asyncio.run(main())


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    db = tmp_path / "laika.db"
    seed(db, [(page.url, page.html.encode()) for page in PAGES])
    return db


def tokens(markdown: str) -> list[Token]:
    flat: list[Token] = []
    for token in PARSER.parse(markdown):
        flat.append(token)
        flat.extend(token.children or [])
    return flat


def assert_safe(markdown: str) -> None:
    """No HTML reaches a CommonMark reader; the only links are the Sources' web links."""
    found = tokens(markdown)
    assert not [t for t in found if t.type in ("html_block", "html_inline")], markdown
    assert not [t for t in found if t.type == "image"]
    for link in (t for t in found if t.type == "link_open"):
        assert str(link.attrs.get("href", "")).startswith("https://"), markdown
    body = markdown.split("\n## Sources\n", 1)[0]
    assert not [t for t in tokens(body) if t.type == "link_open"], body


def assert_structure(type_id: str, artifact: dict[str, Any]) -> None:
    """The items validate against the type's item model, and the Markdown has the shape of
    the type (rows, options, slides, nesting)."""
    spec, items, markdown = get_type(type_id), artifact["items"], artifact["content_markdown"]
    for item in items:
        assert item["kind"] == spec.item.kind
        spec.item.model_validate(item["data"])  # structurally what the contract says
        assert item["verified"] or item["flag"]
        assert item["verified"] == (
            bool(item["citations"]) and all(c["verified"] for c in item["citations"])
        )
    found = tokens(markdown)
    count = lambda kind: sum(t.type == kind for t in found)  # noqa: E731
    if spec.layout in ("table", "comparison"):
        assert count("tr_open") == len(items) + 1  # the header and one row per item
    if spec.layout == "quiz":
        for item in items:
            assert item["data"]["answer"] in item["data"]["options"]
            assert len(item["data"]["options"]) >= 3
        assert markdown.count("**Answer:**") == len(items)
    if spec.layout == "slides":
        assert count("hr") == len(items) - 1
    if spec.layout == "tree" and len({item["data"]["level"] for item in items}) > 1:
        # items on more than one level render as nested lists (a model may write one level)
        assert count("bullet_list_open") >= 2
    if spec.layout in ("qa", "sections"):
        assert count("heading_open") >= len(items) + 1
    numbered = [c for item in items for c in item["citations"]]
    if numbered:
        assert "## Sources" in markdown


@pytest.mark.parametrize("type_id", READY)
def test_every_type_runs_offline_with_verified_structured_safe_output(
    demo: Path, type_id: str
) -> None:
    result = run(demo, type_id, config=CONFIG.get(type_id))
    artifact = result["artifact"]
    assert result["status"] == "completed"
    assert artifact["status"] == "completed"
    assert artifact["provider"] == ("metadata" if type_id == "citation-list" else "offline")
    assert artifact["items"], f"{type_id} made nothing from the demo pages"
    assert all(item["verified"] for item in artifact["items"])  # offline quotes verbatim
    assert_structure(type_id, artifact)
    assert_safe(artifact["content_markdown"])
    assert artifact["stale"] is False
    assert {s["source_id"] for s in artifact["sources"]} == set(artifact["source_ids"])
    assert all(s["content_hash"] for s in artifact["sources"])


@pytest.mark.parametrize("type_id", READY)
def test_hostile_page_text_stays_text_in_every_type(tmp_path: Path, type_id: str) -> None:
    db = tmp_path / "laika.db"
    seed(
        db,
        [
            ("https://tricky.test/a", HOSTILE.encode()),
            (PAGES[0].url, PAGES[0].html.encode()),
        ],
    )
    artifact = run(db, type_id, config=CONFIG.get(type_id))["artifact"]
    assert artifact["status"] == "completed"
    assert_structure(type_id, artifact)
    assert_safe(artifact["content_markdown"] or "")
    stored = json.dumps(artifact["items"])
    assert "javascript:" not in (artifact["content_markdown"] or "").split("## Sources")[0] or (
        "javascript:" in stored  # shown only as the page's own words, never as a link
    )


def test_a_dated_collection_gives_a_chronological_timeline(tmp_path: Path) -> None:
    page = """<html><head><title>Voyages</title></head><body><article><h1>Voyages</h1>
    <p>The first crewed landing on the moon took place in July 1969 after years of work.</p>
    <p>Columbus reached the Caribbean islands in 1492 with three small ships.</p>
    <p>The declaration was signed on 4 July 1776 in the city of Philadelphia.</p>
    <p>The station has been crewed without a break since 2000 by rotating teams.</p>
    </article></body></html>"""
    db = tmp_path / "laika.db"
    seed(db, [("https://voyages.test/", page.encode())], collection="History")
    artifact = run(db, "timeline", collection="History")["artifact"]
    dates = [item["data"]["date"] for item in artifact["items"]]
    assert dates == ["1492", "4 July 1776", "July 1969", "2000"]
    assert all(item["verified"] for item in artifact["items"])


def test_citation_list_styles_follow_the_stored_metadata(tmp_path: Path) -> None:
    page = """<html><head><title>Tide tables</title>
    <meta name="author" content="Ada Lovelace">
    <meta property="article:published_time" content="2024-03-05T10:00:00Z"></head>
    <body><article><h1>Tide tables</h1>
    <p>High water times are printed every week for the harbour office and the pilots.</p>
    </article></body></html>"""
    db = tmp_path / "laika.db"
    seed(db, [("https://www.tides.test/tables", page.encode())], collection="Refs")
    shown = {
        style: run(db, "citation-list", "Refs", {"style": style})["artifact"]["items"][0]["data"][
            "text"
        ]
        for style in ("apa", "mla", "chicago")
    }
    assert shown["apa"] == (
        "Lovelace, A. (2024, March 5). Tide tables. tides.test. https://www.tides.test/tables"
    )
    assert shown["mla"].startswith("Lovelace, Ada. “Tide tables.” tides.test, 5 Mar. 2024, ")
    assert shown["chicago"].startswith("Lovelace, Ada. “Tide tables.” tides.test. March 5, 2024.")


@pytest.mark.parametrize("type_id", NEEDS_MODEL)
def test_a_type_that_needs_a_model_is_refused_offline_with_why_and_nothing_is_made(
    demo: Path, type_id: str
) -> None:
    spec = get_type(type_id)
    assert spec.needs_model
    assert spec.offline is None
    with pytest.raises(InvalidInputError) as refused:
        run(demo, type_id)
    assert str(refused.value).startswith(f"{spec.title} needs a model: {spec.needs_model}")
    assert "--provider" in (refused.value.cli_hint or "")

    async def artifacts() -> list[Any]:
        async with open_store(demo) as store:
            collection = await store.collections.get("Demo")
            return await store.artifacts.list(collection.id)

    assert asyncio.run(artifacts()) == []


def test_bad_config_unknown_type_and_empty_collection_are_refused(
    demo: Path,
) -> None:
    cases = [
        ("quiz", {"count": 0}, "count"),
        ("quiz", {"colour": "red"}, "colour is not a setting"),
        ("custom", None, "instructions is required"),
        ("citation-list", {"style": "harvard"}, "style"),
        ("no-such-type", None, "the types are:"),
    ]
    for type_id, config, words in cases:
        with pytest.raises(InvalidInputError, match=words):
            run(demo, type_id, config=config)

    async def empty() -> None:
        async with open_store(demo) as store:
            await store.collections.create("Empty")
            await run_transform(store, "Empty", "summary")

    with pytest.raises(InvalidInputError, match="no captured sources"):
        asyncio.run(empty())


def test_list_types_publishes_every_type_with_its_config_schema() -> None:
    from jsonschema import Draft202012Validator

    listed = {t["id"]: t for t in list_types()}
    wanted = [
        "summary",
        "key-takeaways",
        "executive-brief",
        "report",
        "study-guide",
        "faq",
        "glossary",
        "outline",
        "timeline",
        "comparison",
        "data-table",
        "pros-cons",
        "action-items",
        "flashcards",
        "quiz",
        "mind-map",
        "slide-deck",
        "podcast-script",
        "email-summary",
        "citation-list",
        "knowledge-notes",
        "custom",
    ]
    assert set(wanted) <= set(listed)
    for entry in listed.values():
        Draft202012Validator.check_schema(entry["config_schema"])
        Draft202012Validator.check_schema(entry["item_schema"])
        assert "citations" in entry["item_schema"]["properties"]
        properties = entry["config_schema"].get("properties", {})
        defaults = {k: v["default"] for k, v in properties.items() if "default" in v}
        get_type(entry["id"]).config.model_validate(defaults | CONFIG.get(entry["id"], {}))
    assert listed["citation-list"]["config_schema"]["properties"]["style"]["enum"] == [
        "apa",
        "mla",
        "chicago",
    ]
    assert all(entry["ready"] for entry in listed.values())
    needs_model = {k for k, v in listed.items() if v["needs_model"]}
    assert needs_model == {
        *("faq", "glossary", "flashcards", "quiz", "mind-map", "pros-cons", "action-items"),
        *("comparison", "data-table", "podcast-script", "executive-brief", "email-summary"),
        "study-guide",
    }


@pytest.mark.corpus
def test_every_type_on_real_pages_is_verified_or_flagged_and_safe(tmp_path: Path) -> None:
    corpus = capture_dev_corpus()
    expectations = json.loads((corpus / "expectations.json").read_text(encoding="utf-8"))
    pages = []
    for name, entry in sorted(expectations.items())[:40]:
        path = corpus / "html" / name
        if path.is_file() and entry.get("source_key", "").startswith("http"):
            pages.append((entry["source_key"], path.read_bytes()))
    db = tmp_path / "laika.db"
    seed(db, pages[:25], collection="Web")
    for type_id in READY:
        artifact = run(db, type_id, "Web", CONFIG.get(type_id))["artifact"]
        assert artifact["status"] == "completed", (type_id, artifact["error"])
        assert_structure(type_id, artifact)
        assert_safe(artifact["content_markdown"] or "")
        items = artifact["items"]
        verified = sum(item["verified"] for item in items)
        assert verified >= 0.9 * len(items), (type_id, [i["flag"] for i in items if i["flag"]])
