"""The side panel in real headless Chromium (CDP over a pipe, no driver), talking through the
background's relay to the real installed host: the panel page is opened in a tab and its own
buttons are clicked. One browser serves the module's tests, in order (2-core machines)."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from laika_host.native.install.browsers import DEV_EXTENSION_ID
from panel_browser import Page, PanelBrowser, connected_panel, shoot

from html_server import serve
from llm_servers import ProviderServer, Reply, openai_sse
from support import REPO, laika_executable, run_laika

pytestmark = pytest.mark.browser  # every test here starts Chromium

XSS_CORPORA = Path("/work/shared/corpora/xss")
if not XSS_CORPORA.exists():
    XSS_CORPORA = REPO.parent / "shared" / "corpora" / "xss"

TIDES = """<!doctype html><html lang="en"><head><title>Harbour tides</title></head><body>
<nav><a href="/">Home</a></nav><article><h1>Harbour tides</h1>
<p>High water at the harbour comes twice a day because the moon pulls the oceans toward it
while the earth turns underneath the bulge of water.</p>
<p>Spring tides run higher than neap tides because the moon and the sun pull together at new
and full moon.</p>
<p>Read about <a href="/moon">the moon</a> and <a href="/sun">the sun</a>.</p>
</article></body></html>"""
REWRITTEN = """<!doctype html><html><head><title>Harbour tides</title></head><body>
<article><h1>Harbour tides</h1><p>This page was rewritten; the old wording is gone.</p>
</article></body></html>"""


class Site:
    """Loopback pages whose content a test can change (the live page loses the quote)."""

    def __init__(self) -> None:
        self.pages = {"/tides": TIDES, "/moon": TIDES.replace("Harbour", "Moon")}

    def page_for(self, path: str) -> str | None:
        return self.pages.get(path.split("?", 1)[0])


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[Site, str]]:
    pages = Site()
    with serve(pages.page_for) as url:
        yield pages, url


@pytest.fixture(scope="module")
def model_server() -> Iterator[ProviderServer]:
    server = ProviderServer([Reply(chunks=openai_sse(["{}"]))])
    yield server
    server.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PanelBrowser]:
    started = PanelBrowser(tmp_path_factory.mktemp("panel"))
    yield started
    started.close()


@pytest.fixture(scope="module")
def panel(browser: PanelBrowser) -> Page:
    return connected_panel(browser)


def stored(browser: PanelBrowser) -> list[dict[str, Any]]:
    db = browser.home / "laika.db"
    with (
        contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection,
        connection,
    ):
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT s.*, c.title AS collection FROM sources s JOIN collections c ON c.id = s.collection_id"
        ).fetchall()
    return [dict(row) for row in rows]


def test_the_panel_loads_connected_with_no_console_error_or_csp_violation(
    browser: PanelBrowser, panel: Page
) -> None:
    status = panel.eval("document.querySelector('#host-status').textContent")
    assert "Connected" in status
    assert "host v" in status
    assert panel.eval("document.querySelector('[role=tablist]').children.length") == 4
    assert panel.eval("document.activeElement !== null")
    assert panel.problems() == []
    # one native host for the whole browser: the panel's requests were relayed
    assert browser.log_text().count("host started") <= 1 or "panel1:" in browser.log_text()


def test_save_page_from_the_panel_stores_the_page(
    browser: PanelBrowser, panel: Page, site: tuple[Site, str]
) -> None:
    _, base = site
    tab = browser.open(f"{base}/tides")
    assert tab.eval("document.title") == "Harbour tides"
    panel.click("#save-page")
    panel.wait(
        "document.querySelector('.queue-item')?.dataset.status === 'done'",
        what="the queue item to be saved",
    )
    assert "Saved 1 of 1" in panel.eval("document.querySelector('#queue-summary').textContent")
    panel.wait(
        "[...document.querySelectorAll('#source-list .title')].some(b => b.textContent === 'Harbour tides')",
        what="the saved source in the list",
    )
    rows = stored(browser)
    assert [(row["title"], row["collection"]) for row in rows] == [("Harbour tides", "Inbox")]
    assert "the moon pulls the oceans" in str(rows[0]["capture_markdown"])
    shoot(panel, "sources")

    panel.type("#search-input", "spring tides")
    panel.wait("document.querySelector('#search-results mark')", what="a highlighted snippet")
    marks = panel.eval(
        "[...document.querySelectorAll('#search-results mark')].map(m => m.textContent)"
    )
    assert any("spring" in mark.lower() or "tides" in mark.lower() for mark in marks)
    shoot(panel, "search")
    panel.type("#search-input", "")

    panel.click("#source-list .title")
    panel.wait(
        "document.body.dataset.view === 'reader' && document.querySelector('#reader-body').textContent.includes('twice a day')",
        what="the reader view",
    )
    assert panel.eval(
        "document.querySelector('#reader-body script, #reader-body [onerror]') === null"
    )
    shoot(panel, "reader")
    panel.click("#reader-back")


def ask(panel: Page, question: str) -> dict[str, Any]:
    """Ask in the Chat view; return the states the answer went through and its chips."""
    panel.click("#tab-chat")
    panel.eval(
        """(() => {
        window.__states = []; window.__streamed = [];
        const log = document.querySelector('#chat-log');
        window.__observer?.disconnect();
        window.__observer = new MutationObserver(() => {
          const last = log.querySelector('.msg.assistant:last-child');
          const state = last?.dataset.state;
          if (state && window.__states.at(-1) !== state) window.__states.push(state);
          if (state === 'streaming') window.__streamed.push(last.querySelector('.answer').textContent);
        });
        window.__observer.observe(log, {subtree: true, childList: true, attributes: true, characterData: true});
        return true; })()"""
    )
    before = panel.eval("document.querySelectorAll('.msg.assistant').length")
    panel.type("#question", question)
    panel.click("#ask")
    panel.wait(
        f"document.querySelectorAll('.msg.assistant').length > {before} &&"
        " ['done', 'error'].includes(document.querySelector('.msg.assistant:last-child').dataset.state)",
        seconds=60,
        what="the answer",
    )
    return dict(
        panel.eval(
            """(() => { const last = document.querySelector('.msg.assistant:last-child');
            return {states: window.__states, streamed: window.__streamed, state: last.dataset.state,
              text: last.querySelector('.answer').textContent,
              status: last.querySelector('.msg-status').textContent,
              coverage: last.querySelector('.msg-coverage').textContent,
              chips: [...last.querySelectorAll('.chip')].map(c => ({state: c.dataset.state, label: c.textContent}))}; })()"""
        )
    )


def test_an_offline_ask_shows_the_answer_with_verified_chips(panel: Page) -> None:
    answer = ask(panel, "Why does high water come twice a day?")
    assert answer["state"] == "done", answer
    assert answer["states"][-1] == "done"
    assert "streaming" in answer["states"], answer["states"]  # the offline runtime streams too
    assert answer["chips"], answer
    assert all(chip["state"] == "verified" for chip in answer["chips"]), answer["chips"]
    assert "Harbour tides" in answer["chips"][0]["label"]
    # the line under the answer says what it read and how many of its quotes verified
    assert re.fullmatch(
        r"Read (\d+ sources?|no source)( in full| in part| in full and \d+ in part)?; "
        r"(\d+) of \3 citations? verified\.",
        answer["coverage"],
    ), answer["coverage"]
    shoot(panel, "chat")


def test_a_verified_chip_opens_the_page_at_the_quote(browser: PanelBrowser, panel: Page) -> None:
    """The tab already showing the page is brought forward with the quote selected, and not
    navigated: a new `#:~:text=` fragment fires the page's hashchange and popstate, which a
    real page (volksstimme.ch) answers by leaving for its home page."""
    [tab_id] = [
        info["targetId"]
        for info in browser.devtools.call("Target.getTargets", filter=[{"type": "page"}])[
            "targetInfos"
        ]
        if "/tides" in info["url"]
    ]
    session = browser.devtools.call("Target.attachToTarget", targetId=tab_id, flatten=True)
    tab = Page(browser, tab_id, str(session["sessionId"]))
    tab.eval(
        "(window.__laikaMoved = [], ['hashchange', 'popstate'].forEach(name =>"
        " addEventListener(name, () => window.__laikaMoved.push(name))), getSelection().removeAllRanges(), true)"
    )
    quote = panel.eval(
        "document.querySelector('.msg.assistant:last-child .chip[data-state=verified]')"
        ".parentElement.querySelector('.tip-quote').textContent"
    )
    quote = quote[1 : quote.rindex("” —")]
    panel.click(".msg.assistant:last-child .chip[data-state=verified]")
    tab.wait("getSelection().toString().length > 0", seconds=20, what="the quote selected")
    words = "s => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()"
    assert tab.eval(f"({words})(getSelection().toString()) === ({words})({json.dumps(quote)})")
    assert tab.eval("window.__laikaMoved") == [], "the page was navigated"
    # the tab already showing that page was reused, not a second one opened
    assert sum("/tides" in url for url in browser.tab_urls()) == 1


def test_a_chip_whose_words_left_the_live_page_opens_the_stored_copy(
    browser: PanelBrowser, site: tuple[Site, str], panel: Page
) -> None:
    pages, _ = site
    pages.pages["/tides"] = REWRITTEN
    for target in browser.devtools.call("Target.getTargets", filter=[{"type": "page"}])[
        "targetInfos"
    ]:
        if "/tides" in target["url"]:  # a tab still showing the old words would be reused
            browser.devtools.call("Target.closeTarget", targetId=target["targetId"])
    try:
        panel.click("#tab-chat")
        panel.click(".msg.assistant:last-child .chip[data-state=verified]")
        panel.wait(
            "document.body.dataset.view === 'reader' && document.querySelector('#reader-body mark')",
            what="the reader with the quote marked",
        )
        note = panel.eval("document.querySelector('#reader-note').textContent")
        assert "no longer holds these words" in note
    finally:
        pages.pages["/tides"] = TIDES
        panel.click("#reader-back")


def choose_collection(panel: Page, title: str) -> None:
    """Pick `title` in the switcher (made first if it is new), as a user would."""
    panel.eval(
        f"laikaPanel.request('collections.list').then(r => r.collections.some(c => c.title === {json.dumps(title)})"
        f" || laikaPanel.request('collections.create', {{title: {json.dumps(title)}}})).then(() => true)"
    )
    panel.eval("(laikaPanel.emit('sources-changed'), true)")
    panel.wait(
        f"[...document.querySelectorAll('#collection option')].some(o => o.value === {json.dumps(title)})",
        what=f"{title} in the switcher",
    )
    panel.eval(
        f"(() => {{ const s = document.querySelector('#collection'); s.value = {json.dumps(title)};"
        " s.dispatchEvent(new Event('change')); return true; })()"
    )


def test_ask_about_this_page_asks_the_typed_question_and_saves_the_page(
    browser: PanelBrowser, panel: Page, site: tuple[Site, str]
) -> None:
    """The page (`<html lang="en">`, which the host refused on page.summarize) is saved to the
    collection and listed in Sources, and the question typed in the box is the one asked."""
    _, base = site
    tab = browser.open(f"{base}/moon")
    choose_collection(panel, "Asked")
    try:
        panel.click("#tab-sources")
        panel.wait("document.querySelectorAll('#source-list li').length === 0", what="no source")
        panel.click("#tab-chat")
        before = panel.eval("document.querySelectorAll('.msg.assistant').length")
        panel.type("#question", "Why do spring tides run higher?")
        panel.click("#ask-page")
        panel.wait(
            f"document.querySelectorAll('.msg.assistant').length > {before} && ['done', 'error']"
            ".includes(document.querySelector('.msg.assistant:last-child').dataset.state)",
            seconds=60,
            what="the answer about the page",
        )
        answer = panel.eval(
            """(() => { const last = document.querySelector('.msg.assistant:last-child');
            return {state: last.dataset.state, asked: last.previousElementSibling.textContent,
              status: last.querySelector('.msg-status').textContent, box: document.querySelector('#question').value,
              text: last.querySelector('.answer').textContent,
              chips: [...last.querySelectorAll('.chip')].map(c => [c.dataset.state, c.textContent])}; })()"""
        )
        assert answer["state"] == "done", answer
        assert answer["asked"] == "Why do spring tides run higher?"
        assert answer["box"] == ""
        assert "Spring tides run higher" in answer["text"], answer
        assert answer["chips"], answer
        assert all(
            state == "verified" and "Moon tides" in label for state, label in answer["chips"]
        )
        panel.click("#tab-sources")  # listed without pressing Reload
        panel.wait(
            "[...document.querySelectorAll('#source-list .title')].some(b => b.textContent === 'Moon tides')",
            what="the asked-about page in Sources",
        )
        row = next(row for row in stored(browser) if row["collection"] == "Asked")
        assert json.loads(row["provenance_json"])["language"] == "en"
        assert panel.problems() == []
    finally:
        browser.devtools.call("Target.closeTarget", targetId=tab.target_id)
        choose_collection(panel, "Inbox")


def use_provider(panel: Page, server: ProviderServer) -> None:
    panel.click("#tab-settings")
    panel.wait("document.querySelector('#provider-form')", what="the provider form")
    panel.type("#provider-id", "loop")
    panel.type("#provider-kind", "openai_compatible")
    panel.type("#provider-model", "recorder")
    panel.type("#provider-base-url", server.url)
    panel.eval("document.querySelector('#provider-form').requestSubmit(), true")
    panel.wait(
        "document.querySelector('#provider-list [data-id=loop]')", what="the provider in the list"
    )
    panel.type("#default-provider", "loop")


def model_reply(browser: PanelBrowser, markdown: str, quote: str) -> list[str]:
    source_id = next(str(row["id"]) for row in stored(browser) if row["title"] == "Harbour tides")
    reply = json.dumps(
        {
            "assistant": {"markdown": markdown},
            "citations": [{"doc_id": f"src:{source_id}", "quote": quote}],
        }
    )
    pieces = [reply[i : i + 40] for i in range(0, len(reply), 40)]
    return openai_sse(pieces)


def test_a_provider_added_in_settings_answers_through_the_loopback_server(
    browser: PanelBrowser, panel: Page, model_server: ProviderServer
) -> None:
    use_provider(panel, model_server)
    shoot(panel, "settings")
    chunks = model_reply(browser, "The moon pulls the oceans [1].", "the moon pulls the oceans")
    model_server.replies = [Reply(chunks=chunks, delay_between=0.05)]
    received = len(model_server.received)
    answer = ask(panel, "What does the moon do?")
    assert len(model_server.received) > received, "the loopback model server was not asked"
    assert answer["state"] == "done", answer
    assert answer["states"] == ["waiting", "streaming", "done"], answer["states"]  # deltas first
    streamed = answer["streamed"]
    assert streamed
    assert all(text.startswith("The moon") or "The moon".startswith(text) for text in streamed)
    assert not any("{" in text for text in streamed), "raw JSON was shown while streaming"
    assert answer["text"].startswith("The moon pulls the oceans")
    assert [chip["state"] for chip in answer["chips"]] == ["verified"]


def test_stop_cancels_the_running_ask_in_the_host(
    browser: PanelBrowser, panel: Page, model_server: ProviderServer
) -> None:
    chunks = model_reply(browser, "The moon pulls the oceans [1].", "the moon pulls the oceans")
    model_server.replies = [Reply(chunks=chunks, stall_after=1, stall_seconds=60)]
    panel.click("#tab-chat")
    panel.type("#question", "What does the moon do, slowly?")
    panel.click("#ask")
    panel.wait("!document.querySelector('#stop').disabled", what="the Stop button to be enabled")
    panel.wait(
        "document.querySelector('.msg.assistant:last-child').dataset.state === 'streaming'",
        what="the first delta",
    )
    panel.click("#stop")
    panel.wait(
        "document.querySelector('.msg.assistant:last-child').dataset.state === 'cancelled'",
        what="the answer marked as stopped",
    )
    assert panel.eval("document.querySelector('#ask').disabled") is False
    browser.wait_for_log("host.cancel", 20)
    log = browser.log_text()
    assert "panel" in log.split("host.cancel", 1)[1].split("\n", 1)[0], "the cancel was not relayed"


def xss_vectors() -> list[str]:
    vectors: list[str] = []
    for path in sorted(XSS_CORPORA.glob("*.json")):
        for item in json.loads(path.read_text()):
            text = item if isinstance(item, str) else item.get("payload") or item.get("input") or ""
            if isinstance(text, str) and text:
                vectors.append(text)
    return vectors


def test_xss_vectors_as_model_answers_execute_nothing_in_the_panel(
    browser: PanelBrowser, panel: Page, model_server: ProviderServer
) -> None:
    vectors = xss_vectors()
    assert len(vectors) > 300, "the XSS corpora are missing"
    batches = [vectors[i : i + 40] for i in range(0, len(vectors), 40)]
    for batch in batches:
        markdown = "\n\n".join(batch) + "\n\nThe moon pulls the oceans [1]."
        model_server.replies = [
            Reply(chunks=model_reply(browser, markdown, "the moon pulls the oceans"))
        ]
        answer = ask(panel, "Tell me about the moon.")
        assert answer["state"] == "done", answer
    watch = panel.eval("window.__laikaWatch")
    assert watch["dialogs"] == 0
    assert watch["errors"] == []
    assert watch["csp"] == [], "a blocked script or inline handler reached the DOM"
    dangerous = panel.eval(
        """[...document.querySelectorAll('#chat-log *')].filter(el =>
          ['SCRIPT','IFRAME','OBJECT','EMBED','STYLE','FORM','SVG','MATH','IMG','BASE','META','LINK'].includes(el.tagName.toUpperCase()) ||
          [...el.attributes].some(a => a.name.startsWith('on') || a.name === 'style' || a.name === 'srcdoc' ||
            (a.name === 'href' && !/^(https?:|mailto:)/i.test(a.value)))).map(el => el.outerHTML.slice(0, 200))"""
    )
    assert dangerous == []
    assert panel.problems() == []


def test_unticked_sources_are_left_out_of_answers_and_the_chat_says_so(panel: Page) -> None:
    """NotebookLM's checkboxes: a source unticked on the list is not read (`skip_sources`);
    with every source unticked the chat says so, and the host refuses in the panel's words."""
    panel.click("#tab-sources")
    panel.wait("document.querySelector('#source-list .use-source')", what="the sources' boxes")
    boxes = "[...document.querySelectorAll('#source-list .use-source')]"
    total = panel.eval(f"{boxes}.length")
    assert panel.eval(f"{boxes}.every(box => box.checked)")
    panel.eval(f"{boxes}.forEach(box => box.click()), true")
    shoot(panel, "sources-choice")
    panel.click("#tab-chat")
    line = panel.eval("document.querySelector('#source-choice-line').textContent")
    assert line.startswith("Every source is unticked: answers have nothing to read."), line
    shoot(panel, "chat-source-choice")
    answer = ask(panel, "Why does high water come twice a day?")
    assert answer["state"] == "error", answer
    assert "every source of 'Inbox' is left out" in answer["status"], answer["status"]
    assert "laika " not in answer["status"]
    panel.click("#tab-sources")
    panel.click("#source-list .use-source")  # one ticked again: answers read it alone
    panel.click("#tab-chat")
    line = panel.eval("document.querySelector('#source-choice-line').textContent")
    if total > 1:
        assert line == (
            f"Answers read 1 of {total} sources: {total - 1} "
            f"{'source' if total == 2 else 'sources'} unticked on the Sources tab."
        ), line
    answer = ask(panel, "Why does high water come twice a day?")
    assert answer["state"] == "done", answer
    panel.click("#tab-sources")
    panel.eval(f"{boxes}.filter(box => !box.checked).forEach(box => box.click()), true")
    panel.click("#tab-chat")
    assert panel.eval("document.querySelector('#source-choice-line').hidden")
    assert panel.problems() == []


def test_a_removed_host_manifest_shows_the_exact_fix(browser: PanelBrowser, panel: Page) -> None:
    pid = panel.eval("window.laikaPanel.request('host.info').then(info => info.pid)")
    browser.manifest.unlink()
    import os
    import signal

    os.kill(int(pid), signal.SIGTERM)  # the host the browser started; it exits and the port drops
    # the port drops ("Native host has exited."), the reconnect finds no manifest
    panel.wait(
        "document.body.dataset.host === 'missing' && document.querySelector('#host-status')"
        ".textContent.includes('Specified native messaging host not found.')",
        seconds=60,
        what="the 'host missing' status after the reconnect",
    )
    text = panel.eval("document.querySelector('#host-status').textContent")
    # the laika that installed the host, by its absolute path (after the Quick start it is not
    # on PATH), and this browser's profile folder: both as the host reported them when it ran
    laika, profile = laika_executable(), browser.profile
    commands = panel.eval(
        "[...document.querySelectorAll('#host-status .command code')].map(c => c.textContent)"
    )
    assert commands == [
        f"{laika} install --browser chromium --user-data-dir {profile}",
        f"{laika} doctor --browser chromium --user-data-dir {profile}",
    ], commands
    assert DEV_EXTENSION_ID not in text  # the bundled id: what install allows anyway
    assert "Specified native messaging host not found." in text
    # `laika doctor` names the same fix
    doctor = run_laika("doctor", "--user-data-dir", str(profile), "--no-ping", env=browser.env)
    assert f"fix: run `{commands[0]}`, then `{commands[1]}`" in doctor.stdout, doctor.stdout
    panel.click("#tab-sources")
    shoot(panel, "host-missing")
