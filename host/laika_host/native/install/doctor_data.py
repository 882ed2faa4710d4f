"""`laika doctor`: does the browser's host use the CLI's data directory?

A browser starts the host without the shell's environment, so a `LAIKA_HOME` set where the
CLI runs does not reach it unless the launcher pins it (`laika install` does). Two stores
that each look healthy are the worst failure here: pages saved in the browser never show
up in `laika ask`. Checked twice: the directory the launcher pins, and the one a real host
started by it reports in `host.info`.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...paths import data_dir, platform_data_dir
from .findings import Finding
from .install import HOME_VARIABLE, LauncherPins

CHECK = "host uses the CLI's data directory"


def same_dir(first: Path | str, second: Path | str) -> bool:
    """One directory, however spelled (relative, `~`, symlinks)."""
    return os.path.realpath(Path(first).expanduser()) == os.path.realpath(Path(second).expanduser())


def check_pinned(pins: LauncherPins, install_command: str) -> Finding:
    """Compare the launcher's data directory with this process's."""
    mine = data_dir()
    fix = f"run `{install_command}` here (it pins {mine})"
    if pins.data_dir is None:
        theirs = platform_data_dir()
        detail = (
            "the launcher pins no data directory (an older `laika install`): "
            f"the host uses {theirs}"
        )
        if same_dir(theirs, mine):
            return Finding("warn", CHECK, f"{detail}, as this CLI does", fix=fix)
        detail += f" (or the browser's {HOME_VARIABLE}), this CLI uses {mine}"
        return Finding("fail", CHECK, detail, fix=fix)
    if same_dir(pins.data_dir, mine):
        return Finding("ok", CHECK, str(mine))
    detail = (
        f"the host uses {pins.data_dir} (pinned in the launcher), this CLI uses {mine}: "
        "pages the browser saves are not where `laika` looks"
    )
    other_way = f"; or set {HOME_VARIABLE}={pins.data_dir} wherever you run laika"
    return Finding("fail", CHECK, detail, fix=fix + other_way)


def check_reported(reported: object, install_command: str) -> Finding | None:
    """The running host's own answer (`host.info` data_dir); None when it agrees."""
    mine = data_dir()
    if isinstance(reported, str) and same_dir(reported, mine):
        return None
    detail = (
        f"a host started by the launcher reports data directory {reported!r}, this CLI uses {mine}"
    )
    return Finding("fail", CHECK, detail, fix=f"run `{install_command}` here (it pins {mine})")


def browser_environment() -> dict[str, str]:
    """The environment a browser started from the desktop gives the host: no LAIKA_HOME."""
    return {name: value for name, value in os.environ.items() if name != HOME_VARIABLE}


def database_findings() -> list[Finding]:
    """The store itself: where it is, and SQLite's quick_check of it (reads only)."""
    import asyncio

    from ...store import default_db_path
    from ...store.health import check_database

    where = "LAIKA_HOME" if os.environ.get(HOME_VARIABLE) else "the platform's default"
    findings = [Finding("ok", "data directory", f"{data_dir()} ({where})")]
    result = asyncio.run(check_database(default_db_path()))
    if not result.exists:
        detail = f"no database at {result.path} yet (created when something is first saved)"
        findings.append(Finding("ok", "database quick_check", detail))
    elif result.ok:
        findings.append(Finding("ok", "database quick_check", f"{result.path}: ok"))
    else:
        fix = "`laika db check --full` for details; README, 'Back up and restore'"
        findings.append(
            Finding("fail", "database quick_check", "; ".join(result.problems), fix=fix)
        )
    return findings
