"""`laika install` / `laika uninstall`: register the host with each browser, user-level.

For every browser: a host manifest filled from `install_manifest.json` (Chrome-family
`allowed_origins` with the trailing slash, Firefox `allowed_extensions`), written where that
browser looks, pointing at one launcher that pins this exact interpreter (a pyenv shim would
add ~450 ms to every start). On Windows the manifest path goes into the HKCU registry key the
browser reads, and the launcher is a `.bat` file.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shlex
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ...paths import data_dir, ensure_private_dir
from .browsers import GECKO_ID, HOST_NAME, Browser, chrome_origin
from .commands import CLI_VARIABLE, laika_executable

LAUNCHER_NAME = "laika-native-host"
HOME_VARIABLE = "LAIKA_HOME"


def manifest_template() -> dict[str, Any]:
    """`install_manifest.json`: shipped in the wheel, or read from the source checkout."""
    packaged = resources.files("laika_host.native").joinpath("install_manifest.json")
    if packaged.is_file():
        text = packaged.read_text(encoding="utf-8")
    else:
        text = (Path(__file__).resolve().parents[4] / "install_manifest.json").read_text("utf-8")
    template: dict[str, Any] = json.loads(text)
    return template


def launcher_path(directory: Path | None = None) -> Path:
    suffix = ".bat" if sys.platform == "win32" else ""
    return (directory or data_dir() / "bin") / f"{LAUNCHER_NAME}{suffix}"


def launcher_text(
    python: str = sys.executable, home: Path | None = None, cli: str | None = None
) -> str:
    """The script the browser executes: this interpreter, running the host module, with the
    data directory `laika install` ran with (`home`, default: this process's) and the path of
    the `laika` that ran it (`cli`, exported as LAIKA_CLI: the panel's "host missing" screen
    names it)."""
    pinned = str(home or pinned_data_dir())
    if sys.platform == "win32":
        batch_home = pinned.replace("%", "%%")  # a batch file expands %NAME%
        batch_cli = f'set "{CLI_VARIABLE}={cli.replace("%", "%%")}"\r\n' if cli else ""
        return (
            f'@echo off\r\nset "{HOME_VARIABLE}={batch_home}"\r\n{batch_cli}'
            f'"{python}" -m laika_host.native %*\r\n'
        )
    return (
        "#!/bin/sh\n"
        "# Written by `laika install`: runs the Laika native-messaging host with a pinned\n"
        "# interpreter and the data directory install ran with (so the browser's host and the\n"
        "# CLI share one store). Re-run `laika install` after moving either.\n"
        f"export {HOME_VARIABLE}={shlex.quote(pinned)}\n"
        + (f"export {CLI_VARIABLE}={shlex.quote(cli)}\n" if cli else "")
        + f'exec {shlex.quote(python)} -m laika_host.native "$@"\n'
    )


def pinned_data_dir() -> Path:
    """The data directory to pin: absolute, since the browser starts the host in a working
    directory of its own (a relative LAIKA_HOME would name another place there)."""
    return data_dir().absolute()


def write_launcher(
    path: Path | None = None,
    python: str = sys.executable,
    home: Path | None = None,
    cli: str | None = None,
) -> Path:
    target = path or launcher_path()
    ensure_private_dir(target.parent)
    text = launcher_text(python, home, cli if cli is not None else laika_executable())
    target.write_text(text, encoding="utf-8", newline="")
    target.chmod(0o700)  # only this user runs it (the browser runs as this user)
    return target


def build_manifest(
    browser: Browser, launcher: Path, extension_ids: list[str], gecko_ids: list[str]
) -> dict[str, Any]:
    manifest = manifest_template()
    manifest["name"] = HOST_NAME
    manifest["path"] = str(launcher.resolve())
    if browser.family == "firefox":
        manifest["allowed_extensions"] = gecko_ids or [GECKO_ID]
        manifest.pop("allowed_origins", None)
    else:
        manifest["allowed_origins"] = [chrome_origin(i) for i in extension_ids]
        manifest.pop("allowed_extensions", None)
    return manifest


@dataclass(frozen=True)
class Installed:
    browser: Browser
    manifest: Path
    registry_key: str | None = None


def install(
    browsers: list[Browser],
    extension_ids: list[str],
    *,
    gecko_ids: list[str] | None = None,
    user_data_dir: Path | None = None,
    home: Path | None = None,
) -> list[Installed]:
    """Write the launcher and one manifest per browser; returns what was written."""
    launcher = write_launcher()
    done = []
    for browser in browsers:
        manifest = build_manifest(browser, launcher, extension_ids, gecko_ids or [])
        path = browser.manifest_path(user_data_dir, home)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        key = _register_windows(browser, path) if sys.platform == "win32" else None
        done.append(Installed(browser, path, key))
    return done


def uninstall(
    browsers: list[Browser], *, user_data_dir: Path | None = None, home: Path | None = None
) -> list[Path]:
    """Remove our manifests (and registry keys); the launcher goes when none is left."""
    removed = []
    for browser in browsers:
        path = browser.manifest_path(user_data_dir, home)
        if path.exists():
            path.unlink()
            removed.append(path)
        if sys.platform == "win32":
            _unregister_windows(browser)
    if not any(b.manifest_path(None, home).exists() for b in _all_browsers()):
        launcher_path().unlink(missing_ok=True)
    return removed


def _all_browsers() -> list[Browser]:
    from .browsers import BROWSERS

    return list(BROWSERS.values())


def _register_windows(browser: Browser, manifest: Path) -> str:  # pragma: no cover - Windows
    if sys.platform != "win32":
        raise RuntimeError("the registry exists only on Windows")
    import winreg

    key = f"{browser.windows_registry}\\{HOST_NAME}"
    with winreg.CreateKey(winreg.HKEY_CURRENT_USER, key) as handle:
        winreg.SetValueEx(handle, "", 0, winreg.REG_SZ, str(manifest))
    return f"HKCU\\{key}"


def _unregister_windows(browser: Browser) -> None:  # pragma: no cover - Windows
    if sys.platform != "win32":
        raise RuntimeError("the registry exists only on Windows")
    import winreg

    with contextlib.suppress(FileNotFoundError):
        winreg.DeleteKey(winreg.HKEY_CURRENT_USER, f"{browser.windows_registry}\\{HOST_NAME}")


@dataclass(frozen=True)
class LauncherPins:
    """What a launcher `laika install` wrote runs: its interpreter and its data directory
    (None in a launcher from before data directories were pinned)."""

    python: str
    data_dir: Path | None


def read_launcher(launcher: Path) -> LauncherPins | None:
    """The pins of a launcher `laika install` wrote (for `laika doctor`); None for any other
    program or an unreadable file."""
    try:  # bytes, not read_text: universal newlines would turn a "\r" in a path into "\n"
        text = launcher.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return read_launcher_text(text)


def read_launcher_text(text: str) -> LauncherPins | None:
    """`read_launcher` on the script's text: a Windows batch file or a POSIX shell script."""
    return _read_batch(text) if text.startswith("@echo off") else _read_shell(text)


def _read_shell(text: str) -> LauncherPins | None:
    """Read as the shell does (shlex: quoting, newlines inside quotes), not line by line."""
    try:
        words = shlex.split(text, comments=True)
    except ValueError:  # unbalanced quotes: not ours
        return None
    python = home = None
    for word, following in itertools.pairwise(words):
        if word == "exec" and python is None:
            python = following
        elif word == "export" and following.startswith(f"{HOME_VARIABLE}="):
            home = Path(following.partition("=")[2])
    return LauncherPins(python, home) if python else None


def _read_batch(text: str) -> LauncherPins | None:  # the Windows launcher
    python = home = None
    for raw in text.split("\n"):  # not splitlines(): it splits at U+2028, allowed in a path
        line = raw.strip()
        if line.startswith(f'set "{HOME_VARIABLE}=') and line.endswith('"'):
            home = Path(line[len(f'set "{HOME_VARIABLE}=') : -1].replace("%%", "%"))
        elif line.startswith('"') and "-m laika_host.native" in line:
            python = line.split('"')[1]
    return LauncherPins(python, home) if python else None


def python_from_launcher(launcher: Path) -> str | None:
    """The interpreter a launcher pins (for `laika doctor`)."""
    pins = read_launcher(launcher)
    return pins.python if pins else None


def env_python_ok(python: str) -> bool:
    return os.path.isfile(python) and os.access(python, os.X_OK)
