"""Real Chromium with the real extension and the real installed host, driven over the CDP pipe:
the side panel page opened in a tab, clicked like a user, watched for console errors, CSP
violations and script executions, and photographed at several widths and colour schemes."""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from laika_host.native.install.browsers import DEV_EXTENSION_ID
from panel_actions import PanelActions

from cdp_pipe import HEADLESS_FLAGS, DevTools
from support import REPO, run_laika

EXTENSION = REPO / "extension"
CHROMIUM = "/usr/lib/chromium/chromium"  # Debian's real binary (/usr/bin/chromium is a wrapper)
PANEL_URL = f"chrome-extension://{DEV_EXTENSION_ID}/sidepanel/panel.html"
CONNECTED = "extension connected: ping ok"

# Installed before any panel script runs: counts what a successful injection would do.
WATCH_SCRIPT = """
window.__laikaWatch = {dialogs: 0, csp: [], errors: []};
for (const name of ["alert", "confirm", "prompt", "print"]) {
  window[name] = () => { window.__laikaWatch.dialogs += 1; };
}
document.addEventListener("securitypolicyviolation", (event) => {
  window.__laikaWatch.csp.push(event.violatedDirective + " " + event.blockedURI);
});
window.addEventListener("error", (event) => window.__laikaWatch.errors.push(String(event.message)));
"""


def need_chromium() -> str:
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed; .ci/run must apt-get install it")
    pytest.skip("chromium is not installed here (CI installs it; apt-get install chromium)")


class Page(PanelActions):
    """One tab attached with a flat session: evaluate (wait, click and type come from
    `PanelActions`), screenshot."""

    def __init__(self, browser: PanelBrowser, target_id: str, session: str) -> None:
        self.browser = browser
        self.target_id = target_id
        self.session = session

    def call(self, method: str, **params: object) -> dict[str, Any]:
        return self.browser.devtools.call(method, session_id=self.session, **params)

    def eval(self, expression: str, timeout: float = 30) -> Any:
        reply = self.call(
            "Runtime.evaluate",
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
            timeout=int(timeout * 1000),
        )
        if "exceptionDetails" in reply:
            pytest.fail(f"{expression[:200]!r} threw: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def screenshot(self, path: Path, width: int, dark: bool) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=900,
            deviceScaleFactor=1,
            mobile=False,
        )
        scheme = "dark" if dark else "light"
        self.call(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": scheme}],
        )
        self.call("Page.bringToFront")  # a background tab paints no frame to capture
        time.sleep(0.15)  # one frame for the layout and the media query to settle
        shot = self.call("Page.captureScreenshot", format="png")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(str(shot["data"])))

    def problems(self) -> list[str]:
        """Console errors, exceptions, log errors and CSP violations seen in this tab."""
        found: list[str] = []
        for event in self.browser.devtools.events:
            if event.get("sessionId") != self.session:
                continue
            params = event.get("params", {})
            assert isinstance(params, dict)
            method = event["method"]
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails']}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(f"console.error: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"log: {params['entry'].get('text')}")
        watch = self.eval("window.__laikaWatch || null")
        if watch:
            found += [f"csp: {v}" for v in watch["csp"]] + [f"error: {e}" for e in watch["errors"]]
        return found


class PanelBrowser:
    """Chromium with `extension/` loaded and the host installed into its profile."""

    def __init__(
        self,
        root: Path,
        env: dict[str, str] | None = None,
        flags: tuple[str, ...] = (),
        prepare: Callable[[Path], object] | None = None,
    ) -> None:
        """`prepare(manifest)` runs once the host is installed, before Chromium starts."""
        chromium = need_chromium()
        self.home, self.profile = root / "laika-home", root / "profile"
        self.env = {**os.environ, "LAIKA_HOME": str(self.home), **(env or {})}
        installed = run_laika(
            "install", "--browser", "chromium", "--user-data-dir", str(self.profile), env=self.env
        )
        assert installed.returncode == 0, installed.stderr
        self.manifest = self.profile / "NativeMessagingHosts" / "com.laika.host.json"
        if prepare is not None:
            prepare(self.manifest)
        self.devtools = DevTools(
            chromium,
            [
                *HEADLESS_FLAGS,
                *flags,
                "--enable-unsafe-extension-debugging",
                f"--user-data-dir={self.profile}",
                f"--load-extension={EXTENSION}",
                f"--disable-extensions-except={EXTENSION}",
                "about:blank",
            ],
            self.env,
            timeout=90,
        )
        self.wait_for_log(CONNECTED, 90)

    @property
    def log(self) -> Path:
        return self.home / "logs" / "host.log"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_for_log(self, text: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in self.log_text():
                return
            if self.devtools.process.poll() is not None:
                pytest.fail(f"the browser exited early with {self.devtools.process.returncode}")
            time.sleep(0.2)
        pytest.fail(f"no {text!r} in the host log after {seconds} s:\n{self.log_text()[-2000:]}")

    def open(self, url: str, watch: bool = False) -> Page:
        """A new tab: attached first, then navigated, so no console message is missed."""
        target = str(self.devtools.call("Target.createTarget", url="about:blank")["targetId"])
        session = str(
            self.devtools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        )
        page = Page(self, target, session)
        for domain in ("Runtime", "Log", "Page"):
            page.call(f"{domain}.enable")
        if watch:
            page.call("Page.addScriptToEvaluateOnNewDocument", source=WATCH_SCRIPT)
        page.call("Page.navigate", url=url)
        page.wait("document.readyState === 'complete'", what=f"{url} to load")
        return page

    def open_panel(self) -> Page:
        panel = self.open(PANEL_URL, watch=True)
        panel.wait("document.body.dataset.ready === 'true'", what="the panel to start")
        return panel

    def worker(self) -> Page:
        """The extension's service worker (where globalThis.laika lives)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            infos = self.devtools.call("Target.getTargets")["targetInfos"]
            assert isinstance(infos, list)
            for info in infos:
                if info["type"] == "service_worker" and DEV_EXTENSION_ID in info["url"]:
                    session = self.devtools.call(
                        "Target.attachToTarget", targetId=info["targetId"], flatten=True
                    )["sessionId"]
                    return Page(self, str(info["targetId"]), str(session))
            time.sleep(0.2)
        pytest.fail("the extension's service worker did not start")

    def tab_urls(self) -> list[str]:
        infos = self.devtools.call("Target.getTargets", filter=[{"type": "page"}])["targetInfos"]
        assert isinstance(infos, list)
        return [str(info["url"]) for info in infos]

    def close(self) -> None:
        self.devtools.close()


SCREENSHOTS = REPO / "tests" / "screenshots"
WIDTHS = (360, 800)
"""The side panel's widths the issues name: narrow (the default panel) and wide."""


def connected_panel(browser: PanelBrowser) -> Page:
    """The side panel, once it shows the host connected."""
    page = browser.open_panel()
    page.wait("document.body.dataset.host === 'connected'", what="the host status 'connected'")
    return page


def open_transform_form(panel: Page, kind: str) -> None:
    """The Transforms tab with the form of `kind` open (from the gallery, or back to it)."""
    panel.click("#tab-transforms")
    card = json.dumps(f"#transform-types .type-card[data-type='{kind}']")
    panel.wait(
        f"document.querySelector({card}) && !document.querySelector({card}).disabled",
        what="the gallery",
    )
    if not panel.eval("document.querySelector('#artifact-viewer').hidden"):
        panel.click("#artifact-back")
    panel.click(json.loads(card))
    panel.wait("!document.querySelector('#transform-form').hidden", what="the form")


def shoot(panel: Page, name: str) -> None:
    """`tests/screenshots/NAME-WIDTH-SCHEME.png` at each width, light and dark; then the
    panel's own size and colour scheme again."""
    for width in WIDTHS:
        for dark in (False, True):
            scheme = "dark" if dark else "light"
            panel.screenshot(SCREENSHOTS / f"{name}-{width}-{scheme}.png", width, dark)
    panel.call("Emulation.clearDeviceMetricsOverride")
    panel.call("Emulation.setEmulatedMedia", features=[])
