"""The fix for a missing host names a command that works (issue #25, item 4), and `laika doctor`
names the same one as the side panel.

After the README's Quick start, `laika` lives in the clone's `.venv/bin`, which is not on PATH:
a bare `laika install` fails with "command not found". So `laika install` pins the absolute
path of the `laika` that ran it in the launcher (`LAIKA_CLI`), the host reports it in
`host.info` (`cli`), with the profile folder of the Chrome-family browser that started it
(`caller.user_data_dir`, read from the browser's command line: such a browser reads the
manifest only from `DIR/NativeMessagingHosts/`), and the panel remembers both for the day the
host goes missing. `laika doctor` writes its fix from the same parts, and this test runs the
panel's own code (`extension/sidepanel/host_fix.js`, under node) to compare the two.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from laika_host.native.install.browsers import DEV_EXTENSION_ID
from laika_host.native.install.commands import CLI_VARIABLE, fix_command, shell_word
from laika_host.native.install.install import launcher_text
from laika_host.native.transport.host_main import browser_user_data_dir, user_data_dir_of

from native_client import CHROME_ORIGIN, frame
from support import REPO, laika_executable, run_laika

PANEL_FIX = """
import { hostFix } from %s;
let input = "";
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.stringify(JSON.parse(input).map(hostFix)));
"""


def panel_fixes(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`hostFix(case)` of the extension's own module, for each case."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed here (CI installs it; apt-get install nodejs)")
    module = (REPO / "extension" / "sidepanel" / "host_fix.js").as_uri()
    done = subprocess.run(
        [node, "--input-type=module", "-e", PANEL_FIX % json.dumps(module)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    fixes: list[dict[str, Any]] = json.loads(done.stdout)
    return fixes


def doctor_fix(profile: Path, env: dict[str, str]) -> str:
    """The fix `laika doctor --json` gives for the missing manifest of `profile`."""
    done = run_laika(
        "doctor", "--browser", "chromium", "--user-data-dir", str(profile), "--json", env=env
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (report,) = json.loads(done.stdout)["browsers"]
    failed = [f for f in report["findings"] if f["level"] == "fail"]
    assert failed[0]["check"] == "manifest present", failed
    return str(failed[0]["fix"])


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LAIKA_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}


@pytest.mark.parametrize("folder", ["profile", "my profile", "it's here"])
def test_doctor_names_the_same_commands_as_the_panel(
    env: dict[str, str], tmp_path: Path, folder: str
) -> None:
    profile = tmp_path / folder
    laika = laika_executable()
    (panel,) = panel_fixes(
        [
            {
                "browser": "chromium",
                "extensionId": DEV_EXTENSION_ID,
                "install": {"cli": laika, "userDataDir": str(profile), "platform": "Linux"},
            }
        ]
    )
    install, check = panel["commands"]
    assert (
        install == f"{laika} install --browser chromium --user-data-dir {shell_word(str(profile))}"
    )
    assert check == f"{laika} doctor --browser chromium --user-data-dir {shell_word(str(profile))}"
    assert doctor_fix(profile, env) == f"run `{install}`, then `{check}`"


def test_without_a_profile_folder_doctor_says_how_to_add_one(
    env: dict[str, str], tmp_path: Path
) -> None:
    done = run_laika("doctor", "--browser", "chrome", "--no-ping", env=env)
    assert done.returncode == 1
    laika = laika_executable()
    assert (
        f"fix: run `{laika} install --browser chrome`, then `{laika} doctor --browser chrome`"
        in (done.stdout)
    )
    assert "DIR/NativeMessagingHosts: add `--user-data-dir DIR` to both" in done.stdout
    (panel,) = panel_fixes([{"browser": "chrome", "install": {"cli": laika}}])
    assert panel["commands"][0] == f"{laika} install --browser chrome"
    assert "--user-data-dir" in panel["profile"]["text"]


def test_the_commands_are_one_word_per_argument_whatever_the_path() -> None:
    odd = "/home/ana/My Code/it's/.venv/bin/laika"
    command = fix_command("install", "chromium", cli=odd, user_data_dir="/tmp/a b", windows=False)
    words = shlex.split(command)
    assert words == [odd, "install", "--browser", "chromium", "--user-data-dir", "/tmp/a b"]
    windows = fix_command("install", "edge", cli="C:\\A B\\laika.exe", windows=True)
    assert windows == '"C:\\A B\\laika.exe" install --browser edge'
    assert fix_command("doctor", "firefox", cli=None, user_data_dir="/p", gecko_ids=["me@x"]) == (
        "laika doctor --browser firefox --gecko-id me@x"
    )


def test_install_pins_this_laika_and_says_how_to_check(env: dict[str, str], tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    done = run_laika("install", "--user-data-dir", str(profile), env=env)
    assert done.returncode == 0, done.stderr
    laika = laika_executable()
    assert f"installed; check with `{laika} doctor --user-data-dir {profile}`" in done.stdout
    launcher = Path(env["LAIKA_HOME"]) / "bin" / "laika-native-host"
    assert f"export {CLI_VARIABLE}={laika}\n" in launcher.read_text()


def test_a_launcher_without_a_cli_pin_still_runs() -> None:
    text = launcher_text("/usr/bin/python3", Path("/tmp/home"), None)
    assert CLI_VARIABLE not in text
    assert "exec /usr/bin/python3 -m laika_host.native" in text


def test_user_data_dir_of_a_command_line() -> None:
    assert user_data_dir_of(["chromium", "--user-data-dir=/tmp/p"]) == "/tmp/p"
    assert user_data_dir_of(["chromium", "--user-data-dir", "/tmp/p", "x"]) == "/tmp/p"
    assert user_data_dir_of(["chromium", "--user-data-dir=rel/p"], "/home/ana") == "/home/ana/rel/p"
    assert user_data_dir_of(["c", "--user-data-dir=/a", "--user-data-dir=/b"]) == "/b"  # the last
    assert user_data_dir_of(["chromium", "--user-data-dir="]) is None
    assert user_data_dir_of(["chromium", "--user-data-dir"]) is None
    assert user_data_dir_of(["chromium", "--profile-directory=Default"]) is None


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc (Linux)")
def test_the_host_reports_the_laika_that_installed_it_and_the_browsers_profile(
    env: dict[str, str], tmp_path: Path
) -> None:
    """The launcher started as a browser starts it, by a parent whose command line holds a
    relative `--user-data-dir` (resolved against the parent's working directory)."""
    assert run_laika("install", "--browser", "chromium", env=env).returncode == 0
    launcher = Path(env["LAIKA_HOME"]) / "bin" / "laika-native-host"
    parent = (
        "import subprocess, sys; sys.stdout.buffer.write(subprocess.run(sys.argv[2:],"
        " input=sys.stdin.buffer.read(), capture_output=True).stdout)"
    )
    done = subprocess.run(
        [sys.executable, "-c", parent, "--user-data-dir=rel profile", str(launcher), CHROME_ORIGIN],
        input=frame({"id": "i", "type": "host.info"}),
        capture_output=True,
        cwd=tmp_path,
        env={k: v for k, v in env.items() if k != "LAIKA_HOME"},  # as a browser starts it
        timeout=60,
        check=True,
    )
    (length,) = struct.unpack("=I", done.stdout[:4])
    info = json.loads(done.stdout[4 : 4 + length])["result"]
    assert info["cli"] == laika_executable()
    assert info["caller"]["user_data_dir"] == str(tmp_path / "rel profile")
    assert browser_user_data_dir(os.getpid()) is None  # pytest's own command line has none
