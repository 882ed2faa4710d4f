"""The real extension in real headless browsers, talking to the real installed host.

`laika install` registers the host (Chromium: in the test profile's NativeMessagingHosts/;
Firefox: under a throw-away HOME), the browser loads `extension/`, whose background script
opens a connectNative port, pings, and logs the pong to the host log through `host.log`.
In CI (`CI=true`) a missing browser fails the test; elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from laika_host.native.browsers import DEV_EXTENSION_ID, GECKO_ID

from support import REPO, run_laika

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
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-sync",
            "--no-default-browser-check",
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
    assert f"fix: run `laika install --browser chromium --user-data-dir {profile}`" in doctor.stdout


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
