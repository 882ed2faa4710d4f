"""The side panel in real headless Firefox ESR (where it runs as a sidebar), with the real
extension side-loaded and the real host installed in a tmp HOME / LAIKA_HOME: the panel page is
opened as a tab at its fixed moz-extension:// address and driven through Marionette in that
tab's content context, as the Chromium tests drive it over CDP. Errors are read from Firefox's
console service in the chrome context, console.error calls by a watch in the panel.
One browser serves the module; each test sets up the state it checks."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from laika_host.demo.pages import PAGES
from laika_host.native.install.browsers import GECKO_ID
from panel_actions import PanelActions
from test_browser_e2e import FIREFOX, _firefox_profile, _need
from test_sidepanel_tools_e2e import (
    CLICK,
    OBSERVE,
    ScriptedServer,
    answering,
    proposing,
    script,
    told,
)

from html_server import serve
from marionette import Marionette, active_port
from support import REPO, run_laika

pytestmark = pytest.mark.browser  # every test here starts Firefox

UUID = "6a1f3c2e-9b7d-4e58-a0c4-1d2e3f405162"  # fixed by extensions.webextensions.uuids
ORIGIN = f"moz-extension://{UUID}"
PANEL_URL = f"{ORIGIN}/sidepanel/panel.html"
CONNECTED = "extension connected: ping ok"
SCREENSHOT = REPO / "tests" / "screenshots" / "firefox-settings-proposal.png"

PROBLEMS = """
const [origin, since] = arguments;
const errors = [];
const panel = [...Services.wm.getEnumerator("navigator:browser")]
  .flatMap((win) => win.gBrowser.browsers)
  .filter((b) => b.currentURI.spec.startsWith(origin))
  .map((b) => b.browsingContext.currentWindowGlobal?.innerWindowId);
const ours = (source, windowId) => (source || "").startsWith(origin) || panel.includes(windowId);
for (const message of Services.console.getMessageArray() || []) {
  if (!(message instanceof Ci.nsIScriptError) || message.timeStamp < since) continue;
  if (message.flags & (Ci.nsIScriptError.warningFlag | Ci.nsIScriptError.infoFlag)) continue;
  if (ours(message.sourceName, message.innerWindowID) || message.category.includes("CSP"))
    errors.push(`${message.category}: ${message.errorMessage} (${message.sourceName}:${message.lineNumber})`);
}
return errors;
"""
"""Errors, uncaught exceptions and CSP violations of the extension's pages (by URL or by the
panel tab's window) since `since` (ms since the epoch), from the parent's console service,
which the extension process forwards its script errors to."""


WATCH = """(() => {
  const seen = (window.__laikaWatch = []);
  const original = window.console.error;
  window.console.error = (...args) => { seen.push("console.error: " + args.map(String).join(" ")); original.apply(window.console, args); };
  document.addEventListener("securitypolicyviolation",
    (event) => seen.push("csp: " + event.violatedDirective + " " + event.blockedURI));
  return true; })()"""
"""console.error calls and CSP violations in the panel tab, from once it has started: Firefox
keeps an extension page's console API calls in the extension's own process, out of reach of
the parent's console API storage (its uncaught errors do reach the parent's console service)."""


class FirefoxPanel(PanelActions):
    """Firefox with the extension and the host; the panel open in its one tab."""

    def __init__(
        self,
        root: Path,
        env: dict[str, str],
        prefs: dict[str, object] | None = None,
        prepare: Callable[[Path], object] | None = None,
    ) -> None:
        """`prefs` go into the profile's user.js; `prepare(manifest)` runs once the host is
        installed, before Firefox starts."""
        firefox = _need(FIREFOX, "firefox-esr")
        self.home, user_home = root / "laika-home", root / "home"
        user_home.mkdir()
        self.env = {
            **os.environ,
            "LAIKA_HOME": str(self.home),
            "HOME": str(user_home),
            "MOZ_HEADLESS": "1",
            **env,
        }
        installed = run_laika("install", "--browser", "firefox", env=self.env)
        assert installed.returncode == 0, installed.stderr
        if prepare is not None:
            prepare(user_home / ".mozilla" / "native-messaging-hosts" / "com.laika.host.json")
        profile = _firefox_profile(root)
        uuids = json.dumps(json.dumps({GECKO_ID: UUID}))
        with (profile / "user.js").open("a") as written:
            written.write('user_pref("marionette.port", 0);\n')  # any free port, in the profile
            written.write(f'user_pref("extensions.webextensions.uuids", {uuids});\n')
            for name, value in (prefs or {}).items():
                written.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        self.output = (root / "firefox.out").open("wb")  # Firefox's own chatter, for a failure
        self.process = subprocess.Popen(
            [
                firefox,
                "--headless",
                "--no-remote",
                "--marionette",
                "-remote-allow-system-access",  # the chrome context, where the console is read
                "--profile",
                str(profile),
                "about:blank",
            ],
            env=self.env,
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )
        self.profile = profile
        self.marionette: Marionette | None = None

    def start(self) -> None:
        """Connect, wait for the extension's pong, open the panel: once the host is connected."""
        self.marionette = Marionette(active_port(self.profile, 90), timeout=120)
        self.call("WebDriver:NewSession", capabilities={})
        self.wait_for_log(CONNECTED, 90)
        self.call("WebDriver:SetWindowRect", width=800, height=900)
        self.call("WebDriver:Navigate", url=PANEL_URL)
        self.wait("document.body.dataset.ready === 'true'", what="the panel to start")
        self.wait("document.body.dataset.host === 'connected'", what="the host 'connected'")
        self.eval(WATCH)

    def call(self, command: str, **params: object) -> Any:
        assert self.marionette is not None, "start() first"
        return self.marionette.call(command, **params)

    def log_text(self) -> str:
        log = self.home / "logs" / "host.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def wait_for_log(self, text: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in self.log_text():
                return
            if self.process.poll() is not None:
                pytest.fail(f"Firefox exited early with {self.process.returncode}")
            time.sleep(0.2)
        pytest.fail(f"no {text!r} in the host log after {seconds} s:\n{self.log_text()[-2000:]}")

    def eval(self, expression: str) -> Any:
        """`expression`'s value in the panel tab (a promise is awaited)."""
        reply = self.call("WebDriver:ExecuteScript", script=f"return ({expression});", args=[])
        return reply["value"]

    def now(self) -> float:
        """Firefox's clock (ms since the epoch): where `problems` starts counting."""
        return float(self.eval("Date.now()"))

    def problems(self, since: float) -> list[str]:
        self.call("Marionette:SetContext", value="chrome")
        try:
            found = self.call("WebDriver:ExecuteScript", script=PROBLEMS, args=[ORIGIN, since])[
                "value"
            ]
        finally:
            self.call("Marionette:SetContext", value="content")
        watch = self.eval("window.__laikaWatch")
        return [str(line) for line in found] + [str(line) for line in watch]

    def screenshot(self, path: Path) -> None:
        shot = self.call("WebDriver:TakeScreenshot", full=False)["value"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(str(shot)))

    def cli(self, *args: str) -> str:
        done = run_laika(*args, env=self.env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def close(self) -> None:
        """Quit the Firefox this object started (terminate it if Marionette cannot)."""
        if self.marionette is not None:
            with contextlib.suppress(OSError, pytest.fail.Exception):  # gone: terminated below
                self.call("Marionette:Quit", flags=["eForceQuit"])
            self.marionette.close()
        else:
            self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.output.close()


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirefoxPanel]:
    # the host checks the registry 5x a second instead of once: the tests wait less
    started = FirefoxPanel(
        tmp_path_factory.mktemp("firefox-panel"), {"LAIKA_CONFIG_POLL_SECONDS": "0.2"}
    )
    try:
        started.start()
        yield started
    finally:
        started.close()


def test_the_error_watch_sees_what_the_panel_reports(panel: FirefoxPanel) -> None:
    """What every other test's `problems(...) == []` rests on: an uncaught error thrown in the
    panel's page and a console.error there are both seen, and nothing else is."""
    since = panel.now()
    panel.eval("(window.console.error('laika-probe-console'), true)")
    panel.eval("(setTimeout(() => { throw new Error('laika-probe-throw'); }), true)")
    deadline = time.monotonic() + 10
    found: list[str] = []
    while time.monotonic() < deadline and len(found) < 2:
        found = panel.problems(since)
        time.sleep(0.1)
    assert len(found) == 2, found
    assert any("laika-probe-console" in line for line in found), found
    assert any("laika-probe-throw" in line and PANEL_URL in line for line in found), found
    panel.eval("(window.__laikaWatch.length = 0, true)")


# --- the "Change a setting" box: settings.ask with the offline intent matcher --------------------

DARK_BG = "rgb(22, 25, 29)"  # panel.css --bg under data-theme="dark"
LIGHT_BG = "rgb(255, 255, 255)"
CARD = "#settings-ask-calls .tool-call"


def shows(panel: FirefoxPanel, theme: str, background: str) -> None:
    panel.wait(
        f"document.documentElement.dataset.theme === '{theme}' &&"
        f" getComputedStyle(document.body).backgroundColor === '{background}'",
        seconds=15,
        what=f"the panel in its {theme} theme",
    )


def ask(panel: FirefoxPanel, text: str) -> None:
    """Type `text` into the box and press Send."""
    panel.click("#tab-settings")
    panel.wait("!document.querySelector('#settings-ask-text').disabled", what="the box free")
    panel.type("#settings-ask-text", text)
    panel.click("#settings-ask-send")


def outcome(panel: FirefoxPanel, status: str) -> str:
    panel.wait(
        f"document.querySelector('#settings-ask-outcome').dataset.status === '{status}'",
        what=f"a {status} outcome",
    )
    return str(panel.eval("document.querySelector('#settings-ask-outcome').textContent"))


def commits(panel: FirefoxPanel) -> int:
    return len(json.loads(panel.cli("config", "history", "--json"))["commits"])


def test_use_dark_theme_waits_for_approve_then_a_cli_change_reaches_the_open_panel(
    panel: FirefoxPanel,
) -> None:
    since = panel.now()
    panel.cli("config", "set", "ui.theme", "light")
    shows(panel, "light", LIGHT_BG)
    panel.eval("(window.__laikaSamePage = true)")  # gone if the panel reloads
    ask(panel, "use dark theme")
    panel.wait(
        f"document.querySelector('{CARD}[data-status=pending] .tool-approve')", what="a card"
    )
    shown = panel.eval(
        f"""(() => {{ const card = document.querySelector('{CARD}');
        return {{tool: card.querySelector('code').textContent,
          said: card.querySelector('.tool-head .tool-summary').textContent,
          args: [...card.querySelectorAll('dt')].map(dt => [dt.textContent, dt.nextElementSibling.textContent]),
          focused: document.activeElement.classList.contains('tool-approve'),
          busy: document.querySelector('#settings-ask-text').disabled}}; }})()"""
    )
    assert shown == {
        "tool": "settings.set_theme",
        "said": "Switch the theme to dark",
        "args": [["theme", "dark"]],
        "focused": True,
        "busy": True,
    }, shown
    panel.eval("(window.scrollTo(0, 0), true)")  # the box heads the Settings view
    panel.screenshot(SCREENSHOT)
    shows(panel, "light", LIGHT_BG)  # nothing is applied before Approve
    panel.click(f"{CARD}[data-status=pending] .tool-approve")
    assert outcome(panel, "applied") == "Done: the theme is dark."
    shows(panel, "dark", DARK_BG)  # through config.changed: the registry changed, the host said so
    assert panel.eval("getComputedStyle(document.documentElement).colorScheme") == "dark"
    panel.cli("config", "set", "ui.theme", "light")  # another process, the same LAIKA_HOME
    shows(panel, "light", LIGHT_BG)
    assert panel.eval("window.__laikaSamePage") is True, "the panel was reloaded"
    assert panel.problems(since) == []


def test_disable_the_policy_gate_is_declined_with_the_tools_that_can(panel: FirefoxPanel) -> None:
    since = panel.now()
    before = commits(panel)
    ask(panel, "disable the policy gate")
    said = outcome(panel, "declined")
    assert said.startswith("Laika's settings can't do that: they never send data anywhere"), said
    assert "I can change " in said, said
    assert "settings." not in said, "no tool ids"
    assert "policy." not in said, "no tool ids"
    assert panel.eval("document.querySelector('#settings-can-change')") is None
    assert panel.eval(f"document.querySelector('{CARD}')") is None, "nothing was proposed"
    assert commits(panel) == before, "nothing changed"
    assert panel.problems(since) == []


# --- the Transforms view: an offline run and the artifact viewer ----------------------------------

DEMO = {"/" + page.url.rsplit("/", 1)[-1]: page for page in PAGES}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The demo pages, served on loopback."""
    with serve(lambda path: DEMO[path].html if path in DEMO else None) as url:
        yield url


def select(panel: FirefoxPanel, selector: str, label: str) -> None:
    """Pick the option whose text is `label`, as a user would."""
    done = panel.eval(
        f"(() => {{ const s = document.querySelector({json.dumps(selector)});"
        f" const o = [...s.options].find(o => o.textContent === {json.dumps(label)}); if (!o) return false;"
        " s.value = o.value; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()"
    )
    assert done, f"no option {label!r} in {selector}"


def test_an_offline_key_takeaways_run_opens_the_viewer_with_verified_chips(
    panel: FirefoxPanel, site: str
) -> None:
    since = panel.now()
    collection = f"Harbour {time.monotonic_ns()}"  # this test's own
    page = DEMO["/harbour-tides"]
    saved = panel.eval(
        "laikaPanel.request('sources.save_page', "
        f"{json.dumps({'url': site + '/harbour-tides', 'html': page.html, 'collection': collection})})"
    )
    assert saved["outcome"] == "new", saved
    panel.eval("(laikaPanel.emit('sources-changed'), true)")
    option = f"[...document.querySelectorAll('#collection option')].some(o => o.value === {json.dumps(collection)})"
    panel.wait(option, what="the new collection in the switcher")
    panel.eval(
        f"(() => {{ const s = document.querySelector('#collection'); s.value = {json.dumps(collection)};"
        " s.dispatchEvent(new Event('change')); return true; })()"
    )
    panel.click("#tab-transforms")
    card = "#transform-types .type-card[data-type='key-takeaways']"
    panel.wait(f"document.querySelector({json.dumps(card)})", what="the gallery")
    panel.click(card)
    panel.wait("!document.querySelector('#transform-form').hidden", what="the form")
    select(panel, "#transform-provider", "Offline runtime (no model)")
    panel.click("#transform-run")
    panel.wait(
        "!document.querySelector('#artifact-viewer').hidden || ['error', 'cancelled']"
        ".includes(document.querySelector('#transform-run-box').dataset.state)",
        seconds=60,
        what="the artifact viewer",
    )
    seen = panel.eval(
        """({state: document.querySelector('#transform-run-box').dataset.state,
        progress: document.querySelector('#transform-progress').textContent,
        body: document.querySelector('#artifact-body').textContent,
        markers: document.querySelectorAll('#artifact-body a.citation').length,
        chips: [...document.querySelectorAll('#artifact-chips .chip')].map(c => c.dataset.state)})"""
    )
    assert seen["state"] == "done", seen
    assert seen["chips"], seen
    assert set(seen["chips"]) == {"verified"}, seen["chips"]
    assert seen["markers"] > 0, seen
    assert "tide" in seen["body"].lower(), seen["body"]
    listed = panel.eval(
        f"laikaPanel.request('artifacts.list', {json.dumps({'collection': collection})})"
    )["artifacts"]
    assert [(a["type"], a["status"]) for a in listed] == [("key-takeaways", "completed")], listed
    stored = panel.eval(
        f"laikaPanel.request('artifacts.get', {json.dumps({'artifact_id': listed[0]['id']})})"
    )
    assert len(stored["citations"]) == len(seen["chips"])
    assert panel.problems(since) == []


# --- a tool approval in chat: a scripted loopback model proposes, the card waits ---------------

FORM = """<!doctype html><html><head><title>Counter form</title></head><body>
<h1>Counter form</h1><p>Clicks so far: <output id="count">0</output></p>
<button id="inc" type="button">Add one</button>
<script>let clicks = 0; document.getElementById("inc").addEventListener("click", () => {
  clicks += 1; document.getElementById("count").textContent = String(clicks); });</script>
</body></html>"""
LAST = ".msg.assistant:last-child"


@pytest.fixture(scope="module")
def model_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


@pytest.fixture
def form(panel: FirefoxPanel) -> Iterator[str]:
    """A fresh counter page in its own tab (the last web tab used: where the chat's tools run);
    yields its window handle, the panel's tab focused again."""
    page_for = {"/form": FORM, "/favicon.ico": (b"", "image/x-icon")}
    with serve(page_for.get) as url:
        home = panel.call("WebDriver:GetWindowHandle")["value"]
        tab = panel.call("WebDriver:NewWindow", type="tab", focus=True)["handle"]
        panel.call("WebDriver:SwitchToWindow", handle=tab)
        panel.call("WebDriver:Navigate", url=f"{url}/form")
        panel.call("WebDriver:SwitchToWindow", handle=home)
        yield tab
        panel.call("WebDriver:SwitchToWindow", handle=tab)
        panel.call("WebDriver:CloseWindow")
        panel.call("WebDriver:SwitchToWindow", handle=home)


def clicks(panel: FirefoxPanel, tab: str) -> str:
    home = panel.call("WebDriver:GetWindowHandle")["value"]
    panel.call("WebDriver:SwitchToWindow", handle=tab)
    try:
        return str(panel.eval("document.getElementById('count').textContent"))
    finally:
        panel.call("WebDriver:SwitchToWindow", handle=home)


def tool_card(panel: FirefoxPanel, tool: str, status: str) -> None:
    panel.wait(
        f"[...document.querySelectorAll('{LAST} .tool-call')].some(c =>"
        f" c.querySelector('code')?.textContent === '{tool}' && c.dataset.status === '{status}')",
        what=f"a {status} {tool} card",
    )


def test_a_chat_tool_call_waits_for_approve_then_clicks_in_the_page(
    panel: FirefoxPanel, form: str, model_server: ScriptedServer
) -> None:
    since = panel.now()
    collection = f"Counter {time.monotonic_ns()}"  # this test's own
    note = {"text": "The counter form has a button that adds one.", "collection": collection}
    panel.eval(f"laikaPanel.request('sources.add_note', {json.dumps(note)}).then(() => true)")
    panel.cli(
        "models", "add", "loop", "--kind", "openai_compatible", "--model", "recorder",
        "--base-url", model_server.url,
    )  # fmt: skip
    panel.click("#tab-settings")
    choice = (
        "[...document.querySelectorAll('#default-provider option')].some(o => o.value === 'loop')"
    )
    panel.wait(choice, seconds=15, what="the CLI's provider among the choices")
    panel.type("#default-provider", "loop")
    panel.eval("(laikaPanel.emit('sources-changed'), true)")
    option = f"[...document.querySelectorAll('#collection option')].some(o => o.value === {json.dumps(collection)})"
    panel.wait(option, what="the new collection in the switcher")
    panel.eval(
        f"(() => {{ const s = document.querySelector('#collection'); s.value = {json.dumps(collection)};"
        " s.dispatchEvent(new Event('change')); return true; })()"
    )
    asked = script(
        model_server, proposing(OBSERVE), proposing(CLICK), answering("Clicked: one click.")
    )
    panel.click("#tab-chat")
    before = int(panel.eval("document.querySelectorAll('.msg.assistant').length"))
    panel.type("#question", "Look at the page, then click its button.")
    panel.click("#ask")
    panel.wait(f"document.querySelectorAll('.msg.assistant').length > {before}", what="an answer")
    tool_card(panel, "browser.observe_dom", "pending")
    panel.click(f"{LAST} .tool-call[data-status=pending] .tool-approve")
    tool_card(panel, "browser.click", "pending")
    assert "Add one" in told(model_server, asked, 1), "the observation reached the model"
    assert clicks(panel, form) == "0", "nothing runs while the card waits"
    panel.click(f"{LAST} .tool-call[data-status=pending] .tool-approve")
    panel.wait(
        f"['done', 'error'].includes(document.querySelector('{LAST}').dataset.state)",
        seconds=60,
        what="the answer to finish",
    )
    answer = panel.eval(
        f"""(() => {{ const last = document.querySelector('{LAST}');
        return {{state: last.dataset.state, text: last.querySelector('.answer').textContent,
          calls: [...last.querySelectorAll('.tool-call')].map(c =>
            [c.querySelector('code').textContent, c.dataset.status])}}; }})()"""
    )
    assert answer == {
        "state": "done",
        "text": answer["text"],
        "calls": [["browser.observe_dom", "executed"], ["browser.click", "executed"]],
    }, answer
    assert answer["text"].startswith("Clicked"), answer
    assert clicks(panel, form) == "1"
    assert panel.problems(since) == []
