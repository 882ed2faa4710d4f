"""The panel says what is true (issue #25), pressed in real Chromium with the real extension and
the real host, on a store that starts empty as a new user's does:

- no phantom collection: an empty store lists none and says what Save page will create;
- Save page goes to the configured default collection (`capture.default_collection`), not the
  one the switcher shows, and says where it went; a collection picked in "Save to" is for that
  save only;
- each citation chip shows its own source's title, shortened at a word boundary, the whole
  title in its tooltip, and no note that does not apply (no "sent as summaries" under an
  answer no model wrote);
- the Export menu offers only what the host can make of the artifact (no CSV for a brief);
- a page with a real overlay gets the signal, a plain article none.

Screenshots at 360 and 800 px go to `$LAIKA_SHOTS_DIR` (default: the test's tmp dir) as
`panel-*-WIDTH.png`. One browser serves the module's tests, in order (2-core machines).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from panel_browser import Page, PanelBrowser, connected_panel
from realpages import shots_folder

from html_server import serve
from support import run_laika

pytestmark = pytest.mark.browser

SITE = "Hafenblatt – Nachrichten aus der Hansestadt am Meer"
PAGES = {
    "/tides": ("Harbour tides explained for sailors", "Tides",
               "High water at the harbour comes twice a day because the moon pulls the oceans."),
    "/locks": ("The new sea lock opens in spring", "Locks",
               "The new sea lock lets ships pass at any tide since the harbour deepened its channel."),
    "/ferry": ("Night ferry returns to the islands", "Ferry",
               "The night ferry to the islands returns in May after the harbour rebuilt its pier."),
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


OVERLAY = """<!doctype html><html lang="en"><head><title>Harbour wall</title>
<style>#wall{position:fixed;inset:0;background:rgba(0,0,0,.7);display:flex;align-items:center;
justify-content:center;z-index:1000}#wall div{background:#fff;padding:2em;max-width:30em}</style>
</head><body><article><h1>Harbour wall</h1>
<p>The harbour wall was built in 1890 to keep the winter storms out of the inner basin.</p>
<p>It still stands today, and the city repairs a stretch of it every summer.</p></article>
<div id="wall" role="dialog" aria-modal="true"><div><h2>Before you read on</h2>
<p>Tell us which newsletter you want, then close this window to read the article.</p>
<button>Close</button></div></div></body></html>"""


def page_for(path: str) -> str | None:
    path = path.split("?", 1)[0]
    if path in PAGES:
        return article(path)
    if path == "/wall":
        return OVERLAY
    return None


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(page_for) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PanelBrowser]:
    started = PanelBrowser(tmp_path_factory.mktemp("truth"))
    configured = run_laika("config", "set", "capture.default_collection", "Reading", env=started.env)
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
            width=width, height=900, deviceScaleFactor=1, mobile=False,
        )
        if before:
            panel.eval(before)
        panel.screenshot(shots / f"panel-{name}-{width}.png", width, dark=False)
    panel.call("Emulation.clearDeviceMetricsOverride")
    panel.call("Emulation.setEmulatedMedia", features=[])


def stored(browser: PanelBrowser) -> list[dict[str, Any]]:
    db = browser.home / "laika.db"
    with (
        contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection,
        connection,
    ):
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT s.id, s.title, s.url, s.signals, c.title AS collection FROM sources s"
            " JOIN collections c ON c.id = s.collection_id ORDER BY s.created_at"
        ).fetchall()
    return [dict(row) for row in rows]


def pick(panel: Page, selector: str, value: str) -> None:
    panel.eval(
        f"(() => {{ const s = document.querySelector({json.dumps(selector)}); s.value = {json.dumps(value)};"
        " s.dispatchEvent(new Event('change', {bubbles: true})); return s.value; })()"
    )


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
    options = panel.eval("[...document.querySelectorAll('#collection option')].map(o => o.textContent)")
    assert options == ["No collections yet"], options
    assert panel.eval("document.querySelector('#collection').disabled") is True
    assert panel.eval("document.querySelector('#collection-delete').disabled") is True
    assert "Inbox" not in panel.eval("document.querySelector('.topbar').textContent")
    empty = panel.eval("document.querySelector('#sources-empty').innerText")
    assert panel.eval("document.querySelector('#sources-empty').hidden") is False
    assert "Nothing saved yet" in empty
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
    made = panel.eval("laikaPanel.request('collections.create', {title: 'Research'}).then(c => c.title)")
    assert made == "Research"
    panel.eval("(laikaPanel.emit('sources-changed'), true)")
    panel.wait("document.querySelector('#collection').value === 'Research'", what="Research shown")
    tab = browser.open(f"{site}/tides")
    said = save_page(panel)
    assert "Saved to Reading" in said, said
    assert [(r["url"].rsplit("/", 1)[-1], r["collection"]) for r in stored(browser)] == [
        ("tides", "Reading")
    ]
    assert panel.eval("document.querySelector('#queue .queue-item:last-child .queue-show') !== null")
    shoot(panel, shots, "saved")

    # a collection picked in Save to is for that save only
    browser.devtools.call("Target.closeTarget", targetId=tab.target_id)
    tab = browser.open(f"{site}/locks")
    pick(panel, "#save-to", "Research")
    said = save_page(panel)
    assert "Saved to Research" in said, said
    assert panel.eval("document.querySelector('#save-to').value") == ""  # the default again
    browser.devtools.call("Target.closeTarget", targetId=tab.target_id)
    tab = browser.open(f"{site}/ferry")
    assert "Saved to Reading" in save_page(panel)
    browser.devtools.call("Target.closeTarget", targetId=tab.target_id)
    # the other two pages, to Reading too, for the chips below
    for path in ("/locks",):
        tab = browser.open(f"{site}{path}")
        assert "Saved to Reading" in save_page(panel)
        browser.devtools.call("Target.closeTarget", targetId=tab.target_id)
    where = sorted((r["url"].rsplit("/", 1)[-1], r["collection"]) for r in stored(browser))
    assert where == [
        ("ferry", "Reading"), ("locks", "Reading"), ("locks", "Research"), ("tides", "Reading")
    ]
    # Show: the collection it went to
    panel.click("#queue .queue-item:last-child .queue-show")
    panel.wait("document.querySelector('#collection').value === 'Reading'", what="Reading shown")
    panel.wait("document.querySelectorAll('#source-list li').length === 3", what="Reading's sources")
    assert panel.problems() == []
