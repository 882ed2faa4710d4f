"""`laika artifacts list|show|export|delete|cancel`: what transforms made, reopened."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import click

from ._output import echo, print_json
from ._store import json_option, run_with_store, shorten, table

FORMATS = ("md", "txt", "json", "csv", "html")


@click.group()
def artifacts() -> None:
    """The artifacts transforms made: list, show, export to a file, delete."""


@artifacts.command("list")
@click.option("--collection", "-c", default=None, help="Only this collection (title or id).")
@json_option
def list_command(collection: str | None, as_json: bool) -> None:
    """The artifacts of every collection (or of one), newest first."""
    from ..service.artifacts import list_collection_artifacts

    found = run_with_store(lambda store: list_collection_artifacts(store, collection))
    if as_json:
        print_json({"artifacts": found})
        return
    rows = [_row(a) for a in found]
    echo(table(rows, ["ID", "TYPE", "STATUS", "ITEMS", "TITLE"]) if rows else "no artifacts")


def _row(artifact: dict[str, Any]) -> list[str]:
    status = str(artifact["status"]) + (" (stale)" if artifact.get("stale") else "")
    return [
        str(artifact["id"]),
        str(artifact["type"]),
        status,
        str(len(artifact.get("items") or [])),
        shorten(str(artifact.get("title") or ""), 50),
    ]


@artifacts.command("show")
@click.argument("artifact_id", metavar="ID")
@json_option
def show_command(artifact_id: str, as_json: bool) -> None:
    """One artifact: its Markdown (`--json`: everything stored, with `stale`)."""
    from ..service.artifacts import show_artifact

    artifact = run_with_store(lambda store: show_artifact(store, artifact_id))
    if as_json:
        print_json(artifact)
        return
    echo(artifact.get("content_markdown") or f"(no content: {artifact['status']})")
    echo(" ".join(_row(artifact)[:3]), err=True)
    if artifact.get("stale"):
        echo(f"laika: {_stale_reason(artifact)}; build it again: {_rerun(artifact)}", err=True)


def _stale_reason(artifact: dict[str, Any]) -> str:
    changes = [f"{s['source_id']} {s['reason']}" for s in artifact.get("stale_sources") or []]
    return "stale since it was built (" + ", ".join(changes) + ")"


def _rerun(artifact: dict[str, Any]) -> str:
    """The command that rebuilds the artifact with the same type, collection, settings and
    provider (`--force`: the stored one would otherwise be reused only if still current)."""
    words = ["laika", "transform", "run", str(artifact["type"])]
    words += ["--collection", str(artifact["collection_id"])]
    for key, value in sorted((artifact.get("config") or {}).items()):
        words += ["--config", f"{key}={json.dumps(value, ensure_ascii=False)}"]
    if artifact.get("provider") not in (None, "offline", "metadata"):
        words += ["--provider", str(artifact["provider"])]
    return shlex.join([*words, "--force"])


@artifacts.command("export")
@click.argument("artifact_id", metavar="ID")
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="A file, or a folder to name one in from the title.",
)
@click.option("--table", type=click.IntRange(min=1), help="CSV: only table N (1-based).")
@click.option("--force", is_flag=True, help="Replace an existing file.")
def export_command(
    artifact_id: str, fmt: str, output: Path, table: int | None, force: bool
) -> None:
    """Write an artifact to a file: Markdown with YAML front matter, text, JSON, CSV, HTML.

    A relative --output must stay inside the working directory; nothing is written through
    a symbolic link or over an existing file without --force. Files are private (0600).
    """
    from ..service.artifacts import export_artifact

    written = run_with_store(
        lambda store: export_artifact(store, artifact_id, fmt, output, table=table, force=force)
    )
    for path in written:
        echo(str(path))


@artifacts.command("delete")
@click.argument("artifact_id", metavar="ID")
@json_option
def delete_command(artifact_id: str, as_json: bool) -> None:
    """Delete an artifact."""
    from ..service.artifacts import delete_artifact

    deleted = run_with_store(lambda store: delete_artifact(store, artifact_id))
    if as_json:
        print_json(deleted)
    else:
        echo(f"deleted {deleted['id']}")


@artifacts.command("cancel")
@click.argument("artifact_id", metavar="ID")
def cancel_command(artifact_id: str) -> None:
    """Ask the process making an artifact to stop (it keeps the items so far)."""
    from ..service.artifacts import cancel_artifact

    asked = run_with_store(lambda store: cancel_artifact(store, artifact_id))
    echo("cancel requested" if asked else f"{artifact_id} is not being made")
