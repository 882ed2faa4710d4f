"""Standalone HTML exports, with public XSS vectors in every field, opened in real Chromium.

An exported artifact is a file a user double-clicks, so its HTML is checked where it runs. The
artifacts are real (the demo pages, offline transforms); every string a model or a page could
have put into them (item fields, citation quotes, titles and links, source titles and URLs, the
collection, the tags) is replaced by a vector of the shared XSS corpus, each vector placed in
every kind of artifact (tables, quiz, timeline, prose). Each export is loaded from file:// in
the harness of test_render_xss_browser (alert/confirm/prompt/print hooked before the page
runs, every script Chromium compiles recorded, every element hovered, focused and clicked)
and the live DOM, as Chromium parsed it, must still pass the same inertness check as the
exported text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from laika_host.transform.export import ExportInput, export
from test_artifacts_export import ALL_TYPES, assert_inert, seed_artifacts
from test_render_xss_browser import Browser, browser  # noqa: F401  (the fixture)

from support import xss_corpus

pytestmark = [pytest.mark.browser, pytest.mark.corpus]


def spoiled(source: ExportInput, vectors: list[str]) -> tuple[ExportInput, int]:
    """The artifact with its strings replaced by `vectors`, in turn (so each vector lands in
    a different field), the citation links included; and how many strings were replaced."""
    used = 0

    def next_vector() -> str:
        nonlocal used
        used += 1
        return vectors[(used - 1) % len(vectors)]

    def spoil(value: Any) -> Any:
        if isinstance(value, str):
            return next_vector()
        if isinstance(value, list):
            return [spoil(v) for v in value]
        if isinstance(value, dict):
            return {k: spoil(v) for k, v in value.items()}
        return value

    items = [
        {
            **item,
            "data": spoil(item["data"]),
            "citations": [
                {**c, "quote": next_vector(), "title": next_vector(), "locator": next_vector()}
                for c in item["citations"]
            ],
        }
        for item in source.artifact["items"]
    ]
    made = ExportInput(
        artifact={**source.artifact, "title": next_vector(), "items": items},
        collection=next_vector(),
        tags=[next_vector(), next_vector()],
        sources=[{**s, "title": next_vector(), "url": next_vector()} for s in source.sources],
    )
    return made, used


def test_exports_full_of_xss_vectors_run_nothing_in_chromium(
    browser: Browser,  # noqa: F811
    tmp_path: Path,
) -> None:
    vectors = [vector for _, vector in xss_corpus()]
    made = seed_artifacts(tmp_path / "laika.db")
    pages: list[Path] = []
    for type_id in ALL_TYPES:  # every vector in every kind of artifact
        start = 0
        while start < len(vectors):
            source, used = spoiled(made[type_id], vectors[start:] + vectors[:start])
            html = export(source, "html")
            assert_inert(html)
            page = tmp_path / f"{type_id}-{start}.html"
            page.write_text(html, encoding="utf-8")
            pages.append(page)
            start += used

    # The detector works on an export's shape: the same file with a raw handler (and without
    # its Content-Security-Policy, which would block the handler by itself) is caught.
    raw = export(made["timeline"], "html").replace("<body>", '<body><img src=x onerror="alert(1)">')
    control = tmp_path / "control.html"
    control.write_text(re.sub(r"<meta http-equiv='Content-Security-Policy'[^>]*>", "", raw))
    caught = browser.inspect(control)
    assert caught.hits >= 1, caught
    assert caught.scripts, caught
    with pytest.raises(AssertionError):
        assert_inert(browser.outer_html())

    executed, fetched, away = [], [], []
    for page in pages:
        report = browser.inspect(page)
        if report.executions:
            executed.append((page.name, report.scripts, report.hits))
        if report.requests:
            fetched.append((page.name, report.requests))
        if report.final_url != report.url:
            away.append((page.name, report.final_url))
        assert report.interacted > 0, page.name
        live = browser.outer_html()
        assert_inert(live)  # what Chromium built from the file, not only the file's text
    assert executed == [], executed
    assert fetched == [], fetched  # default-src 'none' and no src attribute: nothing loads
    assert away == [], away
    print(f"{len(vectors)} vectors in {len(pages)} exported pages: 0 executions, 0 requests")
