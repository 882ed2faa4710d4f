"""Artifact exports over a real store (demo pages, offline transforms): every format keeps
hostile item text inert (YAML front matter parses back, CSV reads back to the rows with no
formula cell, HTML has no script, handler or foreign-scheme link), and files are written
only where asked: no traversal, no symlink, no overwrite without --force, 0600."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import re
import stat
from collections.abc import Callable
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.capture import capture_html
from laika_host.demo.pages import PAGES
from laika_host.errors import ClashError, RefusedError
from laika_host.service.artifacts import (
    OutputExistsError,
    UnsafeOutputError,
    export_artifact,
    export_input,
    safe_name,
)
from laika_host.store import open_store
from laika_host.store.store import Store
from laika_host.transform import TransformResult, get_type, run_transform
from laika_host.transform.export import (
    FORMULA_START,
    TABLE_TYPES,
    ExportInput,
    NotATableError,
    export,
    flat,
    neutralise,
    obsidian_tag,
    tables,
)
from test_transform_model import SPRING, provider_for

from llm_servers import ProviderServer, Reply, openai_sse
from support import run_laika

OTHER_TYPES = ("summary", "outline", "slide-deck", "report")
FEED_TIDES = "The harbour office prints a table of the week's high-water times every Monday."
QUESTIONS = ("Why are spring tides higher?", "When are the high-water times printed?")
TERMS = ("Spring tide", "Tide table")
HOSTILE = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[click](javascript:alert(1))",
        "<a href='javascript:alert(1)'>x</a>",
        '" onmouseover="alert(1)',
        '=HYPERLINK("http://evil")',
        "+1+2",
        "-2",
        "@SUM(A1)",
        "\tx",
        '"\n---\ntitle: pwned\n',
        "key: [value]\n- item",
        "\u2028\u2029\x85\x00\x1b[31m\ufeff",
        "<style>*{}</style><iframe src=//x>",
        "&lt;script&gt;",
        "[1]",
    ]
)
TEXT = st.one_of(
    HOSTILE, st.text(max_size=60), st.tuples(st.text(max_size=20), HOSTILE).map("".join)
)


def model_items(type_id: str, source_id: str) -> list[dict[str, Any]]:
    """Two items of `type_id` as a model writes them, each quoting the tides page (so they
    verify): the types the offline runtime does not make come from a loopback model."""
    quotes = [SPRING, FEED_TIDES]
    cite = [[{"source_id": source_id, "quote": quote}] for quote in quotes]
    made: dict[str, list[dict[str, Any]]] = {
        "faq": [{"question": q, "answer": a} for q, a in zip(QUESTIONS, quotes, strict=True)],
        "glossary": [{"term": t, "definition": d} for t, d in zip(TERMS, quotes, strict=True)],
        "flashcards": [{"front": q, "back": a} for q, a in zip(QUESTIONS, quotes, strict=True)],
        "comparison": [{"subject": t, "cells": {"Main point": d}} for t, d in zip(TERMS, quotes, strict=True)],
        "data-table": [{"cells": {"Figure": f, "Statement": d}} for f, d in zip(("2", "1"), quotes, strict=True)],
        "pros-cons": [{"side": side, "text": d} for side, d in zip(("pro", "con"), quotes, strict=True)],
        "action-items": [{"action": d, "owner": None, "due": "every Monday"} for d in quotes],
        "quiz": [
            {"question": q, "options": ["the moon", "the wind", "the sun"], "answer": "the moon",
             "explanation": d}
            for q, d in zip(QUESTIONS, quotes, strict=True)
        ],
    }  # fmt: skip
    return [{**item, "citations": cited} for item, cited in zip(made[type_id], cite, strict=True)]


def seed_artifacts(db: Path) -> dict[str, ExportInput]:
    async def main() -> dict[str, ExportInput]:
        async with open_store(db) as store:
            ids = {}
            for page in PAGES:
                saved = await store.sources.save_capture(
                    "Demo", capture_html(page.html.encode(), page.url)
                )
                ids[page.url.rsplit("/", 1)[-1]] = saved.source.id
            made = {}
            for type_id in (*sorted(TABLE_TYPES), *OTHER_TYPES):
                result = await _made(store, type_id, ids["harbour-tides"])
                assert result.status == "completed", (type_id, result.artifact.get("error"))
                made[type_id] = await export_input(store, result.artifact["id"])
            return made

    return asyncio.run(main())


async def _made(store: Store, type_id: str, tides: str) -> TransformResult:
    if not get_type(type_id).needs_model:
        return await run_transform(store, "Demo", type_id, None, provider=None)
    lines = "".join(json.dumps(item) + "\n" for item in model_items(type_id, tides))
    server = ProviderServer([Reply(chunks=openai_sse([lines]))], only="/chat/completions")
    try:
        return await run_transform(store, "Demo", type_id, None, provider=provider_for(server))
    finally:
        server.close()


@pytest.fixture(scope="module")
def store_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("exports") / "laika.db"


@pytest.fixture(scope="module")
def made(store_db: Path) -> dict[str, ExportInput]:
    return seed_artifacts(store_db)


def hostile_copy(source: ExportInput, draw: st.DrawFn) -> ExportInput:
    """The artifact with every string an item, a citation or a source holds drawn hostile."""

    def spoil(value: Any) -> Any:
        if isinstance(value, str):
            return draw(TEXT)
        if isinstance(value, list):
            return [spoil(v) for v in value]
        if isinstance(value, dict):
            return {k: spoil(v) for k, v in value.items()}
        return value

    items = []
    for item in source.artifact["items"]:
        citations = [
            {**c, "quote": draw(TEXT), "title": draw(TEXT), "locator": draw(LINKS)}
            for c in item["citations"]
        ]
        items.append({**item, "data": spoil(item["data"]), "citations": citations})
    artifact = {**source.artifact, "title": draw(TEXT), "items": items}
    sources = [{**s, "title": draw(TEXT), "url": draw(TEXT)} for s in source.sources]
    return replace(
        source,
        artifact=artifact,
        collection=draw(TEXT),
        tags=draw(st.lists(TEXT, max_size=3)),
        sources=sources,
    )


LINKS = st.one_of(
    st.sampled_from(
        ["javascript:alert(1)", "data:text/html,<script>", "https://ok.invalid/#:~:text=a", "//x"]
    ),
    st.text(max_size=30),
)


@st.composite
def hostile(draw: st.DrawFn, made: dict[str, ExportInput], types: tuple[str, ...]) -> ExportInput:
    return hostile_copy(made[draw(st.sampled_from(types))], draw)


ALL_TYPES = (*sorted(TABLE_TYPES), *OTHER_TYPES)


# --- formats ---------------------------------------------------------------------------------


def front_matter(text: str) -> dict[str, Any]:
    assert text.startswith("---\n")
    head, _, _ = text[4:].partition("\n---\n")
    loaded = yaml.safe_load(head)
    assert isinstance(loaded, dict)
    return loaded


def test_markdown_front_matter_parses_back_with_every_value(made: dict[str, ExportInput]) -> None:
    @given(hostile(made, ALL_TYPES))
    def check(source: ExportInput) -> None:
        loaded = front_matter(export(source, "md"))
        assert loaded["title"] == source.artifact["title"]
        assert loaded["collection"] == source.collection
        assert loaded["type"] == source.artifact["type"]
        assert loaded["created"] == source.artifact["completed_at"]
        assert loaded["sources"] == [
            {"title": s["title"] or s["source_id"], "url": s["url"] or ""} for s in source.sources
        ]
        kind = source.artifact["type"]
        tags = [obsidian_tag(t) for t in [*source.tags, "laika", f"laika/{kind}"]]
        assert loaded["tags"] == list(dict.fromkeys(t for t in tags if t))
        for tag in loaded["tags"]:
            assert re.fullmatch(r"[\w/-]+", tag)
            assert not tag.isdigit()
        assert f"laika/{source.artifact['type']}" in loaded["tags"]

    check()


def test_markdown_of_a_real_artifact_lists_its_sources(made: dict[str, ExportInput]) -> None:
    loaded = front_matter(export(made["timeline"], "md"))
    assert [s["url"] for s in loaded["sources"]] == [page.url for page in PAGES]
    assert export(made["timeline"], "md").endswith(made["timeline"].artifact["content_markdown"])


def expected_rows(source: ExportInput) -> list[list[list[str]]]:
    return [[t.header, *t.rows] for t in tables(source)]


def test_csv_reads_back_to_the_rows_with_no_formula_cell(made: dict[str, ExportInput]) -> None:
    @given(hostile(made, tuple(sorted(TABLE_TYPES))))
    def check(source: ExportInput) -> None:
        for number, rows in enumerate(expected_rows(source), start=1):
            read = list(csv.reader(io.StringIO(export(source, "csv", table=number), newline="")))
            assert read == rows
            for row in read:
                assert not any(cell.startswith(FORMULA_START) for cell in row)
        # every field of every item is in its row, under its column, as text
        items = source.artifact["items"]
        if source.artifact["type"] == "pros-cons":
            items = [i for side in ("pro", "con") for i in items if i["data"]["side"] == side]
        rows = [row for table in tables(source) for row in table.rows]
        headers = [table.header for table in tables(source) for _ in table.rows]
        for item, row, header in zip(items, rows, headers, strict=True):
            fields = {**item["data"], **(item["data"].get("cells") or {})}
            fields.pop("cells", None)
            for name, value in fields.items():
                assert row[header.index(neutralise(name))] == neutralise(flat(value))

    check()


def test_csv_rows_hold_the_items(made: dict[str, ExportInput]) -> None:
    source = made["glossary"]
    (table,) = tables(source)
    assert table.header[:2] == ["term", "definition"]
    assert [row[:2] for row in table.rows] == [
        [flat(i["data"]["term"]), flat(i["data"]["definition"])] for i in source.artifact["items"]
    ]
    pros_cons = tables(made["pros-cons"])
    assert [t.name for t in pros_cons] == ["pros", "cons"]
    with pytest.raises(NotATableError, match=r"no table 3: its tables are 1 \(pros\), 2 \(cons\)"):
        export(made["pros-cons"], "csv", table=3)
    with pytest.raises(NotATableError, match="no table"):
        export(made["summary"], "csv")


SAFE_TAGS = {"html", "head", "meta", "title", "style", "body", "section", "sup", "span", "br"}
SAFE_TAGS |= {"p", "strong", "em", "code", "pre", "blockquote", "hr", "ul", "ol", "li", "a"}
SAFE_TAGS |= {"h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td"}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def assert_inert(html: str) -> None:
    parser = Tags()
    parser.feed(html)
    parser.close()
    names = [tag for tag, _ in parser.tags]
    assert set(names) <= SAFE_TAGS, set(names) - SAFE_TAGS
    assert names.count("style") == 1
    assert names.count("meta") == 2
    for tag, attrs in parser.tags:
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert name not in ("src", "style", "srcdoc", "formaction", "action"), (tag, name)
            if name == "href":
                assert value is not None
                assert re.match(r"https?://|#fn-\d+$", value), value
    assert "Content-Security-Policy" in html
    assert "default-src 'none'" in html


def test_html_keeps_nothing_executable(made: dict[str, ExportInput]) -> None:
    @given(hostile(made, ALL_TYPES))
    def check(source: ExportInput) -> None:
        assert_inert(export(source, "html"))

    check()


def test_html_cites_with_text_fragment_footnotes(made: dict[str, ExportInput]) -> None:
    html = export(made["timeline"], "html")
    assert_inert(html)
    assert "<sup><a href='#fn-1'>[1]</a></sup>" in html
    assert re.search(
        r"<li id='fn-1' value='1'>.*?href=\"https://demo\.laika\.invalid/[^\"]*#:~:text=", html
    )


def test_json_and_text_keep_the_items(made: dict[str, ExportInput]) -> None:
    @given(hostile(made, ALL_TYPES))
    def check(source: ExportInput) -> None:
        document = json.loads(export(source, "json"))
        assert document["artifact"] == source.artifact
        assert document["sources"] == source.sources
        text = export(source, "txt")
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
        assert text.count("\n") >= len(source.artifact["items"])

    check()


# --- files -----------------------------------------------------------------------------------


@given(st.text(max_size=200))
def test_safe_names_are_plain_file_names(title: str) -> None:
    name = safe_name(title, "art_1")
    assert re.fullmatch(r"[\w.-]+", name)
    assert not name.startswith((".", "-"))
    assert len(name) <= 80
    assert name.split(".")[0].lower() not in {"con", "nul", "aux", "prn"}


def export_to(db: Path, artifact_id: str, fmt: str, output: Path, cwd: Path, **kw: Any) -> Any:
    async def main() -> list[Path]:
        async with open_store(db) as store:
            return await export_artifact(store, artifact_id, fmt, output, cwd=cwd, **kw)

    return asyncio.run(main())


def test_files_are_private_named_from_the_title_and_never_overwritten(
    made: dict[str, ExportInput], store_db: Path, tmp_path: Path
) -> None:
    artifact_id = made["timeline"].artifact["id"]
    (written,) = export_to(store_db, artifact_id, "md", Path("."), tmp_path)
    assert written == tmp_path / "Timeline-Demo.md"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert written.read_text(encoding="utf-8") == export(made["timeline"], "md")
    with pytest.raises(OutputExistsError, match="choose another file name") as exists:
        export_to(store_db, artifact_id, "md", Path("Timeline-Demo.md"), tmp_path)
    assert "--" not in str(exists.value)  # a model's tool call shows it in the panel
    assert exists.value.cli_hint == "or pass --force to replace it"  # `laika` shows it
    assert issubclass(OutputExistsError, ClashError)
    written.write_text("old")
    export_to(store_db, artifact_id, "md", Path("Timeline-Demo.md"), tmp_path, force=True)
    assert written.read_text(encoding="utf-8") == export(made["timeline"], "md")
    assert stat.S_IMODE(written.stat().st_mode) == 0o600


def test_csv_of_several_tables_writes_one_file_each(
    made: dict[str, ExportInput], store_db: Path, tmp_path: Path
) -> None:
    artifact_id = made["pros-cons"].artifact["id"]
    written = export_to(store_db, artifact_id, "csv", Path("pc.csv"), tmp_path)
    assert [p.name for p in written] == ["pc-pros.csv", "pc-cons.csv"]
    (one,) = export_to(store_db, artifact_id, "csv", Path("only.csv"), tmp_path, table=2)
    assert one.read_bytes().decode("utf-8") == export(made["pros-cons"], "csv", table=2)


def test_paths_that_leave_the_folder_or_follow_a_link_are_refused(
    made: dict[str, ExportInput], store_db: Path, tmp_path: Path
) -> None:
    artifact_id = made["summary"].artifact["id"]
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("keep")
    (work / "link.md").symlink_to(outside / "victim.txt")
    (work / "out").symlink_to(outside)
    for output in ("../x.md", "a/../../x.md", "out/x.md", "out", "out/"):
        with pytest.raises(UnsafeOutputError, match="outside the working directory"):
            export_to(store_db, artifact_id, "md", Path(output), work)
    for force in (False, True):
        with pytest.raises(UnsafeOutputError, match="symbolic link"):
            export_to(store_db, artifact_id, "md", Path("link.md"), work, force=force)
    assert (outside / "victim.txt").read_text() == "keep"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert issubclass(UnsafeOutputError, RefusedError)
    (written,) = export_to(store_db, artifact_id, "html", outside / "x.html", work)
    assert written.is_file()  # an absolute path is the user's explicit choice


# --- the CLI ---------------------------------------------------------------------------------


def test_cli_lists_shows_exports_and_deletes(store_db: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    seed_artifacts(home / "laika.db")
    env = {**os.environ, "LAIKA_HOME": str(home)}
    listed = run_laika("artifacts", "list", "--json", env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    artifacts = json.loads(listed.stdout)["artifacts"]
    timeline = next(a for a in artifacts if a["type"] == "timeline")
    shown = run_laika("artifacts", "show", timeline["id"], env=env, cwd=tmp_path)
    assert shown.returncode == 0
    assert "# Timeline: Demo" in shown.stdout
    exported = run_laika(
        "artifacts",
        "export",
        timeline["id"],
        "--format",
        "csv",
        "-o",
        "t.csv",
        env=env,
        cwd=tmp_path,
    )
    assert exported.returncode == 0, exported.stderr
    assert next(iter(csv.reader((tmp_path / "t.csv").open(newline=""))))[:2] == ["date", "event"]
    again = run_laika(
        "artifacts",
        "export",
        timeline["id"],
        "--format",
        "csv",
        "-o",
        "t.csv",
        env=env,
        cwd=tmp_path,
    )
    assert again.returncode != 0
    assert "--force" in again.stderr
    escape = run_laika(
        "artifacts",
        "export",
        timeline["id"],
        "--format",
        "md",
        "-o",
        "../x.md",
        env=env,
        cwd=tmp_path,
    )
    assert escape.returncode != 0
    assert "outside the working directory" in escape.stderr
    assert not (tmp_path.parent / "x.md").exists()
    deleted = run_laika("artifacts", "delete", timeline["id"], env=env, cwd=tmp_path)
    assert deleted.returncode == 0, deleted.stderr
    gone = run_laika("artifacts", "show", timeline["id"], env=env, cwd=tmp_path)
    assert gone.returncode != 0


def test_every_format_scales_linearly_with_the_items(made: dict[str, ExportInput]) -> None:
    """Four times the items take well under sixteen times as long (quadratic would)."""
    base = made["timeline"]

    def prepare(copies: int) -> Callable[[], object]:
        items = base.artifact["items"] * copies
        source = replace(base, artifact={**base.artifact, "items": items})
        return lambda: [export(source, fmt) for fmt in ("md", "txt", "json", "csv", "html")]

    assert_linear(prepare, 50, 200, bound=10)


def test_an_export_over_the_database_is_refused_even_with_force(
    made: dict[str, ExportInput], store_db: Path
) -> None:
    artifact_id = made["summary"].artifact["id"]
    before = store_db.read_bytes()
    for name in (store_db.name, store_db.name + "-wal", store_db.name + "-shm"):
        with pytest.raises(UnsafeOutputError, match="Laika's database file"):
            export_to(
                store_db, artifact_id, "md", store_db.with_name(name), store_db.parent, force=True
            )
    assert store_db.read_bytes() == before
