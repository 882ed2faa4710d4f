"""One data directory (issue 14, item 2): `laika install` pins the data directory it ran with
into the launcher, and `laika doctor` fails when the browser's host would use another one.

Real launchers run as a browser runs them: a subprocess without LAIKA_HOME, from another
working directory, speaking frames on stdin/stdout.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.native.install.browsers import BROWSERS, HOST_NAME
from laika_host.native.install.doctor import DoctorOptions, diagnose
from laika_host.native.install.doctor_data import CHECK
from laika_host.native.install.install import launcher_text, read_launcher, read_launcher_text

from native_client import CHROME_ORIGIN, frame
from support import laika_executable, run_laika

HEADER = struct.Struct("=I")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A throw-away HOME; LAIKA_HOME names a directory outside it."""
    home = tmp_path / "home"
    home.mkdir()
    return {**os.environ, "HOME": str(home), "LAIKA_HOME": str(tmp_path / "pinned")}


def _without_laika_home(env: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in env.items() if name != "LAIKA_HOME"}


def _call_launcher(launcher: Path, env: dict[str, str], cwd: Path, *requests: Any) -> list[Any]:
    """Run the launcher as a browser does and return its replies, in order."""
    done = subprocess.run(
        [str(launcher), CHROME_ORIGIN],
        input=b"".join(frame(request) for request in requests),
        capture_output=True,
        env=_without_laika_home(env),
        cwd=cwd,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    replies, out = [], done.stdout
    while out:
        (length,) = HEADER.unpack(out[: HEADER.size])
        replies.append(json.loads(out[HEADER.size : HEADER.size + length]))
        out = out[HEADER.size + length :]
    return sorted(replies, key=lambda reply: [r["id"] for r in requests].index(reply["id"]))


def _launcher(profile: Path) -> Path:
    manifest = json.loads((profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").read_text())
    return Path(manifest["path"])


@pytest.mark.slow  # > 3 s with the cores busy
def test_the_launcher_pins_the_data_directory_install_ran_with(
    env: dict[str, str], tmp_path: Path
) -> None:
    profile = tmp_path / "profile"
    done = run_laika("install", "--user-data-dir", str(profile), env=env)
    assert done.returncode == 0, done.stderr
    pinned = Path(env["LAIKA_HOME"])
    assert f"data directory {pinned}" in done.stdout
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    info, created = _call_launcher(
        _launcher(profile),
        env,
        elsewhere,
        {"id": "i", "type": "host.info"},
        {"id": "c", "type": "collections.create", "payload": {"title": "From the browser"}},
    )
    assert info["result"]["data_dir"] == str(pinned)
    assert created["ok"], created
    listed = run_laika("collections", "list", "--json", env=env)  # the CLI, LAIKA_HOME set
    assert "From the browser" in {c["title"] for c in json.loads(listed.stdout)["collections"]}
    default_home = Path(env["HOME"]) / ".local" / "share" / "laika"
    assert not default_home.exists()  # nothing went to the platform default


def test_a_relative_laika_home_is_pinned_as_an_absolute_path(
    env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    profile = tmp_path / "profile"
    relative = {**env, "LAIKA_HOME": "data"}
    done = run_laika("install", "--user-data-dir", str(profile), env=relative, cwd=work)
    assert done.returncode == 0, done.stderr
    (info,) = _call_launcher(_launcher(profile), env, tmp_path, {"id": "i", "type": "host.info"})
    assert info["result"]["data_dir"] == str(work / "data")


_DIR_NAMES = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\0/"), min_size=1
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=_DIR_NAMES)
def test_any_directory_name_survives_the_launcher(tmp_path: Path, name: str) -> None:
    """Quotes, `$`, backticks, spaces, newlines: the shell exports exactly the path, and
    doctor reads back exactly it."""
    home = tmp_path / name
    echo = tmp_path / "echo-home"
    echo.write_text('#!/bin/sh\nprintf %s "$LAIKA_HOME"\n')
    echo.chmod(0o700)
    launcher = tmp_path / "launcher"
    launcher.write_text(launcher_text(str(echo), home), encoding="utf-8")
    launcher.chmod(0o700)
    done = subprocess.run(
        [str(launcher)], capture_output=True, env={"PATH": os.defpath}, check=True, timeout=30
    )
    assert os.fsdecode(done.stdout) == str(home)
    pins = read_launcher(launcher)
    assert pins is not None
    assert (pins.python, pins.data_dir) == (str(echo), home)


def _data_dir_findings(profile: Path) -> list[tuple[str, str]]:
    report = diagnose(BROWSERS["chromium"], DoctorOptions(user_data_dir=profile))
    return [
        (f.level, f.detail + " | fix: " + str(f.fix)) for f in report.findings if f.check == CHECK
    ]


def _doctor(profile: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Any:
    for name in ("HOME", "LAIKA_HOME"):
        if name in env:
            monkeypatch.setenv(name, env[name])
        else:
            monkeypatch.delenv(name, raising=False)
    return _data_dir_findings(profile)


@pytest.mark.slow  # > 3 s with the cores busy
def test_doctor_passes_when_the_cli_uses_the_pinned_directory(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = tmp_path / "profile"
    assert run_laika("install", "--user-data-dir", str(profile), env=env).returncode == 0
    assert [level for level, _ in _doctor(profile, env, monkeypatch)] == ["ok"]
    done = run_laika("doctor", "--user-data-dir", str(profile), env=env)
    assert done.returncode == 0, done.stdout
    assert f"ok    {CHECK}: {env['LAIKA_HOME']}" in done.stdout


@pytest.mark.slow  # > 3 s with the cores busy
def test_doctor_fails_when_the_cli_uses_another_directory(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = tmp_path / "profile"
    assert run_laika("install", "--user-data-dir", str(profile), env=env).returncode == 0
    other = {**env, "LAIKA_HOME": str(tmp_path / "other")}
    (finding,) = _doctor(profile, other, monkeypatch)
    level, text = finding
    assert level == "fail"
    assert env["LAIKA_HOME"] in text
    assert other["LAIKA_HOME"] in text
    assert f"{laika_executable()} install --browser chromium --user-data-dir {profile}" in text
    done = run_laika("doctor", "--user-data-dir", str(profile), env=other)
    assert done.returncode == 1
    assert f"FAIL  {CHECK}" in done.stdout
    # ... and following the fix makes it pass
    assert run_laika("install", "--user-data-dir", str(profile), env=other).returncode == 0
    assert [level for level, _ in _doctor(profile, other, monkeypatch)] == ["ok"]


def _rewrite_launcher(launcher: Path, exports: str) -> None:
    pins = read_launcher(launcher)
    assert pins is not None
    launcher.write_text(f'#!/bin/sh\n{exports}exec {pins.python} -m laika_host.native "$@"\n')


@pytest.mark.slow  # > 3 s with the cores busy
def test_an_unpinned_launcher_warns_when_the_default_matches_and_fails_otherwise(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = tmp_path / "profile"
    assert run_laika("install", "--user-data-dir", str(profile), env=env).returncode == 0
    _rewrite_launcher(_launcher(profile), "")  # what `laika install` wrote before pinning
    assert [level for level, _ in _doctor(profile, _without_laika_home(env), monkeypatch)] == [
        "warn"
    ]
    ((level, text),) = _doctor(profile, env, monkeypatch)
    assert level == "fail"
    assert "pins no data directory" in text
    assert str(Path(env["HOME"]) / ".local" / "share" / "laika") in text


def test_the_running_host_is_asked_too(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A launcher that sets the directory in a way doctor does not parse: the host's own
    host.info answer shows the mismatch."""
    profile = tmp_path / "profile"
    assert run_laika("install", "--user-data-dir", str(profile), env=env).returncode == 0
    hidden = tmp_path / "hidden"
    _rewrite_launcher(_launcher(profile), f"LAIKA_HOME={hidden}\nexport LAIKA_HOME\n")
    levels = _doctor(profile, _without_laika_home(env), monkeypatch)
    assert [level for level, _ in levels] == ["warn", "fail"]
    assert str(hidden) in levels[1][1]


_WINDOWS_NAMES = st.text(
    st.characters(
        blacklist_categories=("Cs", "Cc"), blacklist_characters='\0/\\:"<>|?*'
    ),  # what Windows allows in a file name
    min_size=1,
)


@settings(max_examples=60, deadline=None)
@given(name=_WINDOWS_NAMES)
def test_the_windows_launcher_keeps_the_directory_too(name: str) -> None:
    """The `.bat` launcher: `%` doubled so cmd does not expand it, read back exactly."""
    import sys as system

    home = Path("C:/Users/me/AppData/Roaming") / name
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(system, "platform", "win32")
        text = launcher_text("C:/Python/python.exe", home)
    assert text.startswith('@echo off\r\nset "LAIKA_HOME=')
    assert "%" not in text.replace("%%", "").replace("%*", "")  # no single % left to expand
    pins = read_launcher_text(text)
    assert pins is not None
    assert (pins.python, pins.data_dir) == ("C:/Python/python.exe", home)
