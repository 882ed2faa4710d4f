"""Every panel action on real pages: the real extension in real headless Chromium (and Firefox
ESR for the core path), the real host behind a tap that checks each message the extension
sends against schema/native, pages of the capture-dev corpus served with their original
markup at their original addresses (a loopback proxy: `realpages.py`).

Per page, in Chromium: Save page, Save selection, Ask about this page with a typed question,
a click on the answer's chip (the page must show the quote), a transform of the saved sources
and its export. In Firefox: Save page and Ask about this page. Every page: no console error in
the panel or the background, no message the schema or the host refuses, each action's result
shown in the panel. The time from each click to its result is recorded and printed (median,
worst), never asserted. One browser and one host serve all the pages (2-core machines).

`LAIKA_REALPAGES` sets how many pages (default 40); `LAIKA_SHOTS_DIR` where the screenshots
of the first page go (default: the test's tmp dir).
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from panel_browser import Page, PanelBrowser, connected_panel, open_transform_form
from realpages import (
    QUOTE_SHOWN,
    SELECT_SNIPPET,
    Proxy,
    RealPage,
    Timings,
    choose_pages,
    install_tap,
    page_count,
    refused,
    serve_proxy,
    shots_folder,
    tap_records,
)
from test_sidepanel_firefox_e2e import FirefoxPanel

from support import capture_dev_corpus

pytestmark = [pytest.mark.browser, pytest.mark.corpus]

LAST = ".msg.assistant:last-child"
QUEUE_LAST = "#queue .queue-item:last-child"

# Click, then wait in the panel itself for the result (a MutationObserver, and a poll for what
# no mutation announces): resolves with the milliseconds from the click to the result, or
# null after `seconds`. Timed in the panel's own clock, so the test's polling adds nothing.
# The condition is code, not a string: the panel's CSP forbids eval.
TIMED_CLICK = """(async (selector, condition, seconds) => {
  const met = () => { try { return Boolean(condition()); } catch { return false; } };
  const element = document.querySelector(selector);
  if (!element) return {missing: selector};
  element.scrollIntoView({block: 'center'});
  const started = performance.now();
  element.click();
  return await new Promise((resolve) => {
    const observer = new MutationObserver(() => { if (met()) done(performance.now() - started); });
    const poll = setInterval(() => { if (met()) done(performance.now() - started); }, 25);
    const limit = setTimeout(() => done(null), seconds * 1000);
    function done(ms) { observer.disconnect(); clearInterval(poll); clearTimeout(limit); resolve({ms}); }
    observer.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
    if (met()) done(performance.now() - started);
  });
})"""


def timed_click(panel: Any, selector: str, condition: str, what: str, seconds: float = 60) -> float:
    """Click `selector` in the panel; the ms until `condition` holds (fails after `seconds`)."""
    reply = panel.eval(
        f"{TIMED_CLICK}({json.dumps(selector)}, () => ({condition}), {seconds})",
        **({"timeout": seconds + 30} if isinstance(panel, Page) else {}),
    )
    if reply.get("missing"):
        pytest.fail(f"no {reply['missing']!r} to click in the panel")
    if reply.get("ms") is None:
        shown = panel.eval("document.body.innerText.slice(0, 3000)")
        pytest.fail(f"waited {seconds} s for {what}; the panel shows:\n{shown}")
    return float(reply["ms"])


def use_collection(panel: Any, title: str) -> None:
    """A fresh collection for one page, made the default one (where Save page and Save
    selection put the page: `capture.default_collection`) and chosen in the switcher, as a user
    would."""
    created = panel.eval(
        f"laikaPanel.request('collections.create', {json.dumps({'title': title})}).then(c => c.title)"
    )
    assert created == title
    setting = {"path": "capture.default_collection", "value": title}
    panel.eval(f"laikaPanel.request('config.set', {json.dumps(setting)}).then(() => true)")
    panel.wait(
        f"document.querySelector('#save-to option')?.textContent === {json.dumps(title + ' (default)')}",
        what=f"{title} as the default in Save to",
    )
    panel.eval("(laikaPanel.emit('sources-changed'), true)")
    option = f"[...document.querySelectorAll('#collection option')].some(o => o.value === {json.dumps(title)})"
    panel.wait(option, what=f"collection {title} in the switcher")
    panel.eval(
        f"(() => {{ const s = document.querySelector('#collection'); s.value = {json.dumps(title)};"
        " s.dispatchEvent(new Event('change')); return true; })()"
    )
    panel.wait(
        f"document.querySelector('#collection').value === {json.dumps(title)}", what="the switch"
    )


def clear_queue(panel: Any) -> None:
    panel.eval(
        "(() => { const b = document.querySelector('#queue .queue-head button'); if (b) b.click(); return true; })()"
    )


def save_page(panel: Any, timings: Timings, page: RealPage) -> None:
    panel.click("#tab-sources")
    clear_queue(panel)
    ms = timed_click(
        panel,
        "#save-page",
        f"['done', 'failed'].includes(document.querySelector('{QUEUE_LAST}')?.dataset.status)"
        " && document.querySelectorAll('#source-list li').length > 0",
        "the page to be saved and listed",
    )
    shown = panel.eval(f"document.querySelector('{QUEUE_LAST}').textContent")
    assert panel.eval(f"document.querySelector('{QUEUE_LAST}').dataset.status") == "done", shown
    timings.add("save page", ms, page.name)


def saved_text(panel: Any) -> str:
    """The text the host saved of the page (the collection's first source, not a selection)."""
    return str(
        panel.eval(
            "laikaPanel.request('sources.list', {collection: laikaPanel.collection}).then(r =>"
            " laikaPanel.request('sources.get', {source_id: r.sources.at(-1).id})).then(s => s.markdown)"
        )
    )


def ask_about_page(panel: Any, timings: Timings, page: RealPage, question: str) -> dict[str, Any]:
    panel.click("#tab-chat")
    panel.wait("!document.querySelector('#ask-page').disabled", what="Ask about this page free")
    before = int(panel.eval("document.querySelectorAll('.msg.assistant').length"))
    panel.type("#question", question)
    ms = timed_click(
        panel,
        "#ask-page",
        f"document.querySelectorAll('.msg.assistant').length > {before} &&"
        f" ['done', 'error', 'cancelled'].includes(document.querySelector('{LAST}').dataset.state)",
        "the answer about the page",
        seconds=90,
    )
    answer = dict(
        panel.eval(
            f"""(() => {{ const last = document.querySelector('{LAST}');
            return {{state: last.dataset.state,
              asked: last.previousElementSibling?.textContent ?? '',
              text: last.querySelector('.answer').textContent,
              status: last.querySelector('.msg-status').textContent,
              box: document.querySelector('#question').value,
              chips: [...last.querySelectorAll('.chip')].map(c => ({{state: c.dataset.state,
                label: c.querySelector('.chip-label').textContent,
                tip: c.parentElement.querySelector('.tip-quote').textContent}}))}}; }})()"""
        )
    )
    assert answer["state"] == "done", answer
    assert answer["asked"] == question, answer  # the typed question was asked
    assert answer["box"] == "", answer
    assert answer["text"].strip(), answer
    verified = [chip for chip in answer["chips"] if chip["state"] == "verified"]
    # the offline runtime may find no sentence for the words (gnaur.wordpress.com): it says so
    assert verified or "found nothing in your sources" in answer["status"], (
        f"no verified chip: {answer}"
    )
    timings.add("ask about this page", ms, page.name)
    return answer


def quote_of(chip: dict[str, Any]) -> str:
    """The chip's quote, from its tooltip: “quote” — state."""
    tip = str(chip["tip"])
    return tip[1 : tip.rindex("” —")]


# --- Chromium ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pages() -> list[RealPage]:
    chosen = choose_pages(capture_dev_corpus(), page_count())
    assert len(chosen) == page_count(), f"only {len(chosen)} usable pages"
    return chosen


@pytest.fixture(scope="module")
def proxy(pages: list[RealPage]) -> Iterator[Proxy]:
    with serve_proxy(pages) as served:
        yield served


@pytest.fixture(scope="module")
def chromium(
    tmp_path_factory: pytest.TempPathFactory, proxy: Proxy
) -> Iterator[tuple[PanelBrowser, Path]]:
    root = tmp_path_factory.mktemp("realpages-chromium")
    log = root / "tap.jsonl"
    started = PanelBrowser(
        root,
        flags=(f"--proxy-server=http://{proxy.address}",),
        prepare=lambda manifest: install_tap(manifest, log),
    )
    yield started, log
    started.close()


@pytest.fixture(scope="module")
def chromium_panel(
    chromium: tuple[PanelBrowser, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Page, Page, Path]:
    """The panel, the background's service worker (watched for errors), the downloads."""
    browser, _ = chromium
    downloads = tmp_path_factory.mktemp("downloads")
    browser.devtools.call(
        "Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads)
    )
    worker = browser.worker()
    for domain in ("Runtime", "Log"):
        worker.call(f"{domain}.enable")
    return connected_panel(browser), worker, downloads


@pytest.fixture(scope="module")
def chromium_timings(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, pages: list[RealPage]
) -> Iterator[Timings]:
    timings = Timings("Chromium")
    yield timings
    report(request, timings, tmp_path_factory.mktemp("realpages-timings"), len(pages))


def report(request: pytest.FixtureRequest, timings: Timings, folder: Path, pages: int) -> None:
    """The timings to a file under the tmp dir and to the terminal (passing tests' output is
    not shown otherwise)."""
    if not timings.samples:
        return
    path = timings.write(folder, pages)
    lines = ["", *timings.lines(pages), f"  (written to {path})"]
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    terminal = request.config.pluginmanager.get_plugin("terminalreporter")
    if capture is None or terminal is None:
        print("\n".join(lines))
        return
    with capture.global_and_fixture_disabled():  # shown even when the tests pass
        for line in lines:
            terminal.write_line(line)


def errors_of(browser: PanelBrowser, session: str, since: int) -> list[str]:
    """Console errors and exceptions of one DevTools session, from event number `since`."""
    found = []
    for event in browser.devtools.events[since:]:
        if event.get("sessionId") != session:
            continue
        params = event.get("params", {})
        assert isinstance(params, dict)
        if event["method"] == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails']}")
        elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") == "error":
            found.append(f"console.error: {params.get('args')}")
        elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append(f"log: {params['entry'].get('text')}")
    return found


def open_tabs(browser: PanelBrowser) -> list[dict[str, Any]]:
    infos = browser.devtools.call("Target.getTargets", filter=[{"type": "page"}])["targetInfos"]
    assert isinstance(infos, list)
    return [info for info in infos if str(info["url"]).startswith("http")]


def close_web_tabs(browser: PanelBrowser) -> None:
    for info in open_tabs(browser):
        browser.devtools.call("Target.closeTarget", targetId=info["targetId"])


def attach(browser: PanelBrowser, target_id: str) -> Page:
    session = browser.devtools.call("Target.attachToTarget", targetId=target_id, flatten=True)
    return Page(browser, target_id, str(session["sessionId"]))


def open_chip(
    browser: PanelBrowser, panel: Page, tab: Page, chip: dict[str, Any], index: int
) -> tuple[float, dict[str, Any], Page]:
    """Click the answer's verified chip; the ms until a tab shows the page at the quote."""
    quote = quote_of(chip)
    started = time.monotonic()
    panel.click(f"{LAST} .chip[data-state=verified]")
    deadline = started + 30
    shown: dict[str, Any] = {}
    opened: Page | None = None
    sessions = {tab.target_id: tab}
    while time.monotonic() < deadline and not opened:
        for info in open_tabs(browser):  # the tab showing the page (reused), or a new one
            target = str(info["targetId"])
            candidate = sessions.get(target) or sessions.setdefault(target, attach(browser, target))
            try:
                seen = candidate.eval(f"({QUOTE_SHOWN})({json.dumps(quote)})", timeout=10)
            except pytest.fail.Exception:
                continue  # navigating: the old document is gone
            top = seen.get("top")
            if seen.get("same") and top is not None and 0 <= top < seen["viewport"]:
                shown, opened = seen, candidate
                break
            shown = seen
        time.sleep(0.05)
    ms = (time.monotonic() - started) * 1000
    if opened is None:
        shown_panel = panel.eval(
            "document.body.dataset.view + ': ' + document.body.innerText.slice(0, 600)"
        )
        tabs = [info["url"] for info in open_tabs(browser)]
        pytest.fail(
            f"no tab shows {chip} in view ({shown}); tabs: {tabs}; the panel: {shown_panel}"
        )
    assert shown.get("same"), (
        f"the page does not show the quote {quote!r} marked: {shown}; tabs {[i['url'] for i in open_tabs(browser)]}"
    )
    assert 0 <= shown["top"] < shown["viewport"], f"the quote is not in view: {shown} ({quote!r})"
    return ms, shown, opened


def save_selection(panel: Page, tab: Page, timings: Timings, page: RealPage) -> bool:
    selected = tab.eval(f"({SELECT_SNIPPET})({json.dumps(page.snippets)})")
    if not selected:
        return False
    panel.click("#tab-sources")
    ms = timed_click(
        panel,
        "#save-selection",
        f"['done', 'failed'].includes(document.querySelector('{QUEUE_LAST}')?.dataset.status)"
        f" && document.querySelector('{QUEUE_LAST} .queue-label').textContent === 'The selection'",
        "the selection to be saved",
    )
    shown = panel.eval(f"document.querySelector('{QUEUE_LAST}').textContent")
    assert panel.eval(f"document.querySelector('{QUEUE_LAST}').dataset.status") == "done", shown
    timings.add("save selection", ms, page.name)
    return True


def transform_and_export(panel: Page, downloads: Path, timings: Timings, page: RealPage) -> None:
    open_transform_form(panel, "key-takeaways")
    panel.eval(
        "(() => { const s = document.querySelector('#transform-provider');"
        " const o = [...s.options].find(o => o.textContent === 'Offline runtime (no model)');"
        " s.value = o.value; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()"
    )
    ms = timed_click(
        panel,
        "#transform-run",
        "!document.querySelector('#artifact-viewer').hidden || ['error', 'cancelled']"
        ".includes(document.querySelector('#transform-run-box').dataset.state)",
        "the artifact viewer",
        seconds=90,
    )
    seen = panel.eval(
        """({state: document.querySelector('#transform-run-box').dataset.state,
        progress: document.querySelector('#transform-progress').textContent,
        body: document.querySelector('#artifact-body').textContent,
        chips: [...document.querySelectorAll('#artifact-chips .chip')].map(c => c.dataset.state)})"""
    )
    assert seen["state"] == "done", seen
    assert seen["body"].strip() or "hold nothing" in seen["progress"], seen  # said why, if empty
    timings.add("transform (offline)", ms, page.name)
    before = {path.name for path in downloads.iterdir()}
    panel.eval(
        "(() => { const s = document.querySelector('#export-format'); s.value = 'md';"
        " s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()"
    )
    ms = timed_click(
        panel,
        "#export-download",
        "document.querySelector('#toast').textContent.startsWith('Saved ') ||"
        " document.querySelector('#toast').dataset.kind === 'error'",
        "the export",
    )
    toast = panel.eval("document.querySelector('#toast').textContent")
    assert toast.startswith("Saved "), toast
    timings.add("export (md)", ms, page.name)
    deadline = time.monotonic() + 20
    new: list[Path] = []
    while time.monotonic() < deadline and not new:
        new = [
            p
            for p in downloads.iterdir()
            if p.name not in before and p.suffix == ".md" and p.stat().st_size > 0
        ]
        time.sleep(0.1)
    assert new, f"no .md file was downloaded ({toast})"


@pytest.mark.parametrize("index", range(page_count()))
def test_chromium_every_panel_action_on_a_real_page(
    index: int,
    pages: list[RealPage],
    proxy: Proxy,
    chromium: tuple[PanelBrowser, Path],
    chromium_panel: tuple[Page, Page, Path],
    chromium_timings: Timings,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    page = pages[index]
    browser, log = chromium
    panel, worker, downloads = chromium_panel
    since = len(browser.devtools.events)
    heard = len(tap_records(log))
    use_collection(panel, f"Real page {index:02d}")
    try:
        every_action(
            browser, panel, downloads, page, index, proxy, chromium_timings, tmp_path_factory
        )
    finally:
        close_web_tabs(browser)  # a failed page leaves no tab for the next to take for its own
    problems = errors_of(browser, panel.session, since) + errors_of(browser, worker.session, since)
    records = tap_records(log)[heard:]
    assert problems == [], problems
    assert refused(records) == [], refused(records)
    sent = {r.get("type") for r in records if r["dir"] == "request"}
    assert {"sources.save_page", "page.summarize", "transform.run", "artifacts.export"} <= sent, (
        sent
    )


def every_action(
    browser: PanelBrowser,
    panel: Page,
    downloads: Path,
    page: RealPage,
    index: int,
    proxy: Proxy,
    timings: Timings,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Save page, Save selection, Ask about this page with a typed question, the answer's
    chip, a transform of the saved sources, its export; the first two pages photographed."""
    tab = browser.open(page.url)
    assert proxy.served, "the page did not come from the proxy"
    assert proxy.served[-1] == page.url, "the page did not come from the proxy"
    save_page(panel, timings, page)
    question = page.question(saved_text(panel))
    assert save_selection(panel, tab, timings, page), "nothing to select on the page"
    answer = ask_about_page(panel, timings, page, question)
    width = {0: 360, 1: 800}.get(index)  # the first two pages are photographed at these widths
    shots = shots_folder(tmp_path_factory.getbasetemp() / "shots") if width else None
    if shots:
        panel.eval(f"document.querySelector('{LAST}').scrollIntoView({{block: 'end'}}), true")
        panel.screenshot(shots / f"ask-about-page-{width}.png", int(width), dark=False)
        panel.call("Emulation.clearDeviceMetricsOverride")
        panel.call("Emulation.setEmulatedMedia", features=[])
        metrics = {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": False}
        tab.call("Emulation.setDeviceMetricsOverride", **metrics)
    chip = next((chip for chip in answer["chips"] if chip["state"] == "verified"), None)
    if chip is not None:  # none in an offline "unsupported" answer: nothing to open
        ms, _, opened = open_chip(browser, panel, tab, chip, index)
        timings.add("chip to quote", ms, page.name)
    if shots and chip is not None:
        opened.call("Page.bringToFront")
        time.sleep(0.2)
        shot = opened.call("Page.captureScreenshot", format="png")
        (shots / f"chip-opened-at-quote-{width}.png").write_bytes(
            base64.b64decode(str(shot["data"]))
        )
    transform_and_export(panel, downloads, timings, page)


# --- Firefox ESR: the core path ------------------------------------------------------------


@pytest.fixture(scope="module")
def firefox(
    tmp_path_factory: pytest.TempPathFactory, proxy: Proxy
) -> Iterator[tuple[FirefoxPanel, Path]]:
    root = tmp_path_factory.mktemp("realpages-firefox")
    log = root / "tap.jsonl"
    prefs = {
        "network.proxy.type": 1,  # manual: every http page through the loopback proxy
        "network.proxy.http": "127.0.0.1",
        "network.proxy.http_port": proxy.port,
        "network.proxy.ssl": "127.0.0.1",  # https: refused by the proxy, at once
        "network.proxy.ssl_port": proxy.port,
        "network.proxy.no_proxies_on": "",
    }
    started = FirefoxPanel(
        root, {}, prefs=prefs, prepare=lambda manifest: install_tap(manifest, log)
    )
    try:
        started.start()
        started.call("WebDriver:SetTimeouts", script=150_000)
        yield started, log
    finally:
        started.close()


@pytest.fixture(scope="module")
def firefox_timings(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, pages: list[RealPage]
) -> Iterator[Timings]:
    timings = Timings("Firefox ESR")
    yield timings
    report(request, timings, tmp_path_factory.mktemp("realpages-timings"), len(pages))


def firefox_chip(panel: FirefoxPanel, tab: str, chip: dict[str, Any]) -> float:
    """Click the answer's verified chip; the ms until the page's tab shows the quote."""
    quote = quote_of(chip)
    home = panel.call("WebDriver:GetWindowHandle")["value"]
    started = time.monotonic()
    panel.click(f"{LAST} .chip[data-state=verified]")
    deadline = started + 30
    shown: dict[str, Any] = {}
    while time.monotonic() < deadline:
        handles = panel.call("WebDriver:GetWindowHandles")
        for handle in [h for h in handles if h != home]:
            panel.call("WebDriver:SwitchToWindow", handle=handle, focus=False)
            try:
                shown = panel.eval(f"({QUOTE_SHOWN})({json.dumps(quote)})") or {}
            finally:
                panel.call("WebDriver:SwitchToWindow", handle=home, focus=False)
            top = shown.get("top")
            if shown.get("same") and top is not None and 0 <= top < shown["viewport"]:
                return (time.monotonic() - started) * 1000
        time.sleep(0.1)
    pytest.fail(f"no tab shows the quote {quote!r} in view: {shown} (tab {tab})")


@pytest.mark.parametrize("index", range(page_count()))
def test_firefox_save_page_and_ask_about_a_real_page(
    index: int,
    pages: list[RealPage],
    proxy: Proxy,
    firefox: tuple[FirefoxPanel, Path],
    firefox_timings: Timings,
) -> None:
    page = pages[index]
    panel, log = firefox
    since = panel.now()
    heard = len(tap_records(log))
    use_collection(panel, f"Firefox page {index:02d}")
    home = panel.call("WebDriver:GetWindowHandle")["value"]
    tab = panel.call("WebDriver:NewWindow", type="tab", focus=True)["handle"]
    try:
        panel.call("WebDriver:SwitchToWindow", handle=tab)
        panel.call("WebDriver:Navigate", url=page.url)
        panel.call("WebDriver:SwitchToWindow", handle=home)
        assert proxy.served[-1] == page.url, "the page did not come from the proxy"
        save_page(panel, firefox_timings, page)
        question = page.question(saved_text(panel))
        answer = ask_about_page(panel, firefox_timings, page, question)
        chip = next((chip for chip in answer["chips"] if chip["state"] == "verified"), None)
        if chip is not None:
            firefox_timings.add("chip to quote", firefox_chip(panel, tab, chip), page.name)
    finally:
        for handle in panel.call("WebDriver:GetWindowHandles"):
            if handle != home:
                panel.call("WebDriver:SwitchToWindow", handle=handle)
                panel.call("WebDriver:CloseWindow")
        panel.call("WebDriver:SwitchToWindow", handle=home)
    problems = panel.problems(since)
    records = tap_records(log)[heard:]
    assert problems == [], problems
    assert refused(records) == [], refused(records)
    sent = {r.get("type") for r in records if r["dir"] == "request"}
    assert {"sources.save_page", "page.summarize"} <= sent, sent
