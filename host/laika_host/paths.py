"""Where Laika keeps its files: one data directory per user, overridable with LAIKA_HOME."""

from __future__ import annotations

import os
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
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Laika"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Laika"
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share") / APP_DIR_NAME


def logs_dir() -> Path:
    return data_dir() / "logs"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) readable by this user only; our data is personal."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
