"""The side panel's Transforms view in real headless Chromium, through the background's relay to
the real installed host: the gallery's forms from the real catalog, an offline run with its
items streaming in, the artifact viewer with verified chips that open the live page at the
quote, a CSV download that parses back, Copy, a slow run cancelled, stale -> Re-run, Delete.
One browser serves the module's tests, in order (2-core machines)."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from laika_host.demo.pages import PAGES
from laika_host.llm.config import ProviderConfig, save_providers
from panel_browser import Page, PanelBrowser, connected_panel, shoot

from html_server import serve
from llm_servers import ProviderServer, Reply, openai_sse

pytestmark = pytest.mark.browser  # every test here starts Chromium

COLLECTION = "Lab"
PATHS = {"/" + page.url.rsplit("/", 1)[-1]: page for page in PAGES}
CHANGED = PATHS["/harbour-tides"].html.replace("every Monday", "every Monday and Thursday")


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The demo pages, served on loopback: the live pages a chip opens."""
    with serve(lambda path: PATHS[path].html if path in PATHS else None) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PanelBrowser]:
    started = PanelBrowser(tmp_path_factory.mktemp("transforms"))
    yield started
    started.close()


@pytest.fixture(scope="module")
def panel(browser: PanelBrowser, site: str) -> Page:
    page = connected_panel(browser)
    for path, demo in PATHS.items():  # stored through the relay, with their loopback URLs
        saved = page.eval(
            "laikaPanel.request('sources.save_page', "
            f"{json.dumps({'url': site + path, 'html': demo.html, 'collection': COLLECTION})})"
            ".then(r => r.source.id)"
        )
        assert saved
    page.eval("laikaPanel.emit('sources-changed'), true")
    page.wait(
        f"[...document.querySelectorAll('#collection option')].some(o => o.value === '{COLLECTION}')",
        what="the new collection in the switcher",
    )
    page.eval(
        f"(() => {{ const s = document.querySelector('#collection'); s.value = '{COLLECTION}';"
        " s.dispatchEvent(new Event('change')); return true; })()"
    )
    page.click("#tab-transforms")
    page.wait(
        "document.querySelectorAll('#transform-types .type-card').length > 20", what="the gallery"
    )
    return page


def request(panel: Page, kind: str, payload: dict[str, Any]) -> Any:
    return panel.eval(f"laikaPanel.request({json.dumps(kind)}, {json.dumps(payload)})")


def choose(panel: Page, type_id: str) -> None:
    panel.click(f"#transform-types .type-card[data-type='{type_id}']")
    panel.wait(
        f"!document.querySelector('#transform-form').hidden && document.querySelector"
        f"('.type-card[data-type=\"{type_id}\"]').getAttribute('aria-pressed') === 'true'",
        what=f"the {type_id} form",
    )


def select(panel: Page, selector: str, label: str) -> None:
    """Pick the option whose text is `label`, as a user would."""
    done = panel.eval(
        f"(() => {{ const s = document.querySelector({json.dumps(selector)});"
        f" const o = [...s.options].find(o => o.textContent === {json.dumps(label)}); if (!o) return false;"
        " s.value = o.value; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()"
    )
    assert done, f"no option {label!r} in {selector}"


def watch_items(panel: Page) -> None:
    """Record how many items the run box showed at each change, and its states."""
    panel.eval(
        """(() => { window.__runSeen = []; window.__observer?.disconnect();
        const box = document.querySelector('#transform-run-box');
        window.__observer = new MutationObserver(() => window.__runSeen.push(
          [box.dataset.state, box.querySelectorAll('.run-item').length]));
        window.__observer.observe(box, {subtree: true, childList: true, attributes: true});
        return true; })()"""
    )


def run_and_open(panel: Page) -> dict[str, Any]:
    """Click Run; wait for the viewer; return what the user saw."""
    watch_items(panel)
    panel.click("#transform-run")
    panel.wait(
        "!document.querySelector('#artifact-viewer').hidden || "
        "['error', 'cancelled'].includes(document.querySelector('#transform-run-box').dataset.state)",
        seconds=90,
        what="the artifact viewer",
    )
    return dict(
        panel.eval(
            """({seen: window.__runSeen, state: document.querySelector('#transform-run-box').dataset.state,
            progress: document.querySelector('#transform-progress').textContent,
            title: document.querySelector('#artifact-title').textContent,
            body: document.querySelector('#artifact-body').textContent,
            chips: [...document.querySelectorAll('#artifact-chips .chip')].map(c => c.dataset.state),
            id: [...document.querySelectorAll('#artifact-list .artifact')].map(a => a.dataset.id)})"""
        )
    )


def current_id(panel: Page, title: str) -> str:
    """The id of the artifact the viewer shows (from the list, by its title)."""
    panel.wait(
        f"[...document.querySelectorAll('#artifact-list .artifact-open')].some(b => b.textContent === {json.dumps(title)})",
        what="the artifact in the list",
    )
    return str(
        panel.eval(
            f"[...document.querySelectorAll('#artifact-list .artifact')].find(a => a.querySelector('.artifact-open')"
            f".textContent === {json.dumps(title)}).dataset.id"
        )
    )


def test_the_gallery_builds_a_valid_form_for_every_type_of_the_real_catalog(panel: Page) -> None:
    types = request(panel, "transform.list_types", {})["types"]
    cards = panel.eval(
        "[...document.querySelectorAll('#transform-types .type-card')].map(c => [c.dataset.type, c.disabled])"
    )
    assert [card[0] for card in cards] == [t["id"] for t in types]
    assert [card[1] for card in cards] == [not t["ready"] for t in types]  # knowledge-notes: coming
    for kind in (t for t in types if t["ready"]):
        choose(panel, kind["id"])
        names = panel.eval(
            "[...document.querySelectorAll('#transform-fields [name]')].map(e => e.name)"
        )
        assert names == list(kind["config_schema"].get("properties", {})), kind["id"]
        assert panel.eval("document.querySelectorAll('#transform-fields p.field').length") == 0
        for name, spec in kind["config_schema"].get("properties", {}).items():
            label = panel.eval(
                f"document.querySelector('label[for=cfg-{name}]')?.textContent ?? ''"
            )
            assert label.startswith(spec.get("title", name)), (kind["id"], name, label)
    # a type the offline runtime does not make says so on its card and in its form, and
    # its offline choice is greyed out; the others keep it
    for kind in types:
        needs = panel.eval(
            f"document.querySelector('.type-card[data-type=\"{kind['id']}\"] .type-needs')"
            "?.textContent ?? ''"
        )
        assert (needs == "Needs a model") == bool(kind["needs_model"]), kind["id"]
    offline_greyed = "document.querySelector('#transform-provider option[value=offline]').disabled"
    notice = "document.querySelector('#transform-needs-model')"
    choose(panel, "faq")
    assert panel.eval(f"!{notice}.hidden")
    assert panel.eval(offline_greyed)
    assert panel.eval(f"{notice}.textContent").startswith(
        "Needs a model: a question a reader would ask has to be written"
    )
    shoot(panel, "transforms-needs-model")
    choose(panel, "summary")
    assert panel.eval(f"{notice}.hidden")
    assert not panel.eval(offline_greyed)
    # a value out of range is refused in the form, naming the field and its bound; nothing is sent
    choose(panel, "faq")
    panel.type("#cfg-count", "0")
    before = request(panel, "artifacts.list", {"collection": COLLECTION})["artifacts"]
    panel.click("#transform-run")
    error = panel.eval("document.querySelector('#cfg-count-error').textContent")
    assert error == "Count: at least 1."
    assert panel.eval("document.activeElement.id") == "cfg-count"
    assert panel.eval("document.querySelector('#cfg-count').getAttribute('aria-invalid')") == "true"
    assert request(panel, "artifacts.list", {"collection": COLLECTION})["artifacts"] == before
    choose(panel, "key-takeaways")
    shoot(panel, "transforms-gallery")
    assert panel.problems() == []


def test_an_offline_key_takeaways_run_streams_items_and_opens_the_viewer_with_verified_chips(
    panel: Page,
) -> None:
    choose(panel, "key-takeaways")
    select(panel, "#cfg-length", "short")
    panel.type("#cfg-audience", "a harbour pilot")
    select(panel, "#transform-provider", "Offline runtime (no model)")
    seen = run_and_open(panel)
    assert seen["state"] == "done", seen
    counts = [count for state, count in seen["seen"] if state == "running"]
    assert max(counts, default=0) > 0, f"no item appeared while running: {seen['seen']}"
    assert seen["chips"], seen
    assert set(seen["chips"]) == {"verified"}, seen["chips"]
    assert "tides" in seen["body"].lower() or "moon" in seen["body"].lower(), seen["body"]
    artifact_id = current_id(panel, seen["title"])
    stored = request(panel, "artifacts.get", {"artifact_id": artifact_id})
    assert stored["type"] == "key-takeaways"
    assert stored["config"]["length"] == "short"
    assert stored["config"]["audience"] == "a harbour pilot"
    assert stored["provider"] == "offline"
    assert len(stored["citations"]) == len(seen["chips"])
    markers = panel.eval("document.querySelectorAll('#artifact-body a.citation').length")
    assert markers > 0
    assert panel.eval(
        "document.querySelector('#artifact-body script, #artifact-body [onclick]') === null"
    )
    panel.eval("document.querySelector('#artifact-title').scrollIntoView(), true")
    shoot(panel, "transforms-viewer")
    # takeaways have no table: CSV is not offered, the formats that fit are
    offered = panel.eval(
        "[...document.querySelectorAll('#export-format option')].map(o => o.value)"
    )
    assert "csv" not in offered, offered
    assert {"md", "html", "json"} <= set(offered), offered
    assert panel.problems() == []


def test_a_verified_chip_of_an_artifact_opens_the_live_page_at_the_quote(
    browser: PanelBrowser, panel: Page
) -> None:
    before = set(browser.tab_urls())
    panel.click("#artifact-chips .chip[data-state=verified]")
    deadline = time.monotonic() + 20
    opened: list[str] = []
    while time.monotonic() < deadline and not opened:
        opened = [url for url in browser.tab_urls() if "#:~:text=" in url and url not in before]
        time.sleep(0.2)
    assert opened, f"no tab at a text fragment: {browser.tab_urls()}"
    assert opened[0].startswith("http://127.0.0.1:")
    # the marker in the text opens it too (the same citation: its tab is reused)
    panel.click("#artifact-body a.citation")
    time.sleep(1)
    assert sum("#:~:text=" in url for url in browser.tab_urls()) == len(opened)


def test_a_timeline_csv_download_parses_back_to_its_rows(
    browser: PanelBrowser, panel: Page, tmp_path: Path
) -> None:
    browser.devtools.call(
        "Browser.setDownloadBehavior", behavior="allow", downloadPath=str(tmp_path)
    )
    panel.click("#artifact-back")
    choose(panel, "timeline")
    select(panel, "#transform-provider", "Offline runtime (no model)")
    seen = run_and_open(panel)
    assert seen["state"] == "done", seen
    artifact_id = current_id(panel, seen["title"])
    items = request(panel, "artifacts.get", {"artifact_id": artifact_id})["items"]
    select(panel, "#export-format", "CSV table (.csv)")
    panel.click("#export-download")
    deadline = time.monotonic() + 20
    files: list[Path] = []
    while time.monotonic() < deadline and not files:
        files = [p for p in tmp_path.glob("*.csv") if p.stat().st_size > 0]
        time.sleep(0.2)
    assert files, f"no CSV downloaded into {tmp_path}: {list(tmp_path.iterdir())}"
    rows = list(csv.DictReader(io.StringIO(files[0].read_text(encoding="utf-8"))))
    assert len(rows) == len(items)
    assert [row["event"] for row in rows] == [item["data"]["event"] for item in items]
    assert files[0].name.endswith(".csv")
    assert panel.problems() == []


def test_copy_puts_the_markdown_export_on_the_clipboard(browser: PanelBrowser, panel: Page) -> None:
    origin = panel.eval("location.origin")
    browser.devtools.call(
        "Browser.grantPermissions",
        origin=origin,
        permissions=["clipboardReadWrite", "clipboardSanitizedWrite"],
    )
    artifact_id = current_id(
        panel, panel.eval("document.querySelector('#artifact-title').textContent")
    )
    expected = request(panel, "artifacts.export", {"artifact_id": artifact_id, "format": "md"})
    panel.call("Page.bringToFront")
    panel.click("#copy-md")
    panel.wait(
        "document.querySelector('#toast').textContent.startsWith('Copied')", what="the copy toast"
    )
    copied = panel.eval("navigator.clipboard.readText()")
    assert copied == expected["content"]
    assert copied.startswith("---\n")  # the YAML front matter
    panel.click("#copy-txt")
    panel.wait(
        "document.querySelector('#toast').textContent === 'Copied as plain text.'",
        what="the text copy",
    )
    text = request(panel, "artifacts.export", {"artifact_id": artifact_id, "format": "txt"})[
        "content"
    ]
    assert panel.eval("navigator.clipboard.readText()") == text


def faq_line(source_id: str, number: int) -> str:
    quote = "Spring tides run higher than neap tides because the moon and the sun pull together at new and full moon."
    item = {
        "question": f"Q{number}: why are spring tides higher?",
        "answer": "The sun and moon pull together.",
        "citations": [{"source_id": f"src:{source_id}", "quote": quote}],
    }
    return json.dumps(item) + "\n"


def test_a_slow_run_shows_its_progress_and_cancel_keeps_the_items(
    browser: PanelBrowser, panel: Page
) -> None:
    source_id = next(
        s["id"]
        for s in request(panel, "sources.list", {"collection": COLLECTION})["sources"]
        if s["title"] == "Harbour tides"
    )
    lines = [faq_line(source_id, n) for n in range(40)]
    server = ProviderServer([Reply(chunks=openai_sse(lines), delay_between=0.4)])
    try:
        save_providers(
            [
                ProviderConfig(
                    id="slow",
                    kind="openai_compatible",
                    model="m",
                    base_url=server.url,
                    context_window=16_000,
                )
            ],
            browser.home / "providers.json",
        )
        panel.click("#artifact-back")
        choose(panel, "faq")
        panel.wait(
            "[...document.querySelectorAll('#transform-provider option')].some(o => o.value === 'slow')",
            what="the new provider among the choices",
        )
        select(panel, "#transform-provider", "slow (m)")
        watch_items(panel)
        panel.click("#transform-run")
        panel.wait(
            "document.querySelectorAll('#transform-items .run-item').length >= 3",
            seconds=60,
            what="three items",
        )
        assert not panel.eval("document.querySelector('#transform-cancel').disabled")
        assert panel.eval("document.querySelector('#transform-run').disabled")
        assert "so far" in panel.eval("document.querySelector('#transform-progress').textContent")
        panel.wait(
            "document.querySelector('#artifact-list .artifact[data-status=running]')",
            what="the artifact listed as running",
        )
        panel.eval("document.querySelector('#transform-run-box').scrollIntoView(), true")
        shoot(panel, "transforms-running")
        panel.click("#transform-cancel")
        panel.wait(
            "document.querySelector('#transform-run-box').dataset.state === 'cancelled'",
            what="the run marked cancelled",
        )
        shown = panel.eval("document.querySelectorAll('#transform-items .run-item').length")
        panel.wait(
            "document.querySelector('#artifact-list .artifact[data-status=cancelled]')",
            what="the cancelled artifact in the list",
        )
        cancelled = panel.eval(
            "document.querySelector('#artifact-list .artifact[data-status=cancelled]').dataset.id"
        )
        stored = request(panel, "artifacts.get", {"artifact_id": cancelled})
        assert stored["status"] == "cancelled"
        assert 3 <= len(stored["items"]) < len(lines)
        assert len(stored["items"]) >= shown - 1  # what was shown was kept (one may be in flight)
        assert not panel.eval("document.querySelector('#transform-run').disabled")
    finally:
        server.close()
    browser.wait_for_log("host.cancel", 20)


def test_a_changed_source_marks_the_artifact_stale_and_re_run_makes_a_current_one(
    panel: Page, site: str
) -> None:
    title = "Timeline: " + COLLECTION
    old = current_id(panel, title)
    assert PATHS["/harbour-tides"].html != CHANGED
    saved = request(
        panel,
        "sources.save_page",
        {"url": site + "/harbour-tides", "html": CHANGED, "collection": COLLECTION},
    )
    assert saved.get("outcome") != "kept", saved
    panel.click("#artifacts-reload")
    panel.wait(
        f"document.querySelector('#artifact-list .artifact[data-id={old}] .pill.warn')",
        what="the stale pill",
    )
    panel.click(f"#artifact-list .artifact[data-id={old}] .artifact-open")
    panel.wait("!document.querySelector('#artifact-stale').hidden", what="the stale notice")
    assert "changed" in panel.eval("document.querySelector('#artifact-stale').textContent")
    watch_items(panel)
    panel.click("#artifact-rerun")
    panel.wait(
        "!document.querySelector('#artifact-viewer').hidden && document.querySelector('#artifact-stale').hidden",
        seconds=60,
        what="the re-run artifact",
    )
    fresh = request(panel, "artifacts.list", {"collection": COLLECTION})["artifacts"]
    current = [a for a in fresh if a["type"] == "timeline" and not a["stale"]]
    assert current
    assert current[0]["id"] != old
    assert panel.problems() == []


def test_delete_removes_the_artifact_after_a_confirm(panel: Page) -> None:
    title = panel.eval("document.querySelector('#artifact-title').textContent")
    artifact_id = current_id(panel, title)
    panel.click("#artifact-delete")
    panel.wait("document.querySelector('#dialog').open", what="the confirm dialog")
    assert "Delete" in panel.eval("document.querySelector('#dialog-title').textContent")
    panel.click("#dialog-ok")
    panel.wait("!document.querySelector('#transforms-home').hidden", what="the list again")
    panel.wait(
        f"!document.querySelector('#artifact-list .artifact[data-id={artifact_id}]')",
        what="the artifact gone from the list",
    )
    ids = [
        a["id"] for a in request(panel, "artifacts.list", {"collection": COLLECTION})["artifacts"]
    ]
    assert artifact_id not in ids
    assert panel.problems() == []


def test_the_hosts_refusal_is_shown_plainly_and_nothing_is_left_running(panel: Page) -> None:
    request(panel, "collections.create", {"title": "Empty"})
    panel.eval("laikaPanel.emit('sources-changed'), true")
    panel.wait(
        "[...document.querySelectorAll('#collection option')].some(o => o.value === 'Empty')",
        what="the empty collection in the switcher",
    )
    panel.eval(
        "(() => { const s = document.querySelector('#collection'); s.value = 'Empty';"
        " s.dispatchEvent(new Event('change')); return true; })()"
    )
    panel.wait(
        "document.querySelector('#artifacts-title').textContent === 'Artifacts in Empty'",
        what="the empty collection's artifacts",
    )
    choose(panel, "summary")
    panel.click("#transform-run")
    panel.wait(
        "document.querySelector('#transform-run-box').dataset.state === 'error'",
        what="the refusal",
    )
    said = panel.eval("document.querySelector('#transform-progress').textContent")
    assert "has no captured sources" in said
    assert "save pages to it first" in said  # the host's fix, word for word
    assert not panel.eval("document.querySelector('#transform-run').disabled")
    assert panel.eval("document.querySelector('#transform-cancel').disabled")
    assert request(panel, "artifacts.list", {"collection": "Empty"})["artifacts"] == []
    assert panel.problems() == []
