"""The real extension in real headless browsers, talking to the real installed host.

`laika install` registers the host (Chromium: in the test profile's NativeMessagingHosts/;
Firefox: under a throw-away HOME), the browser loads `extension/`, whose background script
opens a connectNative port, pings, and logs the pong to the host log through `host.log`.
In CI (`CI=true`) a missing browser fails the test; elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from laika_host.native.install.browsers import DEV_EXTENSION_ID, GECKO_ID

from cdp_pipe import HEADLESS_FLAGS
from cdp_pipe import DevTools as _DevTools
from html_server import serve
from support import REPO, laika_executable, run_laika

pytestmark = pytest.mark.browser  # every test here starts Chromium or Firefox

EXTENSION = REPO / "extension"
CHROMIUM = "/usr/lib/chromium/chromium"  # Debian's real binary (/usr/bin/chromium is a wrapper)
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")
CONNECTED = "extension connected: ping ok"


def _need(binary: str | None, name: str) -> str:
    if binary and os.path.exists(binary):
        return binary
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed; .ci/run must apt-get install it")
    pytest.skip(f"{name} is not installed here (CI installs it; apt-get install {name})")


def _wait_for_log(log: Path, text: str, browser: subprocess.Popen[bytes], seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        content = log.read_text(errors="replace") if log.exists() else ""
        if text in content:
            return content
        if browser.poll() is not None:
            pytest.fail(f"the browser exited early with {browser.returncode}")
        time.sleep(0.2)
    pytest.fail(f"no {text!r} in {log} after {seconds} s:\n{content[-2000:]}")


Launch = Callable[[list[str], dict[str, str], float], str]


@pytest.fixture
def run_until_connected() -> Iterator[Launch]:
    """Start a browser; return the host log once the extension reports its pong."""
    started: list[subprocess.Popen[bytes]] = []

    def launch(command: list[str], env: dict[str, str], seconds: float) -> str:
        browser = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        started.append(browser)
        log = Path(env["LAIKA_HOME"]) / "logs" / "host.log"
        return _wait_for_log(log, CONNECTED, browser, seconds)

    yield launch
    for process in started:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_chromium_extension_pings_the_installed_host(
    tmp_path: Path, run_until_connected: Launch
) -> None:
    chromium = _need(CHROMIUM, "chromium")
    home, profile = tmp_path / "laika-home", tmp_path / "profile"
    env = {**os.environ, "LAIKA_HOME": str(home)}
    installed = run_laika(
        "install", "--browser", "chromium", "--user-data-dir", str(profile), env=env
    )
    assert installed.returncode == 0, installed.stderr
    manifest = profile / "NativeMessagingHosts" / "com.laika.host.json"
    assert json.loads(manifest.read_text())["allowed_origins"] == [
        f"chrome-extension://{DEV_EXTENSION_ID}/"
    ]
    log = run_until_connected(
        [
            chromium,
            *HEADLESS_FLAGS,
            f"--user-data-dir={profile}",
            f"--load-extension={EXTENSION}",
            f"--disable-extensions-except={EXTENSION}",
            "about:blank",
        ],
        env,
        90,
    )
    assert DEV_EXTENSION_ID in log
    assert "(chromium)" in log
    assert "host.ping id='ext-1' ok" in log

    # a deliberately broken manifest: doctor names the problem, the browser's words, the fix
    manifest.write_text(manifest.read_text().replace(f"{DEV_EXTENSION_ID}/", DEV_EXTENSION_ID))
    doctor = run_laika("doctor", "--user-data-dir", str(profile), env=env)
    assert doctor.returncode == 1
    assert "lacks the trailing slash" in doctor.stdout
    assert "Specified native messaging host not found." in doctor.stdout
    fix = f"fix: run `{laika_executable()} install --browser chromium --user-data-dir {profile}`"
    assert fix in doctor.stdout


def _firefox_profile(tmp_path: Path) -> Path:
    profile = tmp_path / "ff-profile"
    (profile / "extensions").mkdir(parents=True)
    with zipfile.ZipFile(profile / "extensions" / f"{GECKO_ID}.xpi", "w") as xpi:
        for path in EXTENSION.rglob("*"):
            if path.is_file():
                xpi.write(path, path.relative_to(EXTENSION).as_posix())
    prefs = {
        "xpinstall.signatures.required": False,  # unsigned side-loaded add-on (ESR only)
        "extensions.autoDisableScopes": 0,
        "extensions.enabledScopes": 15,
        "browser.shell.checkDefaultBrowser": False,
        "datareporting.policy.dataSubmissionEnabled": False,
        "toolkit.telemetry.reportingpolicy.firstRun": False,
        "app.update.enabled": False,
        "extensions.update.enabled": False,
        "network.captive-portal-service.enabled": False,
    }
    (profile / "user.js").write_text(
        "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items())
    )
    return profile


def test_firefox_extension_pings_the_installed_host(
    tmp_path: Path, run_until_connected: Launch
) -> None:
    firefox = _need(FIREFOX, "firefox-esr")
    home, user_home = tmp_path / "laika-home", tmp_path / "home"
    user_home.mkdir()
    env = {**os.environ, "LAIKA_HOME": str(home), "HOME": str(user_home), "MOZ_HEADLESS": "1"}
    installed = run_laika("install", "--browser", "firefox", env=env)
    assert installed.returncode == 0, installed.stderr
    manifest = user_home / ".mozilla" / "native-messaging-hosts" / "com.laika.host.json"
    assert json.loads(manifest.read_text())["allowed_extensions"] == [GECKO_ID]
    log = run_until_connected(
        [
            firefox,
            "--headless",
            "--no-remote",
            "--profile",
            str(_firefox_profile(tmp_path)),
            "about:blank",
        ],
        env,
        120,
    )
    assert GECKO_ID in log
    assert "(firefox)" in log
    doctor = run_laika("doctor", "--browser", "firefox", env=env)
    assert doctor.returncode == 0, doctor.stdout


SAVED_PAGE = """<!doctype html><html><head><title>Harbour tides</title>
<script>document.title = "Harbour tides";</script></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Harbour tides</h1>
<p>High water at the harbour comes twice a day; the table below lists the hours for this week,
and the notes explain why spring tides run higher than neap tides.</p>
<table><tr><th>Day</th><th>High water</th></tr><tr><td>Monday</td><td>06:12</td></tr></table>
<p>Moon and sun pull together at new and full moon, which is why the <a href="/spring">spring
tides</a> are the largest of the month.</p></article>
<footer>Harbour office</footer></body></html>"""


@pytest.fixture
def fixture_site() -> Iterator[str]:
    with serve(lambda _path: SAVED_PAGE) as url:
        yield f"{url}/tides/today?utm_source=e2e"


def _stored_sources(db: Path) -> list[dict[str, object]]:
    import sqlite3

    if not db.exists():
        return []
    with (
        contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection,
        connection,
    ):
        connection.row_factory = sqlite3.Row
        try:
            rows = connection.execute(
                "SELECT s.*, c.title AS collection FROM sources s "
                "JOIN collections c ON c.id = s.collection_id"
            ).fetchall()
        except sqlite3.OperationalError:  # the host is still creating the schema
            return []
    return [dict(row) for row in rows]


def test_chromium_save_page_stores_the_page_as_a_source(tmp_path: Path, fixture_site: str) -> None:
    chromium = _need(CHROMIUM, "chromium")
    home, profile = tmp_path / "laika-home", tmp_path / "profile"
    env = {**os.environ, "LAIKA_HOME": str(home)}
    installed = run_laika(
        "install", "--browser", "chromium", "--user-data-dir", str(profile), env=env
    )
    assert installed.returncode == 0, installed.stderr
    devtools = _DevTools(
        chromium,
        [
            *HEADLESS_FLAGS,
            "--enable-unsafe-extension-debugging",
            f"--user-data-dir={profile}",
            f"--load-extension={EXTENSION}",
            f"--disable-extensions-except={EXTENSION}",
            "about:blank",
        ],
        env,
    )
    try:
        _wait_for_log(home / "logs" / "host.log", CONNECTED, devtools.process, 90)
        devtools.call("Target.createTarget", url=fixture_site)
        _loaded_tab(devtools, "Harbour tides")
        # the toolbar button opens the side panel now; saving goes through the automation API
        # (globalThis.laika.savePage, what the panel's Save page button also calls)
        saved = _in_service_worker(
            devtools,
            "chrome.tabs.query({title: 'Harbour tides'})"
            ".then(([tab]) => globalThis.laika.savePage(tab.id, {collection: 'Inbox'}))",
        )
        assert saved["outcome"] == "new", saved
        db = home / "laika.db"
        deadline = time.monotonic() + 30
        while not (stored := _stored_sources(db)) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        devtools.close()
    assert len(stored) == 1, f"no source stored; host log:\n{_log_tail(home)}"
    source = stored[0]
    assert source["collection"] == "Inbox"
    assert source["title"] == "Harbour tides"
    assert source["normalized_url"] == fixture_site.split("?", maxsplit=1)[0].replace(
        "localhost", "127.0.0.1"
    )
    markdown = str(source["capture_markdown"])
    assert markdown.startswith("# Harbour tides")
    assert "| Day | High water |\n| --- | --- |\n| Monday | 06:12 |" in markdown
    assert f"[spring tides]({fixture_site.split('/tides', maxsplit=1)[0]}/spring)" in markdown
    assert "Harbour office" not in markdown  # the footer is not content
    assert "document.title" not in markdown  # scripts were removed in the page
    assert json.loads(str(source["provenance_json"]))["origin"] == "extension"


def _in_service_worker(devtools: _DevTools, expression: str) -> dict[str, object]:
    """Evaluate (awaiting a promise) in the extension's service worker, where `laika` lives."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        infos = devtools.call("Target.getTargets")["targetInfos"]
        assert isinstance(infos, list)
        workers = [
            i for i in infos if i["type"] == "service_worker" and DEV_EXTENSION_ID in i["url"]
        ]
        if workers:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the extension's service worker did not start")
    session = devtools.call("Target.attachToTarget", targetId=workers[0]["targetId"], flatten=True)
    reply = devtools.call(
        "Runtime.evaluate",
        session_id=str(session["sessionId"]),
        expression=expression,
        awaitPromise=True,
        returnByValue=True,
    )
    assert "exceptionDetails" not in reply, reply
    result = reply["result"]
    assert isinstance(result, dict)
    value = result["value"]
    assert isinstance(value, dict)
    return value


def _loaded_tab(devtools: _DevTools, title: str) -> str:
    """The id of the tab target (what a toolbar click acts on) once its page has loaded."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        infos = devtools.call("Target.getTargets", filter=[{"type": "tab"}])["targetInfos"]
        assert isinstance(infos, list)
        for info in infos:
            if info["title"] == title:
                return str(info["targetId"])
        time.sleep(0.2)
    pytest.fail(f"no tab titled {title!r} loaded within 30 s")


def _log_tail(home: Path) -> str:
    log = home / "logs" / "host.log"
    return log.read_text(errors="replace")[-3000:] if log.exists() else "(no host log)"
