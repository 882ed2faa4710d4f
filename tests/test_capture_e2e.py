"""`extension/lib/capture.js` in real Chromium, saved by a real host.

The serializer is injected the way `chrome.scripting.executeScript({func})` injects it: only
the function's source text (`func.toString()`, read with node), run in an isolated world of
the page, so a helper that leaked out of the function would fail here. Its result goes to a
real `laika` host over native-messaging frames, and the stored Markdown is checked: what the
user sees is kept (shadow DOM, a same-origin frame, closed details, lazy images' real URLs),
what is not rendered is not. The last test goes through the extension itself:
`globalThis.laika.savePage` in the background service worker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capture_site import (
    DROPPED,
    KEPT,
    LAZY_IMAGE,
    PRIVATE_TEXT,
    SESSION_COOKIE,
    SRCSET_LARGE,
    Site,
    serve_site,
)
from cdp_pipe import HEADLESS_FLAGS, DevTools
from native_client import Client, HostProcess
from support import REPO, SCHEMA_DIR

pytestmark = pytest.mark.browser  # every test here starts Chromium or Firefox

CAPTURE_JS = REPO / "extension" / "lib" / "capture.js"
CHROMIUM = "/usr/lib/chromium/chromium"
SAVE_KEYS = set(
    json.loads((SCHEMA_DIR / "native/types/sources.save_page.payload.schema.json").read_text())[
        "properties"
    ]
)
"""What this host's `sources.save_page` accepts (it rejects unknown keys)."""


def _need(binary: str | None, name: str) -> str:
    if binary and os.path.exists(binary):
        return binary
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed; .ci/run must apt-get install it")
    pytest.skip(f"{name} is not installed here (CI installs it; apt-get install {name})")


def page_function(name: str) -> str:
    """The source text of one exported function of capture.js, as executeScript sends it."""
    node = _need(shutil.which("node"), "nodejs")
    script = (
        "import(require('url').pathToFileURL(process.argv[1]))"
        f".then((m) => process.stdout.write(m.{name}.toString()))"
    )
    done = subprocess.run(
        [node, "-e", script, str(CAPTURE_JS)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


class Browser:
    """Headless Chromium over the CDP pipe; `open` gives a page to run functions in."""

    def __init__(self, profile: Path) -> None:
        chromium = _need(CHROMIUM, "chromium")
        args = [*HEADLESS_FLAGS, f"--user-data-dir={profile}", "about:blank"]
        self.devtools = DevTools(chromium, args, dict(os.environ), timeout=60)

    def open(self, url: str) -> str:
        """A session attached to a new tab that has loaded `url` (frames included)."""
        target = self.devtools.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.devtools.call("Target.attachToTarget", targetId=target, flatten=True)
        session_id = str(session["sessionId"])
        self.navigate(session_id, url)
        return session_id

    def navigate(self, session_id: str, url: str) -> None:
        self.devtools.call("Page.navigate", session_id, url=url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            state = self.evaluate(session_id, "[location.href, document.readyState]")
            if state == [url, "complete"]:
                return
            time.sleep(0.05)
        pytest.fail(f"{url} did not load within 30 s")

    def evaluate(self, session_id: str, expression: str, context: int | None = None) -> Any:
        params: dict[str, object] = {"expression": expression, "returnByValue": True}
        if context is not None:
            params["contextId"] = context
        reply = self.devtools.call("Runtime.evaluate", session_id, **params)
        if "exceptionDetails" in reply:
            pytest.fail(f"the page threw: {json.dumps(reply['exceptionDetails'])[:2000]}")
        result = reply["result"]
        assert isinstance(result, dict)
        return result.get("value")

    def run_isolated(self, session_id: str, function: str, *args: object) -> Any:
        """`function(...args)` in a fresh isolated world (as content scripts run), timed in
        the page: the result, with `ms` added when it is an object."""
        tree = self.devtools.call("Page.getFrameTree", session_id)["frameTree"]
        assert isinstance(tree, dict)
        world = self.devtools.call(
            "Page.createIsolatedWorld", session_id, frameId=tree["frame"]["id"]
        )
        arguments = ", ".join(json.dumps(arg) for arg in args)
        expression = (
            f"(() => {{ const run = ({function}); const started = performance.now();"
            f" const result = run({arguments}); const ms = performance.now() - started;"
            " return result && typeof result === 'object' && !Array.isArray(result)"
            " ? { ...result, ms } : result; })()"
        )
        return self.evaluate(session_id, expression, context=int(world["executionContextId"]))

    def close(self) -> None:
        self.devtools.close()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_site() as served:
        yield served


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    opened = Browser(tmp_path_factory.mktemp("capture-profile"))
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="module")
def serialize_page() -> str:
    return page_function("serializePage")


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Client]:
    process = HostProcess(tmp_path / "laika-home")
    try:
        yield Client(process)
    finally:
        process.close()


def save_and_get(host: Client, page: dict[str, Any], collection: str) -> dict[str, Any]:
    """Save the serialized page through the host, return its stored source (sources.get)."""
    payload = {key: value for key, value in page.items() if key in SAVE_KEYS}
    saved = host.call("sources.save_page", {**payload, "collection": collection})
    assert saved["ok"], saved
    got = host.call("sources.get", {"source_id": saved["result"]["source"]["id"]})
    assert got["ok"], got
    result = got["result"]
    assert isinstance(result, dict)
    return result


def test_serializer_keeps_what_the_user_sees(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    url = f"{site.base}/notes/observatory?ref=feed"
    session = browser.open(url)
    page = browser.run_isolated(session, serialize_page, {"mode": "auto"})
    html = page["html"]
    assert page["url"] == url
    assert page["title"] == "Observatory notes"
    assert page["canonical_url"] == f"{site.base}/notes/observatory"
    assert page["lang"] == "en-GB"
    assert page["mode"] == "auto"
    assert page["truncated"] is False
    assert page["selection_html"] is None
    for name, phrase in KEPT.items():
        assert phrase in html, f"{name}: {phrase!r} is on screen but not serialized"
    for name, phrase in DROPPED.items():
        assert phrase not in html, f"{name}: {phrase!r} is not on screen but was serialized"
    assert f'src="{site.base}{LAZY_IMAGE}"' in html
    assert f'src="{site.base}{SRCSET_LARGE}"' in html
    assert "data:image/gif" not in html
    assert "srcset" not in html
    assert "onclick" not in html
    assert "<style" not in html
    assert "stylesheet" not in html
    assert "<details open>" in html
    assert f'data-laika-frame="{site.base}/frame"' in html

    source = save_and_get(host, page, "Observatory")
    markdown = source["markdown"]
    for name, phrase in KEPT.items():
        assert phrase in markdown, f"{name}: {phrase!r} not stored:\n{markdown}"
    for name, phrase in DROPPED.items():
        assert phrase not in markdown, f"{name}: {phrase!r} stored:\n{markdown}"
    media = {item["url"] for item in source["media"]}
    assert {f"{site.base}{LAZY_IMAGE}", f"{site.base}{SRCSET_LARGE}"} <= media, media


def test_a_page_behind_a_session_cookie_is_saved_as_the_user_sees_it(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    session = browser.open(f"{site.base}/private")
    assert "Sign in first" in browser.evaluate(session, "document.body.textContent")
    name, value = SESSION_COOKIE.split("=", 1)
    browser.devtools.call("Network.setCookie", session, name=name, value=value, url=site.base)
    browser.navigate(session, f"{site.base}/private")
    page = browser.run_isolated(session, serialize_page, {})
    assert PRIVATE_TEXT in page["html"]
    source = save_and_get(host, page, "Private")
    assert source["title"] == "Private charts"
    assert PRIVATE_TEXT in source["markdown"]


def test_a_one_megabyte_page_serializes_in_linear_time(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    timings: dict[str, float] = {}
    for path in ("/long", "/long2"):
        session = browser.open(f"{site.base}{path}")
        size = browser.evaluate(session, "document.documentElement.outerHTML.length")
        runs = [browser.run_isolated(session, serialize_page, {}) for _ in range(3)]
        page = runs[-1]
        assert page["truncated"] is False
        assert len(page["html"]) >= 0.9 * size  # the article is all visible: nearly all kept
        timings[path] = min(run["ms"] for run in runs)
    print(f"serializePage: 1 MB page {timings['/long']:.0f} ms, 2 MB {timings['/long2']:.0f} ms")
    assert timings["/long"] < 2000  # goal: < 1 s; generous for 2 shared cores
    assert timings["/long2"] < 3.5 * max(timings["/long"], 50)  # linear, not quadratic
    source = save_and_get(host, page, "Survey")
    assert "Survey paragraph 1 describes field 7" in source["markdown"]


@pytest.mark.parametrize(
    ("options", "bound"),
    [({"maxNodes": 500}, "maxNodes"), ({"maxChars": 20_000}, "maxChars")],
)
def test_budgets_cut_the_page_into_well_formed_html(
    browser: Browser, site: Site, serialize_page: str, options: dict[str, int], bound: str
) -> None:
    session = browser.open(f"{site.base}/long")
    page = browser.run_isolated(session, serialize_page, options)
    assert page["truncated"] is True, bound
    html = page["html"]
    if bound == "maxChars":
        assert len(html) <= options["maxChars"] + 200  # + the closing tags of open elements
    else:
        assert html.count("<p>") <= options["maxNodes"]
    assert html.startswith("<!DOCTYPE html>")
    assert html.endswith("</article></body></html>")
    # the browser's own parser reads it back as written: nothing left open or misnested
    reparsed = browser.evaluate(
        session,
        "(() => { const doc = new DOMParser().parseFromString("
        f"{json.dumps(html)}, 'text/html'); return doc.body.outerHTML; }})()",
    )
    assert html.endswith(reparsed + "</html>")


HOSTILE_SHAPES = """(() => {
  let node = document.body.appendChild(document.createElement("div"));
  for (let i = 0; i < 1000; i++) node = node.appendChild(document.createElement("div"));
  node.textContent = "deepest words";
  const image = document.body.appendChild(document.createElement("img"));
  image.setAttribute("srcset", "a.jpg " + "(".repeat(4000) + "," + ",".repeat(4000));
  const other = document.body.appendChild(document.createElement("img"));
  other.setAttribute("srcset", ",".repeat(4000) + " b.jpg 2x " + " ".repeat(4000));
})()"""
"""A deep tree (the HTML parser stops nesting at 512; script does not. Chromium's own
rendering stalls for minutes on a 4,000-deep one, so 1,000 it is: the serializer itself keeps
an explicit stack, no recursion) and srcset values made of what a backtracking parser
chokes on."""


def test_hostile_shapes_serialize_in_one_linear_pass(
    browser: Browser, site: Site, serialize_page: str
) -> None:
    session = browser.open(f"{site.base}/frame")
    browser.evaluate(session, HOSTILE_SHAPES)
    page = browser.run_isolated(session, serialize_page, {})
    assert page["truncated"] is False
    assert "deepest words" in page["html"]
    assert page["html"].count("<div>") == 1001
    assert f'src="{site.base}/b.jpg"' in page["html"]
    assert page["ms"] < 2000, page["ms"]  # one pass (here: ~60 ms)


# --- property: the serialized text is exactly the text the page renders ----------------------

HIDERS = {
    "plain": ("", None),
    "display-none": (' style="display: none"', "gone"),
    "hidden-attribute": (" hidden", "gone"),
    "aria-hidden": (' aria-hidden="true"', "gone"),
    "visibility-hidden": (' style="visibility: hidden"', "hidden"),
    "visibility-visible": (' style="visibility: visible"', "visible"),
}


@st.composite
def styled_trees(draw: st.DrawFn, depth: int = 3) -> tuple[str, list[str], list[str]]:
    """(html, all words, words on screen) for a random tree of styled blocks and spans."""
    counter = [0]

    def word() -> str:
        counter[0] += 1
        return f"w{counter[0]}x"

    def node(level: int, shown: bool, visible: bool) -> tuple[str, list[str], list[str]]:
        tag = draw(st.sampled_from(["div", "span", "section", "em"] if level else ["div"]))
        attribute, effect = HIDERS[draw(st.sampled_from(sorted(HIDERS)))]
        shown = shown and effect != "gone"
        visible = {"hidden": False, "visible": True}.get(effect or "", visible)
        parts, every, seen = [], [], []
        for _ in range(draw(st.integers(0 if level < depth else 1, 3))):
            if level < depth and draw(st.booleans()):
                html, all_words, on_screen = node(level + 1, shown, visible)
            else:
                text = word()
                html, all_words = f" {text} ", [text]
                on_screen = [text] if shown and visible else []
            parts.append(html)
            every += all_words
            seen += on_screen
        return f"<{tag}{attribute}>{''.join(parts)}</{tag}>", every, seen

    return node(0, True, True)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(tree=styled_trees())
def test_serialized_words_are_the_rendered_words(
    browser: Browser, site: Site, serialize_page: str, tree: tuple[str, list[str], list[str]]
) -> None:
    html, every, on_screen = tree
    session = _blank_session(browser, site)
    browser.evaluate(session, f"document.body.innerHTML = {json.dumps(html)}")
    page = browser.run_isolated(session, serialize_page, {})
    words = [w for w in lxml.html.fromstring(page["html"]).text_content().split() if w in every]
    assert words == on_screen


_SESSIONS: dict[int, str] = {}


def _blank_session(browser: Browser, site: Site) -> str:
    """One reusable page on the fixture origin per browser (a tab per example is slow)."""
    if id(browser) not in _SESSIONS:
        _SESSIONS[id(browser)] = browser.open(f"{site.base}/frame")
    return _SESSIONS[id(browser)]


# --- selection ---------------------------------------------------------------------------------


def _select(browser: Browser, session: str, start: str, end: str) -> None:
    """Select from the start of the first element matching `start` to the end of `end`."""
    browser.evaluate(
        session,
        "(() => { const range = document.createRange();"
        f" range.setStartBefore(document.querySelector({json.dumps(start)}));"
        f" range.setEndAfter(document.querySelector({json.dumps(end)}));"
        " const selection = getSelection(); selection.removeAllRanges();"
        " selection.addRange(range); })()",
    )


def test_selection_mode_sends_only_the_visible_selection(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    session = browser.open(f"{site.base}/notes/observatory")
    _select(browser, session, "article h1", "div.ghost")
    page = browser.run_isolated(session, serialize_page, {"mode": "selection"})
    selection = page["selection_html"]
    assert selection is not None
    assert "Observatory notes" in selection
    assert KEPT["shadow"] in selection
    assert KEPT["visible_child"] in selection
    for name in ("display", "attribute", "aria", "visibility"):
        assert DROPPED[name] not in selection
    assert KEPT["details"] not in selection  # after the selection's end
    assert "Station office" not in selection
    stored = save_and_get(host, page, "Selections")
    assert "Observatory notes" in stored["markdown"]
    assert KEPT["details"] not in stored["markdown"]


def test_selection_links_are_absolute_http_and_deduplicated(browser: Browser, site: Site) -> None:
    session = browser.open(f"{site.base}/long")
    _select(browser, session, "article p:nth-of-type(1)", "article p:nth-of-type(3)")
    links = browser.run_isolated(session, page_function("selectionLinks"))
    assert links == [
        {"url": f"{site.base}/field/{n}", "text": "brightest stars"} for n in (1, 2, 3)
    ]


# --- through the extension: globalThis.laika.savePage in the background ------------------------

EXTENSION = REPO / "extension"
BACKGROUND_SAVES_WITH_CAPTURE = "lib/capture.js" in (EXTENSION / "background.js").read_text()


def _stored_markdown(worker: _Worker, source_id: str) -> str:
    got = worker.evaluate(f"globalThis.laika.request('sources.get', {{source_id: {source_id!r}}})")
    return str(got["markdown"])


class _Worker:
    """The extension's background service worker, reached over CDP."""

    def __init__(self, devtools: DevTools, extension_id: str) -> None:
        self.devtools = devtools
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            infos = devtools.call("Target.getTargets")["targetInfos"]
            assert isinstance(infos, list)
            workers = [
                info
                for info in infos
                if info["type"] == "service_worker"
                and str(info["url"]).startswith(f"chrome-extension://{extension_id}/")
            ]
            if workers:
                attached = devtools.call(
                    "Target.attachToTarget", targetId=workers[0]["targetId"], flatten=True
                )
                self.session = str(attached["sessionId"])
                return
            time.sleep(0.2)
        pytest.fail("the extension's service worker did not start within 30 s")

    def evaluate(self, expression: str) -> Any:
        reply = self.devtools.call(
            "Runtime.evaluate",
            self.session,
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
        )
        if "exceptionDetails" in reply:
            pytest.fail(f"the background threw: {json.dumps(reply['exceptionDetails'])[:2000]}")
        result = reply["result"]
        assert isinstance(result, dict)
        return result.get("value")


def _wait_for_host_log(home: Path, text: str, devtools: DevTools) -> None:
    log = home / "logs" / "host.log"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        if devtools.process.poll() is not None:
            pytest.fail(f"Chromium exited early with {devtools.process.returncode}")
        time.sleep(0.2)
    pytest.fail(f"no {text!r} in the host log within 60 s")


@pytest.mark.xfail(
    not BACKGROUND_SAVES_WITH_CAPTURE,
    reason="needs i13/panel (background.js importing lib/capture.js, savePage(tabId, options))",
    strict=False,
)
def test_save_page_through_the_extension_keeps_what_the_user_sees(
    tmp_path: Path, site: Site
) -> None:
    from laika_host.native.browsers import DEV_EXTENSION_ID

    from support import run_laika

    chromium = _need(CHROMIUM, "chromium")
    home, profile = tmp_path / "laika-home", tmp_path / "profile"
    env = {**os.environ, "LAIKA_HOME": str(home)}
    installed = run_laika(
        "install", "--browser", "chromium", "--user-data-dir", str(profile), env=env
    )
    assert installed.returncode == 0, installed.stderr
    url = f"{site.base}/notes/observatory"
    devtools = DevTools(
        chromium,
        [
            *HEADLESS_FLAGS,
            "--enable-unsafe-extension-debugging",
            f"--user-data-dir={profile}",
            f"--load-extension={EXTENSION}",
            f"--disable-extensions-except={EXTENSION}",
            url,
        ],
        env,
        timeout=30,
    )
    try:
        _wait_for_host_log(home, "host.ping", devtools)  # the background has started
        worker = _Worker(devtools, DEV_EXTENSION_ID)
        tab_id = worker.evaluate(
            "(async () => { for (let i = 0; i < 300; i++) {"
            " const tabs = await chrome.tabs.query({});"
            f" const tab = tabs.find((t) => t.url === {json.dumps(url)} && t.status === 'complete');"
            " if (tab) return tab.id; await new Promise((r) => setTimeout(r, 100)); }"
            " return null; })()"
        )
        assert isinstance(tab_id, int), "the fixture tab did not load"
        saved = worker.evaluate(
            f"globalThis.laika.savePage({tab_id}, {{collection: 'Observatory', mode: 'auto'}})"
        )
        assert saved["outcome"] == "new", saved
        assert saved["source"]["title"] == "Observatory notes"
        markdown = _stored_markdown(worker, saved["source"]["id"])
        media = worker.evaluate(
            "globalThis.laika.request('sources.get', "
            f"{{source_id: {saved['source']['id']!r}}}).then((s) => s.media.map((m) => m.url))"
        )
    finally:
        devtools.close()
    for name, phrase in KEPT.items():
        assert phrase in markdown, f"{name}: {phrase!r} not stored:\n{markdown}"
    for name, phrase in DROPPED.items():
        assert phrase not in markdown, f"{name}: {phrase!r} stored:\n{markdown}"
    assert {f"{site.base}{LAZY_IMAGE}", f"{site.base}{SRCSET_LARGE}"} <= set(media)


# --- Firefox: the same API in the background page, reached through Marionette -------------------

FIREFOX_SAVE = """
const [url, collection, resolve] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const { ExtensionParent } = ChromeUtils.importESModule(
  "resource://gre/modules/ExtensionParent.sys.mjs");
const extension = ExtensionParent.GlobalManager.getExtension(arguments[2]);
const background = extension && [...extension.views].find((view) => view.viewType === "background");
const page = background?.xulBrowser?.contentWindow?.wrappedJSObject;
if (!page?.laika) { resolve({ waiting: "the background has not started" }); return; }
const plain = (value) => JSON.parse(page.JSON.stringify(value));  // out of the page's compartment
const into = (value) => Cu.cloneInto(value, page);
(async () => {
  const tabs = plain(await page.browser.tabs.query(into({})));
  const tab = tabs.find((t) => t.url === url && t.status === "complete");
  if (!tab) return { waiting: "the fixture tab has not loaded" };
  const saved = plain(await page.laika.savePage(tab.id, into({ collection, mode: "auto" })));
  const source = plain(await page.laika.request("sources.get", into({ source_id: saved.source.id })));
  return { saved, markdown: source.markdown, media: source.media.map((item) => item.url) };
})().then(resolve, (error) => resolve({ error: String(error) }));
"""
"""Runs privileged in Firefox's parent process: find the extension's background page and call
globalThis.laika there, as the Chromium test does in the service worker."""


@pytest.mark.xfail(
    not BACKGROUND_SAVES_WITH_CAPTURE,
    reason="needs i13/panel (background.js importing lib/capture.js, savePage(tabId, options))",
    strict=False,
)
def test_firefox_save_page_through_the_extension(tmp_path: Path, site: Site) -> None:
    from laika_host.native.browsers import GECKO_ID
    from test_browser_e2e import FIREFOX, _firefox_profile

    from marionette import Marionette, active_port
    from support import run_laika

    firefox = _need(FIREFOX, "firefox-esr")
    home, user_home = tmp_path / "laika-home", tmp_path / "home"
    user_home.mkdir()
    env = {**os.environ, "LAIKA_HOME": str(home), "HOME": str(user_home), "MOZ_HEADLESS": "1"}
    installed = run_laika("install", "--browser", "firefox", env=env)
    assert installed.returncode == 0, installed.stderr
    profile = _firefox_profile(tmp_path)
    with (profile / "user.js").open("a") as prefs:
        prefs.write('user_pref("marionette.port", 0);\n')  # any free port, written to the profile
        # the background page in the parent process, where Marionette's chrome scope reaches it
        prefs.write('user_pref("extensions.webextensions.remote", false);\n')
    url = f"{site.base}/notes/observatory"
    command = [firefox, "--headless", "--no-remote", "--marionette", "-remote-allow-system-access"]
    browser = subprocess.Popen(
        [*command, "--profile", str(profile), url],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        marionette = Marionette(active_port(profile))
        marionette.call("WebDriver:NewSession", capabilities={})
        marionette.call("Marionette:SetContext", value="chrome")
        deadline = time.monotonic() + 60
        while True:
            reply = marionette.call(
                "WebDriver:ExecuteAsyncScript",
                script=FIREFOX_SAVE,
                args=[url, "Observatory", GECKO_ID],
                scriptTimeout=60_000,
            )["value"]
            if "waiting" not in reply or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        marionette.close()
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait()
    assert "saved" in reply, reply
    assert reply["saved"]["outcome"] == "new"
    assert reply["saved"]["source"]["title"] == "Observatory notes"
    markdown = reply["markdown"]
    for name, phrase in KEPT.items():
        assert phrase in markdown, f"{name}: {phrase!r} not stored:\n{markdown}"
    for name, phrase in DROPPED.items():
        assert phrase not in markdown, f"{name}: {phrase!r} stored:\n{markdown}"
    assert {f"{site.base}{LAZY_IMAGE}", f"{site.base}{SRCSET_LARGE}"} <= set(reply["media"])
