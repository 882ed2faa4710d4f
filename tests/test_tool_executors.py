"""The LLMCP executors of the app-level tools on a real store: they run what the CLI and the
native messages run, save a model's Markdown redacted and render it inert, and write a file
only inside the export folder they are given."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from html_checks import Tags, assert_chips_verify, assert_inert
from laika_host.capture import capture_html
from laika_host.demo.pages import PAGES
from laika_host.errors import RefusedError
from laika_host.protocol.tools import TOOL_ARGUMENTS
from laika_host.service import transforms
from laika_host.service.artifacts import OutputExistsError, UnsafeOutputError, export_content
from laika_host.service.models import ProviderChoice
from laika_host.store import Store, open_store
from laika_host.tools import executors

T = TypeVar("T")
GITHUB_KEY = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
OFFLINE = ProviderChoice("offline")


def on_store(db: Path, work: Callable[[Store], Awaitable[T]]) -> T:
    async def main() -> T:
        async with open_store(db) as store:
            return await work(store)

    return asyncio.run(main())


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store with the demo pages in `Demo` and a timeline made of them."""
    db = tmp_path_factory.mktemp("tools") / "laika.db"

    async def seed(store: Store) -> str:
        for page in PAGES:
            await store.sources.save_capture("Demo", capture_html(page.html.encode(), page.url))
        arguments = TOOL_ARGUMENTS["transform.run"].model_validate(
            {"collectionId": "Demo", "type": "timeline"}
        )
        result = await executors.transform_run(arguments, store, provider=OFFLINE)  # type: ignore[arg-type]
        assert result["status"] == "completed"
        assert result["artifact"]["content_markdown"]
        return str(result["artifact"]["id"])

    return db, on_store(db, seed)


def call(db: Path, tool: str, arguments: dict[str, Any], **options: Any) -> dict[str, Any]:
    """Validate `arguments` as the tool catalog does, then run the tool's executor."""
    validated = TOOL_ARGUMENTS[tool].model_validate(arguments)
    executor = getattr(executors, tool.replace(".", "_"))
    return on_store(db, lambda store: executor(validated, store, **options))  # type: ignore[no-any-return]


def test_list_types_is_the_service_list(demo: tuple[Path, str]) -> None:
    db, _ = demo
    assert call(db, "transform.list_types", {}) == {"types": transforms.list_types()}


def test_run_again_reuses_the_current_artifact(demo: tuple[Path, str]) -> None:
    db, artifact_id = demo
    again = call(
        db, "transform.run", {"collectionId": "Demo", "type": "timeline"}, provider=OFFLINE
    )
    assert again["reused"] is True
    assert again["artifact"]["id"] == artifact_id


def test_open_gives_inert_html_with_verifying_citations(demo: tuple[Path, str]) -> None:
    db, artifact_id = demo
    opened = call(db, "artifact.open", {"artifactId": artifact_id, "newTab": True})
    assert opened["id"] == artifact_id
    assert (opened["target"], opened["new_tab"]) == ("workspace", True)
    assert_inert(opened["html"])
    assert_chips_verify(opened)


def test_share_to_the_clipboard_returns_the_export(demo: tuple[Path, str]) -> None:
    db, artifact_id = demo
    shared = call(db, "artifact.share", {"artifactId": artifact_id, "format": "markdown"})
    assert shared["target"] == "clipboard"
    assert shared["mime"] == "text/markdown"
    assert yaml.safe_load(shared["content"].split("---\n", 2)[1])["type"] == "timeline"
    for refused in ({"format": "pdf"}, {"format": "text", "target": "share_sheet"}):
        with pytest.raises(RefusedError):
            call(db, "artifact.share", {"artifactId": artifact_id, **refused})


def test_share_to_a_file_writes_only_inside_the_folder(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    db, artifact_id = demo
    folder = tmp_path / "exports"
    folder.mkdir()
    args = {"artifactId": artifact_id, "format": "csv", "target": "file"}
    written = call(db, "artifact.share", {**args, "filename": "t.csv"}, folder=folder)
    path = folder / "t.csv"
    assert written == {"target": "file", "paths": [str(path)]}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    clip = call(db, "artifact.share", {**args, "target": "clipboard"})
    assert path.read_bytes().decode("utf-8") == clip["content"]
    with pytest.raises(OutputExistsError):
        call(db, "artifact.share", {**args, "filename": "t.csv"}, folder=folder)
    with pytest.raises(UnsafeOutputError):
        call(db, "artifact.share", {**args, "filename": "../x.csv"}, folder=folder)
    with pytest.raises(RefusedError, match="not a path"):
        call(db, "artifact.share", {**args, "filename": str(tmp_path / "y.csv")}, folder=folder)
    with pytest.raises(RefusedError, match="no export folder"):
        call(db, "artifact.share", {**args, "filename": "z.csv"})
    assert sorted(p.name for p in tmp_path.rglob("*.csv")) == ["t.csv"]
    unnamed = call(db, "artifact.share", args)  # a file the UI saves: content only
    assert unnamed["filename"].endswith(".csv")
    assert unnamed["content"] == clip["content"]


def test_save_keeps_the_model_markdown_redacted_and_exports_it(demo: tuple[Path, str]) -> None:
    db, _ = demo
    markdown = f"# Plan\n\nUse key {GITHUB_KEY} <script>alert(1)</script> [x](javascript:y)\n"
    saved = call(
        db,
        "artifact.save",
        {"title": "Plan", "markdown": markdown, "tags": ["t"], "redaction": "none"},
        collection="Demo",
    )
    assert (saved["type"], saved["status"]) == ("note", "completed")
    assert "redaction none is not honoured" in saved["warnings"][0]
    opened = call(db, "artifact.open", {"artifactId": saved["artifact_id"]})
    assert_inert(opened["html"])
    assert "Plan" in opened["html"]
    assert GITHUB_KEY not in opened["html"]
    for fmt in ("markdown", "text", "json"):
        shared = call(db, "artifact.share", {"artifactId": saved["artifact_id"], "format": fmt})
        assert "Use key" in shared["content"]
        assert GITHUB_KEY not in shared["content"]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.sampled_from(
                [
                    "<script>x()</script>",
                    "<img src=x onerror=alert(1)>",
                    "[a](javascript:alert(1))",
                    "<a href='x' onclick='y'>z</a>",
                    "[1]",
                    "\\[2]",
                    "```\n<b onmouseover=x>\n```",
                    "<iframe src=//e>",
                    "\n\n",
                ]
            ),
        ),
        max_size=12,
    ).map("".join)
)
def test_any_saved_markdown_opens_as_inert_html(tmp_path_factory: Any, markdown: str) -> None:
    db = tmp_path_factory.mktemp("save") / "laika.db"
    saved = call(db, "artifact.save", {"title": "N", "markdown": markdown})
    opened = call(db, "artifact.open", {"artifactId": saved["artifact_id"]})
    assert_inert(opened["html"])
    assert Tags(opened["html"]).links == []  # a note cites nothing the host checked
    html_export = on_store(db, lambda store: export_content(store, saved["artifact_id"], "html"))
    assert_inert(html_export.content.split("</style>", 1)[1])
