"""`laika install`, `uninstall` and `doctor` against real files in a throw-away HOME."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from laika_host.native.install.browsers import BROWSERS, DEV_EXTENSION_ID, GECKO_ID, HOST_NAME
from laika_host.native.install.doctor import (
    COMMUNICATION,
    EXITED,
    FORBIDDEN,
    NOT_FOUND,
    DoctorOptions,
    diagnose,
)

from support import REPO, laika_executable, run_laika

OTHER_ID = "a" * 32


def test_dev_extension_id_comes_from_the_manifest_key() -> None:
    key = json.loads((REPO / "extension" / "manifest.json").read_text())["key"]
    digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
    assert "".join(chr(ord("a") + int(c, 16)) for c in digest) == DEV_EXTENSION_ID


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LAIKA_HOME", str(tmp_path / "laika"))
    return {**os.environ}


@pytest.mark.slow  # > 3 s with the cores busy
def test_install_every_browser(env: dict[str, str], tmp_path: Path) -> None:
    done = run_laika(
        "install", "--extension-id", DEV_EXTENSION_ID, "--extension-id", OTHER_ID, env=env
    )
    assert done.returncode == 0, done.stderr
    home = Path(env["HOME"])
    launcher = tmp_path / "laika" / "bin" / "laika-native-host"
    assert launcher.stat().st_mode & stat.S_IXUSR
    assert f"exec {sys.executable} -m laika_host.native" in launcher.read_text()
    for browser in BROWSERS.values():
        manifest = json.loads((home / browser.linux / f"{HOST_NAME}.json").read_text())
        assert manifest["name"] == HOST_NAME
        assert manifest["type"] == "stdio"
        assert manifest["path"] == str(launcher)
        if browser.family == "firefox":
            assert manifest["allowed_extensions"] == [GECKO_ID]
            assert "allowed_origins" not in manifest
        else:
            assert manifest["allowed_origins"] == [
                f"chrome-extension://{DEV_EXTENSION_ID}/",
                f"chrome-extension://{OTHER_ID}/",
            ]
            assert "allowed_extensions" not in manifest
    doctor = run_laika("doctor", "--json", env=env)
    assert doctor.returncode == 0, doctor.stdout
    found = json.loads(doctor.stdout)
    assert found["ok"]
    assert {f["check"] for f in found["data"]["findings"]} >= {"database quick_check"}
    reports = found["browsers"]
    assert {r["browser"] for r in reports} == set(BROWSERS)
    assert all(r["ok"] for r in reports)

    removed = run_laika("uninstall", env=env)
    assert removed.returncode == 0
    assert not launcher.exists()
    assert not any((home / b.linux / f"{HOST_NAME}.json").exists() for b in BROWSERS.values())


def _installed(env: dict[str, str], tmp_path: Path) -> Path:
    profile = tmp_path / "profile"
    assert run_laika("install", "--user-data-dir", str(profile), env=env).returncode == 0
    return profile


def _fail(profile: Path, **options: object) -> tuple[str, str | None, str | None]:
    report = diagnose(BROWSERS["chromium"], DoctorOptions(user_data_dir=profile, **options))  # type: ignore[arg-type]
    failed = [f for f in report.findings if f.level == "fail"]
    assert len(failed) == 1, report.findings
    return failed[0].check, failed[0].browser_says, failed[0].fix


def _edit(profile: Path, **changes: object) -> Path:
    path = profile / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    path.write_text(json.dumps(manifest))
    return path


def test_doctor_healthy_profile(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    report = diagnose(BROWSERS["chromium"], DoctorOptions(user_data_dir=profile))
    assert report.ok
    assert report.findings[-1].check == "host answers host.ping"


def test_doctor_missing_manifest(env: dict[str, str], tmp_path: Path) -> None:
    check, says, fix = _fail(tmp_path / "empty-profile")
    assert (check, says) == ("manifest present", NOT_FOUND)
    profile = tmp_path / "empty-profile"
    laika = laika_executable()  # by its absolute path: after the Quick start it is not on PATH
    assert fix == (
        f"run `{laika} install --browser chromium --user-data-dir {profile}`,"
        f" then `{laika} doctor --browser chromium --user-data-dir {profile}`"
    )


def test_doctor_invalid_json(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    (profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").write_text("{not json")
    assert _fail(profile)[:2] == ("manifest is valid JSON", NOT_FOUND)


def test_doctor_wrong_name(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    _edit(profile, name="com.laika.other")
    assert _fail(profile)[:2] == ("name equals file name", NOT_FOUND)


def test_doctor_relative_path(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    _edit(profile, path="bin/laika-native-host")
    assert _fail(profile)[:2] == ("path is absolute", NOT_FOUND)


def test_doctor_missing_trailing_slash(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    _edit(profile, allowed_origins=[f"chrome-extension://{DEV_EXTENSION_ID}"])
    assert _fail(profile)[:2] == ("allowed_origins end with /", NOT_FOUND)


def test_doctor_wrong_extension_id(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    check, says, fix = _fail(profile, extension_ids=(OTHER_ID,))
    assert (check, says) == ("extension id allowed", FORBIDDEN)
    assert fix is not None
    assert f"--extension-id {OTHER_ID}" in fix


def test_doctor_launcher_not_executable(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    launcher = Path(
        json.loads((profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").read_text())["path"]
    )
    launcher.chmod(0o644)
    check, says, fix = _fail(profile)
    assert (check, says) == ("host executable exists", EXITED)
    assert fix == f"`chmod +x {launcher}`"


def test_doctor_launcher_pins_a_missing_interpreter(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    launcher = Path(
        json.loads((profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").read_text())["path"]
    )
    launcher.write_text('#!/bin/sh\nexec /nonexistent/python -m laika_host.native "$@"\n')
    assert _fail(profile)[:2] == ("interpreter works", EXITED)


def test_doctor_host_that_writes_junk_to_stdout(env: dict[str, str], tmp_path: Path) -> None:
    profile = _installed(env, tmp_path)
    junk = tmp_path / "junk-host"
    junk.write_text("#!/bin/sh\necho hello\n")
    junk.chmod(0o755)
    _edit(profile, path=str(junk))
    check, says, fix = _fail(profile)
    assert (check, says) == ("host answers host.ping", COMMUNICATION)
    assert fix is not None
    assert str(junk) in fix


@pytest.mark.slow  # > 3 s with the cores busy
def test_doctor_skips_browsers_that_are_not_installed(env: dict[str, str]) -> None:
    """Only Chromium has a profile folder: it is checked, every other browser is reported as
    skipped (not as passed), and the summary names only what was checked."""
    home = Path(env["HOME"])
    (home / BROWSERS["chromium"].linux).parent.mkdir(parents=True)
    assert run_laika("install", "--browser", "chromium", env=env).returncode == 0
    doctor = run_laika("doctor", "--json", "--no-ping", env=env)
    assert doctor.returncode == 0, doctor.stdout
    reports = {r["browser"]: r for r in json.loads(doctor.stdout)["browsers"]}
    assert set(reports) == set(BROWSERS)
    assert not reports["chromium"]["skipped"]
    assert reports["chromium"]["ok"]
    others = [r for key, r in reports.items() if key != "chromium"]
    assert all(r["skipped"] for r in others)
    assert all([f["level"] for f in r["findings"]] == ["skip"] for r in others)
    human = run_laika("doctor", "--no-ping", env=env)
    assert human.returncode == 0
    assert "all checks passed for: data, chromium\n" in human.stdout
    assert human.stdout.count(": skipped, not installed") == len(others)


def test_doctor_with_no_browser_installed_exits_1(env: dict[str, str]) -> None:
    doctor = run_laika("doctor", "--no-ping", env=env)
    assert doctor.returncode == 1
    assert "no browser checked: none is installed" in doctor.stdout
    assert "all checks passed" not in doctor.stdout
