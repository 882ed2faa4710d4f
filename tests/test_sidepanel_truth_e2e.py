"""The panel says what is true (issue #25), pressed in real Chromium with the real extension and
the real host, on a store that starts empty as a new user's does:

- no phantom collection: an empty store lists none and says what Save page will create;
- Save page goes to the configured default collection (`capture.default_collection`), not the
  one the switcher shows, and says where it went; a collection picked in "Save to" is for that
  save only;
- each citation chip shows its own source's title, shortened at a word boundary, the whole
  title in its tooltip, and no note that does not apply (no "sent in part" note under an
  answer no model wrote);
- the Export menu offers only what the host can make of the artifact (no CSV for a brief,
  CSV for a table type that has rows).

Screenshots at 360 and 800 px go to `$LAIKA_SHOTS_DIR` (default: the test's tmp dir) as
`panel-NAME-WIDTH.png`: `empty` (a new store), `saved` (after a save to the default while
another collection is shown), `answer` (an answer citing three sources). One browser serves
the module's tests, in order (2-core machines): each test builds on the one before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from panel_browser import Page, PanelBrowser, connected_panel, open_transform_form
from realpages import shots_folder

from html_server import serve
from support import run_laika

pytestmark = pytest.mark.browser

SITE = "Hafenblatt – Nachrichten aus der Hansestadt am Meer"
PAGES = {
    "/tides": (
        "Harbour tides explained for sailors",
        "Tides",
        "High water at the harbour comes twice a day because the moon pulls the oceans.",
    ),
    "/locks": (
        "The new sea lock opens in spring",
        "Locks",
        "The new sea lock lets ships pass at any tide since the harbour deepened its channel.",
    ),
    "/ferry": (
        "Night ferry returns to the islands",
        "Ferry",
        "The night ferry to the islands returns in May after the harbour rebuilt its pier.",
    ),
}


def article(path: str) -> str:
    headline, section, sentence = PAGES[path]
    return f"""<!doctype html><html lang="en"><head><title>{SITE}: {headline}</title></head>
<body><header><nav><a href="/">Home</a></nav></header>
<div class="modal fade" id="newsletterModal" role="dialog"><div class="modal-body">Subscribe to our
newsletter for the harbour's news every morning.</div></div>
<a class="popup-link" href="/login">Log in</a>
<article><h1>{headline}</h1><p class="kicker">{section}</p>
<p>{sentence}</p>
<p>Readers asked how the harbour works; this page explains it in plain words for everyone who
lives by the water and watches the ships come and go every day of the year.</p>
<div class="gallery"><figure class="tile"><img src="/a.jpg" alt=""><div class="tile-overlay">
Photo of the harbour at dusk</div></figure></div>
</article></body></html>"""


def page_for(path: str) -> str | None:
    path = path.split("?", 1)[0]
    return article(path) if path in PAGES else None


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(page_for) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PanelBrowser]:
    started = PanelBrowser(tmp_path_factory.mktemp("truth"))
    configured = run_laika(
        "config", "set", "capture.default_collection", "Reading", env=started.env
    )
    assert configured.returncode == 0, configured.stderr
    yield started
    started.close()


@pytest.fixture(scope="module")
def panel(browser: PanelBrowser) -> Page:
    return connected_panel(browser)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shots_folder(tmp_path_factory.getbasetemp() / "shots")


def shoot(panel: Page, shots: Path, name: str, before: str = "") -> None:
    """`panel-NAME-360.png` and `panel-NAME-800.png`, light; `before` runs at each width."""
    for width in (360, 800):
        panel.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=900,
            deviceScaleFactor=1,
            mobile=False,
        )
        if before:
            panel.eval(before)
        panel.screenshot(shots / f"panel-{name}-{width}.png", width, dark=False)
    panel.call("Emulation.clearDeviceMetricsOverride")
    panel.call("Emulation.setEmulatedMedia", features=[])


def stored(panel: Page) -> list[tuple[str, str]]:
    """(the page's last path segment, its collection) of every saved source, as the host
    lists them, sorted."""
    found = panel.eval(
        """(async () => {
          const {collections} = await laikaPanel.request('collections.list');
          const rows = [];
          for (const c of collections) {
            const {sources} = await laikaPanel.request('sources.list', {collection: c.id});
            for (const s of sources) rows.push([s.url.split('/').at(-1), c.title]);
          }
          return rows; })()"""
    )
    return sorted((str(name), str(where)) for name, where in found)


def pick(panel: Page, selector: str, value: str) -> None:
    panel.eval(
        f"(() => {{ const s = document.querySelector({json.dumps(selector)}); s.value = {json.dumps(value)};"
        " s.dispatchEvent(new Event('change', {bubbles: true})); return s.value; })()"
    )


def close(browser: PanelBrowser, tab: Page) -> None:
    browser.devtools.call("Target.closeTarget", targetId=tab.target_id)


def save_page(panel: Page) -> str:
    """Press Save page; the last queue item's text once it is done."""
    panel.click("#tab-sources")
    before = panel.eval("document.querySelectorAll('#queue .queue-item').length")
    panel.click("#save-page")
    last = "#queue .queue-item:last-child"
    panel.wait(
        f"document.querySelectorAll('#queue .queue-item').length > {before}"
        f" && ['done', 'failed'].includes(document.querySelector('{last}').dataset.status)",
        seconds=60,
        what="the save to finish",
    )
    text = str(panel.eval(f"document.querySelector('{last}').textContent"))
    assert panel.eval(f"document.querySelector('{last}').dataset.status") == "done", text
    return text


def test_a_new_store_lists_no_collection_and_says_what_save_page_creates(
    panel: Page, shots: Path
) -> None:
    panel.wait(
        "document.querySelector('#save-to option')?.textContent === 'Reading (default)'",
        what="the configured default in Save to",
    )
    options = panel.eval(
        "[...document.querySelectorAll('#collection option')].map(o => o.textContent)"
    )
    assert options == ["No collections yet"], options
    assert panel.eval("document.querySelector('#collection').disabled") is True
    assert panel.eval("document.querySelector('#collection-delete').disabled") is True
    assert "Inbox" not in panel.eval("document.querySelector('.topbar').textContent")
    empty = panel.eval("document.querySelector('#sources-empty').innerText")
    assert panel.eval("document.querySelector('#sources-empty').hidden") is False
    assert "Nothing saved yet" in empty
    assert panel.eval("document.querySelector('#search-input').closest('form').hidden") is True
    assert "“Reading”, your default collection: it is created with the first save" in empty
    panel.click("#tab-chat")
    panel.wait(
        "document.querySelector('#chat-empty').textContent.startsWith('Nothing is saved yet')",
        what="Chat to say nothing is saved",
    )
    panel.click("#tab-sources")
    shoot(panel, shots, "empty")
    assert panel.problems() == []


def test_save_page_goes_to_the_default_collection_and_says_where(
    browser: PanelBrowser, panel: Page, site: str, shots: Path
) -> None:
    # the user made "Research" and looks at it: Save page still goes to Reading, the default
    made = panel.eval(
        "laikaPanel.request('collections.create', {title: 'Research'}).then(c => c.title)"
    )
    assert made == "Research"
    panel.eval("(laikaPanel.emit('sources-changed'), true)")
    panel.wait("document.querySelector('#collection').value === 'Research'", what="Research shown")
    assert panel.eval("document.querySelector('#sources-empty').hidden") is True
    panel.wait(
        "document.querySelector('#sources-status').textContent === 'No sources in Research yet."
        " Saves go to Reading, your default collection: pick Research in “Save to” to save here.'",
        what="what an empty Research says",
    )
    tab = browser.open(f"{site}/tides")
    said = save_page(panel)
    assert "Saved to Reading" in said, said
    assert stored(panel) == [("tides", "Reading")]
    # the switcher still shows Research (what the list shows); the item offers to show Reading
    assert panel.eval("document.querySelector('#collection').value") == "Research"
    show = panel.eval(
        "document.querySelector('#queue .queue-item:last-child .queue-show')?.textContent"
    )
    assert show == "Show Reading", show
    shoot(panel, shots, "saved")
    close(browser, tab)

    # a collection picked in Save to is for that save: it says so, and the default is back after
    tab = browser.open(f"{site}/locks")
    pick(panel, "#save-to", "Research")
    hint = panel.eval("document.querySelector('#save-to-hint').textContent")
    assert hint == "For the next save only; then Reading again.", hint
    said = save_page(panel)
    assert "Saved to Research" in said, said
    assert panel.eval("document.querySelector('#save-to').value") == ""  # the default again
    assert panel.eval("document.querySelector('#save-to-hint').hidden") is True
    assert "Saved to Reading" in save_page(panel)  # the same page again: to the default
    close(browser, tab)
    tab = browser.open(f"{site}/ferry")
    assert "Saved to Reading" in save_page(panel)
    close(browser, tab)
    assert stored(panel) == [
        ("ferry", "Reading"),
        ("locks", "Reading"),
        ("locks", "Research"),
        ("tides", "Reading"),
    ]
    # Show: the collection it went to
    panel.click("#queue .queue-item:last-child .queue-show")
    panel.wait("document.querySelector('#collection').value === 'Reading'", what="Reading shown")
    panel.wait(
        "document.querySelectorAll('#source-list li').length === 3", what="Reading's sources"
    )
    assert panel.eval("document.querySelector('#queue .queue-item:last-child .queue-show')") is None
    assert panel.problems() == []


def test_each_chip_shows_its_own_title_and_no_note_that_does_not_apply(
    panel: Page, shots: Path
) -> None:
    panel.click("#tab-chat")
    panel.wait("document.querySelector('#chat-empty').textContent.startsWith('Ask a question')")
    panel.type("#question", "What happens at the harbour?")
    before = int(panel.eval("document.querySelectorAll('.msg.assistant').length"))
    panel.click("#ask")
    panel.wait(
        f"document.querySelectorAll('.msg.assistant').length > {before} &&"
        " ['done', 'error'].includes(document.querySelector('.msg.assistant:last-child').dataset.state)",
        seconds=90,
        what="the answer",
    )
    answer = panel.eval(
        """(() => { const last = document.querySelector('.msg.assistant:last-child');
        return {state: last.dataset.state, status: last.querySelector('.msg-status').textContent,
          chips: [...last.querySelectorAll('.chip')].map(c => ({
            state: c.dataset.state, label: c.querySelector('.chip-label').textContent,
            title: c.parentElement.querySelector('.tip-title').textContent}))}; })()"""
    )
    assert answer["state"] == "done", answer
    chips = {chip["title"]: chip["label"] for chip in answer["chips"]}
    assert len(chips) == 3, answer  # one source each: tides, locks, ferry
    for title, label in chips.items():
        assert title.startswith(SITE), title  # the whole title in the tooltip
        headline = title.removeprefix(f"{SITE}: ")
        assert headline.split()[0] in label, (label, title)  # the part that differs is shown
    assert len(set(chips.values())) == 3, chips  # never the same label for two sources
    assert "summaries" not in answer["status"], answer  # no model was sent anything
    panel.eval(
        "document.querySelector('.msg.assistant:last-child').scrollIntoView({block: 'end'}), true"
    )
    shoot(
        panel,
        shots,
        "answer",
        before="document.querySelector('.msg.assistant:last-child').scrollIntoView({block: 'end'})",
    )
    assert panel.problems() == []


def run_transform(panel: Page, kind: str) -> list[str]:
    """Run transform `kind` with the offline runtime on the shown collection; the labels the
    viewer's Export menu offers."""
    open_transform_form(panel, kind)
    pick(panel, "#transform-provider", "offline")
    panel.click("#transform-run")
    panel.wait(
        "!document.querySelector('#artifact-viewer').hidden || ['error', 'cancelled']"
        ".includes(document.querySelector('#transform-run-box').dataset.state)",
        seconds=90,
        what=f"the {kind} artifact",
    )
    state = panel.eval("document.querySelector('#transform-run-box').dataset.state")
    assert state == "done", panel.eval("document.querySelector('#transform-progress').textContent")
    return list(
        panel.eval(
            "[...document.querySelectorAll('#export-format option')].map(o => o.textContent)"
        )
    )


def host_formats(panel: Page, kind: str) -> list[str]:
    """`artifacts.get`'s export_formats of the newest `kind` artifact of the shown collection."""
    return list(
        panel.eval(
            f"""laikaPanel.request('artifacts.list', {{collection: laikaPanel.collection}})
            .then(({{artifacts}}) => artifacts.filter(a => a.type === {json.dumps(kind)}))
            .then(found => laikaPanel.request('artifacts.get', {{artifact_id: found[0].id}}))
            .then(a => a.export_formats)"""
        )
    )


def test_export_offers_only_the_formats_the_host_gives(panel: Page) -> None:
    report = run_transform(panel, "report")
    assert report == ["Markdown (.md)", "Plain text (.txt)", "JSON (.json)", "HTML page (.html)"], (
        report
    )
    assert host_formats(panel, "report") == ["md", "txt", "json", "html"]
    timeline = run_transform(panel, "timeline")  # a table type: CSV when it has rows
    offered = host_formats(panel, "timeline")
    assert ("CSV table (.csv)" in timeline) == ("csv" in offered), (timeline, offered)
    assert len(timeline) == len(offered), (timeline, offered)
    assert panel.problems() == []
