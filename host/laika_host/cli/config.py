"""`laika config ...`: read and change the settings registry, list and revert its history."""

from __future__ import annotations

import json
import time

import click

from ..service import config as service
from ._output import echo, print_json
from ._store import json_option, table


@click.group()
def config() -> None:
    """Settings (config/registry.json in the data directory; every change is a git commit).

    Secrets are never stored: only the names of the environment variables holding keys; a
    value or name that holds a key or password, or says it does ("my password is ..."), is
    refused.
    """


@config.command("get")
@click.argument("path", required=False)
def get(path: str | None) -> None:
    """Print a setting (e.g. `providers.default`) as JSON, or every setting."""
    print_json(service.get(path))


@config.command("set")
@click.argument("path")
@click.argument("value")
@json_option
def set_(path: str, value: str, as_json: bool) -> None:
    """Set PATH to VALUE (read as JSON when it parses: `true`, `3`, `["a"]`; else text)."""
    change = service.set_value(path, service.parse_value(value), who="cli")
    if as_json:
        print_json(change.to_json())
    else:
        echo(
            f"{path} = {json.dumps(service.get(path))} (version {change.version}, "
            f"commit {change.commit[:12]})"
        )


@config.command("history")
@click.argument("path", required=False)
@click.option(
    "--limit",
    type=click.IntRange(1, service.MAX_HISTORY_LIMIT),
    default=service.DEFAULT_HISTORY_LIMIT,
    show_default=True,
    help="At most this many commits.",
)
@json_option
def history(path: str | None, limit: int, as_json: bool) -> None:
    """The changes, newest first (only those touching PATH when given)."""
    items = service.history_of(path, limit=limit)
    if as_json:
        print_json({"commits": [item.to_json() for item in items]})
        return
    rows = [[item.commit[:12], _when(item.time), item.message.splitlines()[0]] for item in items]
    echo(table(rows, ["COMMIT", "TIME", "CHANGE"]))


@config.command("revert")
@click.argument("commit")
@json_option
def revert(commit: str, as_json: bool) -> None:
    """Undo what COMMIT changed, as a new commit (refused when a later change touched the
    same setting)."""
    change = service.revert(commit, who="cli")
    if as_json:
        print_json(change.to_json())
    else:
        echo(
            f"reverted {commit}: {', '.join(change.paths)} (version {change.version}, "
            f"commit {change.commit[:12]})"
        )


def _when(seconds: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
