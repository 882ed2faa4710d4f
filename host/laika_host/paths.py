"""Where Laika keeps its files: one data directory per user, overridable with LAIKA_HOME."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

APP_DIR_NAME = "laika"


def data_dir() -> Path:
    """The user's Laika data directory (created on first use by whoever writes to it).

    `LAIKA_HOME` wins; otherwise the platform's convention: `$XDG_DATA_HOME/laika` (default
    `~/.local/share/laika`) on Linux, `~/Library/Application Support/Laika` on macOS,
    `%APPDATA%\\Laika` on Windows.
    """
    override = os.environ.get("LAIKA_HOME")
    if override:
        return Path(override).expanduser()
    return platform_data_dir()


def platform_data_dir() -> Path:
    """The data directory without LAIKA_HOME: what a host started by a browser that does not
    have the variable uses, unless its launcher pins one (`laika doctor` compares them)."""
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Laika"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Laika"
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share") / APP_DIR_NAME


def logs_dir() -> Path:
    return data_dir() / "logs"


PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_GROUP_AND_OTHERS = 0o077


def keep_files_private() -> None:
    """From now on this process creates files 0600 and directories 0700, whatever umask it
    was started with.

    WHY a umask: much of what lands in the data directory is created by code that takes no
    mode (SQLite's laika.db, -wal and -shm, logging's rotated files, json writes), so
    setting modes file by file would always miss one. The mask only ever tightens.
    """
    if os.name != "posix":
        return
    os.umask(os.umask(_GROUP_AND_OTHERS) | _GROUP_AND_OTHERS)


def ensure_private_dir(path: Path) -> Path:
    """Create `path` for data of this user only: every directory created here (parents
    included) is 0700, and files created afterwards by this process are private.

    A directory that already exists keeps its mode: one the user named (LAIKA_HOME) may be
    shared on purpose. Every Laika entry point that writes data goes through here.
    """
    keep_files_private()
    missing = [path, *path.parents]
    missing = [directory for directory in missing if not directory.exists()]
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:  # another process made it first
            continue
        if os.name == "posix":
            directory.chmod(PRIVATE_DIR_MODE)
    return path


def tighten_file(path: Path) -> None:
    """Make an existing file of ours 0600 if it is open to others (left by an older Laika)."""
    if os.name != "posix":
        return
    try:
        mode = path.stat().st_mode
        if mode & _GROUP_AND_OTHERS and path.stat().st_uid == os.getuid():
            path.chmod(stat.S_IMODE(mode) & ~_GROUP_AND_OTHERS)
    except FileNotFoundError:
        return
