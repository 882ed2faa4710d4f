"""`laika db check` and `laika db backup`: is the store whole, and a copy you can keep."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from ._output import echo, print_json
from ._store import json_option


@click.group()
def db() -> None:
    """Check the database (laika.db in the data directory) or back it up."""


@db.command("check")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--full", is_flag=True, help="integrity_check and the search indexes (slower).")
@json_option
def check(file: Path | None, full: bool, as_json: bool) -> None:
    """Run SQLite's quick_check on the database (or FILE, e.g. a backup); exit 1 if not ok.

    Reads only: nothing is migrated or changed, whatever state the file is in.
    """
    from ..store import default_db_path
    from ..store.health import check_database

    result = asyncio.run(check_database(file or default_db_path(), full=full))
    if as_json:
        print_json(result.to_json())
    elif not result.exists:
        echo(f"no database at {result.path} yet (Laika creates it when it first saves)")
    elif result.ok:
        echo(f"ok: {result.path} ({result.to_json()['check']}, {_size(result.path)})")
    else:
        echo(f"laika: {result.path} is not ok ({result.to_json()['check']}):", err=True)
        for problem in result.problems:
            echo(f"  {problem}", err=True)
        echo("see README, 'Back up and restore', for what to do", err=True)
    sys.exit(0 if result.ok else 1)


@db.command("backup")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH if it exists.")
@json_option
def backup(path: Path, force: bool, as_json: bool) -> None:
    """Copy the database to PATH (mode 0600), safely while the browser or the CLI write.

    Uses SQLite's online backup, so the copy is one consistent state of the store; it is
    checked (quick_check) before it takes PATH's name. Refuses an existing PATH unless --force.
    """
    from ..store import default_db_path
    from ..store.health import backup_database

    done = backup_database(default_db_path(), path, force=force)
    if as_json:
        print_json(done.to_json())
    else:
        echo(f"backed up {done.source} to {done.target} ({_size(done.target)}, quick_check ok)")


def _size(path: Path) -> str:
    size = path.stat().st_size
    return f"{size / 1_048_576:.1f} MB" if size >= 1_048_576 else f"{size / 1024:.0f} KB"
