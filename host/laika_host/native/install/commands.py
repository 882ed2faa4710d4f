"""The commands that fix a browser's connection, written the same way wherever they are shown:
`laika doctor`'s fixes, what `laika install` says to run next, and the side panel's "host
missing" screen (`extension/lib/host_fix.js` builds the same strings; tests/test_host_fix.py
holds the two together).

A command names `laika` by its absolute path: after the README's Quick start it lives in the
clone's `.venv/bin`, which is not on PATH, so a bare `laika install` fails with "command not
found". `laika install` pins that path in the launcher (`LAIKA_CLI`), so the host a browser
starts can tell the panel which `laika` installed it.

Kept free of heavy imports: the host reads `CLI_VARIABLE` when it answers `host.info`.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

CLI_VARIABLE = "LAIKA_CLI"
"""Set by the launcher `laika install` writes: the absolute path of the `laika` that ran it."""
COMMAND_NAME = "laika"
_POSIX_UNSAFE = re.compile(r"[^\w@%+=:,./-]", re.ASCII)  # shlex.quote's test
_BLANK = re.compile(r"[ \t]")
BACKSLASH = "\\"


def laika_executable() -> str | None:
    """The absolute path of the `laika` command running now (or, in a process that is not
    `laika`, the one installed beside this interpreter, else the one on PATH); None when
    there is none to name."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.stem == COMMAND_NAME and argv0.is_file():
        return os.path.abspath(argv0)  # not resolve(): a venv's bin/ may hold symlinks
    suffix = ".exe" if sys.platform == "win32" else ""
    beside = Path(sys.executable).absolute().parent / f"{COMMAND_NAME}{suffix}"
    if beside.is_file():
        return str(beside)
    found = shutil.which(COMMAND_NAME)
    return os.path.abspath(found) if found else None


def pinned_cli() -> str | None:
    """The `laika` that installed the running host (the launcher's `LAIKA_CLI`), else the
    best guess of `laika_executable`."""
    pinned = os.environ.get(CLI_VARIABLE, "").strip()
    return pinned if pinned and os.path.isabs(pinned) else laika_executable()


def shell_word(text: str, windows: bool | None = None) -> str:
    """`text` as one word of a command line: POSIX shells as `shlex.quote`; on Windows in
    double quotes when it holds a space (a Windows path cannot hold a double quote)."""
    on_windows = sys.platform == "win32" if windows is None else windows
    if on_windows:
        if text and not _BLANK.search(text):
            return text
        trailing = len(text) - len(text.rstrip(BACKSLASH))
        return '"' + text + BACKSLASH * trailing + '"'  # backslashes before a quote double
    if text and not _POSIX_UNSAFE.search(text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def fix_command(
    verb: str,
    browser: str,
    *,
    cli: str | None,
    family: str | None = None,
    user_data_dir: Path | str | None = None,
    extension_ids: Sequence[str] = (),
    gecko_ids: Sequence[str] = (),
    windows: bool | None = None,
) -> str:
    """`<laika> install|doctor --browser B [--user-data-dir DIR] [--extension-id ID]...`:
    `cli` is the absolute path of `laika` (None: the bare name, when none is known);
    `--user-data-dir` only for a Chrome-family browser (`family`, default: Firefox's for
    `firefox`, else Chrome's)."""
    family = family or ("firefox" if browser == "firefox" else "chromium")
    words = [shell_word(cli, windows) if cli else COMMAND_NAME, verb, "--browser", browser]
    if user_data_dir is not None and family == "chromium":
        words += ["--user-data-dir", shell_word(str(user_data_dir), windows)]
    if family == "firefox":
        for gecko_id in gecko_ids:
            words += ["--gecko-id", shell_word(gecko_id, windows)]
    else:
        for extension_id in extension_ids:
            words += ["--extension-id", shell_word(extension_id, windows)]
    return " ".join(words)
