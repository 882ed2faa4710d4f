"""`laika install`, `laika uninstall`, `laika doctor`: connect the host to your browsers."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ._output import echo, print_json

if TYPE_CHECKING:
    from ..native.install.doctor import BrowserReport
    from ..native.install.findings import Finding

BROWSER_CHOICES = ("chrome", "chromium", "brave", "edge", "vivaldi", "firefox", "all")

_browser_option = click.option(
    "--browser",
    "browsers",
    multiple=True,
    type=click.Choice(BROWSER_CHOICES),
    help="Browser to set up (repeatable; default: all).",
)
_user_data_dir_option = click.option(
    "--user-data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The profile folder of a Chrome-family browser started with --user-data-dir DIR: "
    "use DIR/NativeMessagingHosts/ (the only place that browser then looks).",
)
_extension_id_option = click.option(
    "--extension-id",
    "extension_ids",
    multiple=True,
    help="Chrome-family extension id to allow (repeatable; default: the bundled extension's).",
)
_gecko_id_option = click.option(
    "--gecko-id",
    "gecko_ids",
    multiple=True,
    help="Firefox extension id to allow (default: laika@laika-host.dev).",
)


@click.command()
@_browser_option
@_extension_id_option
@_gecko_id_option
@_user_data_dir_option
def install(
    browsers: tuple[str, ...],
    extension_ids: tuple[str, ...],
    gecko_ids: tuple[str, ...],
    user_data_dir: Path | None,
) -> None:
    """Register the host with your browsers (user level, no root needed).

    Writes one launcher that pins this Python interpreter, this data directory (LAIKA_HOME,
    or the platform's default) and the path of this `laika` (which the side panel names in
    a fix), and a host manifest where each browser looks for it. A browser started with
    --user-data-dir DIR reads manifests only from DIR/NativeMessagingHosts/: pass the same
    --user-data-dir here. Run `laika doctor` afterwards to check the connection.
    """
    from ..native.install.browsers import DEV_EXTENSION_ID, select
    from ..native.install.commands import laika_executable, shell_word
    from ..native.install.install import install as do_install
    from ..native.install.install import pinned_data_dir

    chosen = select(browsers, user_data_dir)
    done = do_install(
        chosen,
        list(extension_ids) or [DEV_EXTENSION_ID],
        gecko_ids=list(gecko_ids),
        user_data_dir=user_data_dir,
    )
    for item in done:
        where = f" (registry {item.registry_key})" if item.registry_key else ""
        echo(f"{item.browser.key:9} {item.manifest}{where}")
    echo(f"data directory {pinned_data_dir()} (pinned in the launcher: the browser uses it too)")
    check = [shell_word(laika_executable() or "laika"), "doctor"]
    if user_data_dir is not None:
        check += ["--user-data-dir", shell_word(os.path.abspath(user_data_dir))]
    echo(f"installed; check with `{' '.join(check)}`")


@click.command()
@_browser_option
@_user_data_dir_option
def uninstall(browsers: tuple[str, ...], user_data_dir: Path | None) -> None:
    """Remove what `laika install` wrote (manifests, registry keys, the launcher)."""
    from ..native.install.browsers import select
    from ..native.install.install import uninstall as do_uninstall

    removed = do_uninstall(select(browsers, user_data_dir), user_data_dir=user_data_dir)
    for path in removed:
        echo(f"removed {path}")
    if not removed:
        echo("nothing to remove")


@click.command()
@_browser_option
@_extension_id_option
@_gecko_id_option
@_user_data_dir_option
@click.option("--no-ping", is_flag=True, help="Skip starting the host for a ping.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def doctor(
    browsers: tuple[str, ...],
    extension_ids: tuple[str, ...],
    gecko_ids: tuple[str, ...],
    user_data_dir: Path | None,
    no_ping: bool,
    as_json: bool,
) -> None:
    """Check each browser's connection to the host and say how to fix what is wrong.

    Checks the database (SQLite's quick_check), then per browser the manifest (present,
    valid, name, type, absolute path, trailing slash, extension id), the launcher, its
    interpreter and data directory (the CLI's?), snap/flatpak sandboxes, and that the host
    answers a ping. Browsers that are not installed are skipped (neither passed nor failed).
    Exits 1 when anything checked has a failure, or when no browser could be checked.
    """
    from ..native.install.browsers import select
    from ..native.install.doctor import DoctorOptions, diagnose, installed, skipped
    from ..native.install.doctor_data import database_findings

    options = DoctorOptions(extension_ids, gecko_ids, user_data_dir, ping=not no_ping)
    named = bool(browsers) or user_data_dir is not None  # what is named is always checked
    reports = [
        diagnose(browser, options) if named or installed(browser) else skipped(browser)
        for browser in select(browsers, user_data_dir)
    ]
    data = database_findings()
    data_ok = all(f.level != "fail" for f in data)
    checked = [r for r in reports if not r.skipped]
    ok = data_ok and bool(checked) and all(r.ok for r in checked)
    if as_json:
        store = {"ok": data_ok, "findings": [f.__dict__ for f in data]}
        print_json({"ok": ok, "data": store, "browsers": [r.to_json() for r in reports]})
    else:
        _print_findings("Data", data)
        _print_reports(reports, data_ok)
    sys.exit(0 if ok else 1)


def _print_findings(title: str, findings: list[Finding]) -> None:
    marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "skip": "skip"}
    echo(title)
    for finding in findings:
        line = f"  {marks[finding.level]}  {finding.check}"
        echo(line + (f": {finding.detail}" if finding.detail else ""))
        if finding.browser_says:
            echo(f"        the browser says: {finding.browser_says!r}")
        if finding.fix:
            echo(f"        fix: {finding.fix}")


def _print_reports(reports: list[BrowserReport], data_ok: bool) -> None:
    for report in reports:
        if report.skipped:
            echo(f"{report.browser.label}: skipped, {report.findings[0].detail}")
            continue
        _print_findings(f"{report.browser.label} ({report.manifest})", report.findings)
    failed = ["data"] * (not data_ok) + [r.browser.key for r in reports if not r.ok]
    checked = [r.browser.key for r in reports if not r.skipped]
    if failed:
        echo(f"problems with: {', '.join(failed)}")
    elif checked:
        echo(f"all checks passed for: data, {', '.join(checked)}")
    else:
        echo("no browser checked: none is installed (start one once, then `laika install`)")
