"""`laika doctor`: why a browser cannot reach the host, in the browser's own words, with a fix.

The checks follow what the browser does: find the manifest, read it, match the name, check the
caller is allowed, start `path`, exchange frames. The error texts are the ones Chromium and
Firefox print for each failure (recipes/native-messaging-e2e).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import doctor_data
from .browsers import GECKO_ID, HOST_NAME, Browser, chrome_origin
from .commands import fix_command, laika_executable
from .findings import Finding
from .install import env_python_ok, read_launcher

NOT_FOUND = "Specified native messaging host not found."
FORBIDDEN = "Access to the specified native messaging host is forbidden."
EXITED = "Native host has exited."
FAILED_TO_START = "Failed to start native messaging host."
COMMUNICATION = "Error when communicating with the native messaging host."
FIREFOX_NOT_FOUND = f"No such native application {HOST_NAME}"
FIREFOX_FORBIDDEN = (
    f"This extension does not have permission to use native application {HOST_NAME} "
    "(or the application is not installed)"
)
_ORIGIN = re.compile(r"chrome-extension://[a-p]{32}/")
PING_TIMEOUT_SECONDS = 10.0


@dataclass
class BrowserReport:
    browser: Browser
    manifest: Path
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(f.level != "fail" for f in self.findings)

    @property
    def skipped(self) -> bool:
        """Not checked: neither passed nor failed (a browser that is not installed)."""
        return any(f.level == "skip" for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "browser": self.browser.key,
            "manifest": str(self.manifest),
            "ok": self.ok,
            "skipped": self.skipped,
            "findings": [f.__dict__ for f in self.findings],
        }


@dataclass(frozen=True)
class DoctorOptions:
    extension_ids: tuple[str, ...] = ()
    gecko_ids: tuple[str, ...] = ()
    user_data_dir: Path | None = None
    ping: bool = True


def diagnose(browser: Browser, options: DoctorOptions) -> BrowserReport:
    report = BrowserReport(browser, browser.manifest_path(options.user_data_dir))
    _check(report, options)
    _check_sandboxed_install(report)
    return report


def installed(browser: Browser) -> bool:
    """Whether the browser looks installed for this user: our manifest or its profile folder
    (which its first start creates) exists."""
    return browser.manifest_path().exists() or browser.manifest_dir().parent.exists()


def skipped(browser: Browser) -> BrowserReport:
    """The report of a browser that is not installed: skipped, so that it is not counted as
    passed (nothing was checked) nor as failed (there is nothing to fix)."""
    folder = browser.manifest_dir().parent
    detail = f"not installed or never started (no profile folder at {folder})"
    report = BrowserReport(browser, browser.manifest_path())
    report.findings.append(Finding("skip", "browser installed", detail))
    return report


def fix_commands(browser: Browser, options: DoctorOptions) -> tuple[str, str]:
    """The install command that fixes this browser, and the doctor command that checks it,
    naming this `laika` by its absolute path, as the side panel's "host missing" screen does
    (`commands.fix_command`)."""
    cli = laika_executable()
    words: dict[str, Any] = {
        "cli": cli,
        "family": browser.family,
        "user_data_dir": os.path.abspath(options.user_data_dir) if options.user_data_dir else None,
        "extension_ids": options.extension_ids,
        "gecko_ids": options.gecko_ids,
    }
    return (
        fix_command("install", browser.key, **words),
        fix_command("doctor", browser.key, **words),
    )


def _install_command(browser: Browser, options: DoctorOptions) -> str:
    return fix_commands(browser, options)[0]


def _check(report: BrowserReport, options: DoctorOptions) -> None:
    browser, path, add = report.browser, report.manifest, report.findings.append
    firefox = browser.family == "firefox"
    install, check = fix_commands(browser, options)
    fix = f"run `{install}`"
    if not path.is_file():
        missing = f"{fix}, then `{check}`"
        if not firefox and options.user_data_dir is None:
            missing += (
                "; a browser started with --user-data-dir DIR (a profile folder of its own) "
                "reads the manifest only from DIR/NativeMessagingHosts: add "
                "`--user-data-dir DIR` to both"
            )
        add(Finding("fail", "manifest present", f"no file at {path}", _not_found(firefox), missing))
        return
    add(Finding("ok", "manifest present", str(path)))
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError("the manifest is not a JSON object")
    except (ValueError, OSError) as exc:
        add(Finding("fail", "manifest is valid JSON", str(exc), _not_found(firefox), fix))
        return
    if not _check_fields(report, manifest, options, fix):
        return
    launcher = Path(manifest["path"])
    if not _check_launcher(report, launcher, fix):
        return
    install_command = _install_command(browser, options)
    pins = read_launcher(launcher)
    if pins is not None:
        add(doctor_data.check_pinned(pins, install_command))
    if options.ping:
        _check_ping(report, launcher, options, install_command)


def _not_found(firefox: bool) -> str:
    return FIREFOX_NOT_FOUND if firefox else NOT_FOUND


def _check_fields(
    report: BrowserReport, manifest: dict[str, Any], options: DoctorOptions, fix: str
) -> bool:
    browser, add = report.browser, report.findings.append
    firefox = browser.family == "firefox"
    name = manifest.get("name")
    if name != HOST_NAME or report.manifest.stem != HOST_NAME:
        detail = f'"name" is {name!r} in {report.manifest.name}; both must be {HOST_NAME!r}'
        add(Finding("fail", "name equals file name", detail, _not_found(firefox), fix))
        return False
    add(Finding("ok", "name equals file name", HOST_NAME))
    if manifest.get("type") != "stdio":
        detail = f'"type" is {manifest.get("type")!r}; it must be "stdio"'
        add(Finding("fail", "type is stdio", detail, _not_found(firefox), fix))
        return False
    raw_path = manifest.get("path")
    if not isinstance(raw_path, str) or not os.path.isabs(raw_path):
        detail = f'"path" is {raw_path!r}; browsers require an absolute path on Linux and macOS'
        add(Finding("fail", "path is absolute", detail, _not_found(firefox), fix))
        return False
    add(Finding("ok", "path is absolute", raw_path))
    return (
        _check_firefox_ids(report, manifest, options, fix)
        if firefox
        else _check_origins(report, manifest, options, fix)
    )


def _check_origins(
    report: BrowserReport, manifest: dict[str, Any], options: DoctorOptions, fix: str
) -> bool:
    add = report.findings.append
    origins = manifest.get("allowed_origins")
    if not isinstance(origins, list) or not origins:
        add(Finding("fail", "allowed_origins", "missing or empty", FORBIDDEN, fix))
        return False
    for origin in origins:
        if isinstance(origin, str) and _ORIGIN.fullmatch(origin + "/"):
            detail = f"{origin!r} lacks the trailing slash: write {origin + '/'!r}"
            add(Finding("fail", "allowed_origins end with /", detail, NOT_FOUND, fix))
            return False
        if not isinstance(origin, str) or not _ORIGIN.fullmatch(origin):
            detail = f"{origin!r} is not chrome-extension://<32 letters a-p>/"
            add(Finding("fail", "allowed_origins are extension origins", detail, NOT_FOUND, fix))
            return False
    add(Finding("ok", "allowed_origins end with /", ", ".join(origins)))
    from .browsers import DEV_EXTENSION_ID

    wanted = options.extension_ids or (DEV_EXTENSION_ID,)
    missing = [i for i in wanted if chrome_origin(i) not in origins]
    if missing:
        detail = f"extension id(s) {', '.join(missing)} not in allowed_origins"
        add(Finding("fail", "extension id allowed", detail, FORBIDDEN, fix))
        return False
    add(Finding("ok", "extension id allowed", ", ".join(wanted)))
    return True


def _check_firefox_ids(
    report: BrowserReport, manifest: dict[str, Any], options: DoctorOptions, fix: str
) -> bool:
    allowed = manifest.get("allowed_extensions")
    wanted = options.gecko_ids or (GECKO_ID,)
    if not isinstance(allowed, list) or any(i not in allowed for i in wanted):
        detail = f"allowed_extensions is {allowed!r}; it must list {', '.join(wanted)}"
        report.findings.append(
            Finding("fail", "extension id allowed", detail, FIREFOX_FORBIDDEN, fix)
        )
        return False
    report.findings.append(Finding("ok", "extension id allowed", ", ".join(wanted)))
    return True


def _check_launcher(report: BrowserReport, launcher: Path, fix: str) -> bool:
    add = report.findings.append
    if not launcher.is_file():
        add(
            Finding(
                "fail", "host executable exists", f"{launcher} is missing", FAILED_TO_START, fix
            )
        )
        return False
    if not os.access(launcher, os.X_OK):
        detail = f"{launcher} is not executable"
        add(Finding("fail", "host executable exists", detail, EXITED, f"`chmod +x {launcher}`"))
        return False
    add(Finding("ok", "host executable exists", str(launcher)))
    pins = read_launcher(launcher)
    python = pins.python if pins else None
    if python is None:
        add(Finding("warn", "interpreter works", "the launcher is not one `laika install` wrote"))
        return True
    if not env_python_ok(python):
        detail = f"the launcher runs {python}, which no longer exists"
        fix = f"{fix} from the environment where laika-host is installed"
        add(Finding("fail", "interpreter works", detail, EXITED, fix))
        return False
    probe = subprocess.run(
        [python, "-c", "import laika_host.native.transport.host_main"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if probe.returncode != 0:
        detail = f"{python} cannot import laika_host: {probe.stderr.strip()[-300:]}"
        add(Finding("fail", "interpreter works", detail, EXITED, f"{fix} from the right venv"))
        return False
    add(Finding("ok", "interpreter works", python))
    return True


def _check_ping(
    report: BrowserReport, launcher: Path, options: DoctorOptions, install_command: str
) -> None:
    browser = report.browser
    if browser.family == "firefox":
        args = [str(report.manifest), (options.gecko_ids or (GECKO_ID,))[0]]
    else:
        from .browsers import DEV_EXTENSION_ID

        args = [chrome_origin((options.extension_ids or (DEV_EXTENSION_ID,))[0])]
    started = time.perf_counter()
    try:
        replies, stderr = ask_host([str(launcher), *args], ["host.ping", "host.info"])
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        says = COMMUNICATION if browser.family != "firefox" else "Native application disconnected"
        detail = f"no pong: {exc}"
        fix = f"run the launcher by hand to see its error: {launcher} {' '.join(args)} < /dev/null"
        report.findings.append(Finding("fail", "host answers host.ping", detail, says, fix))
        return
    elapsed = (time.perf_counter() - started) * 1000
    version = replies["host.ping"].get("version", "?")
    detail = f"pong from laika-host {version} in {elapsed:.0f} ms (process start included)"
    report.findings.append(Finding("ok", "host answers host.ping", detail))
    already_failed = any(
        f.check == doctor_data.CHECK and f.level == "fail" for f in report.findings
    )
    reported = doctor_data.check_reported(replies["host.info"].get("data_dir"), install_command)
    if reported is not None and not already_failed:
        report.findings.append(reported)
    if stderr.strip():
        report.findings.append(Finding("warn", "host stderr is quiet", stderr.strip()[-300:]))


def ask_host(command: list[str], types: list[str]) -> tuple[dict[str, dict[str, Any]], str]:
    """Start the host as a browser would (without LAIKA_HOME, as from the desktop), send one
    request of each type, return each result by type and the host's stderr."""
    bodies = [json.dumps({"id": kind, "type": kind}).encode() for kind in types]
    done = subprocess.run(
        command,
        input=b"".join(struct.pack("=I", len(body)) + body for body in bodies),
        capture_output=True,
        timeout=PING_TIMEOUT_SECONDS,
        check=False,
        env=doctor_data.browser_environment(),
    )
    out, results = done.stdout, {}
    for _ in types:
        if len(out) < 4:
            raise ValueError(f"the host wrote no frame (exit {done.returncode})")
        (length,) = struct.unpack("=I", out[:4])
        reply = json.loads(out[4 : 4 + length])
        if (
            not isinstance(reply, dict)
            or reply.get("ok") is not True
            or reply.get("id") not in types
        ):
            raise ValueError(f"unexpected reply {reply!r}")
        result = reply.get("result")
        results[reply["id"]] = result if isinstance(result, dict) else {}
        out = out[4 + length :]
    if out:
        raise ValueError("the host wrote bytes after its frames: stdout must carry frames only")
    return results, done.stderr.decode("utf-8", "replace")


def _check_sandboxed_install(report: BrowserReport) -> None:
    browser = report.browser
    snap = browser.snap and Path("/snap/bin", browser.snap).exists()
    flatpak = browser.flatpak and (Path.home() / ".var" / "app" / browser.flatpak).is_dir()
    if snap:
        report.findings.append(
            Finding(
                "warn",
                "not a snap",
                f"{browser.label} is installed as a snap: its sandbox blocks native messaging "
                "hosts outside it by default",
                fix="install the browser from a .deb/.rpm or the vendor's package",
            )
        )
    if flatpak and shutil.which("flatpak"):
        report.findings.append(
            Finding(
                "warn",
                "not a flatpak",
                f"{browser.label} runs as a flatpak ({browser.flatpak}): it cannot start host "
                "programs outside its sandbox by default",
                fix="use a non-flatpak build of the browser",
            )
        )
