"""`laika sources ...`: list, show (any version), add (URLs and notes), refresh, list the
versions of and delete sources."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..defaults import LIST_LIMIT, MAX_CLI_LIST_LIMIT
from ..service import sources as service
from ._output import echo, print_json
from ._store import (
    allow_private_option,
    collection_option,
    json_option,
    run_with_store,
    save_collection_option,
    shorten,
    table,
)


@click.group()
def sources() -> None:
    """Captured pages and notes."""


@sources.command("list")
@collection_option
@click.option(
    "--limit", type=click.IntRange(1, MAX_CLI_LIST_LIMIT), default=LIST_LIMIT, show_default=True
)
@json_option
def list_sources(collection: str | None, limit: int, as_json: bool) -> None:
    """List sources, newest first."""
    found = run_with_store(
        lambda store: service.list_sources(store, collection=collection, limit=limit)
    )
    if as_json:
        print_json({"sources": [s.to_json() for s in found]})
        return
    rows = [
        [s.id, s.kind, s.capture_status, shorten(s.title, 40), shorten(s.url, 50)] for s in found
    ]
    echo(table(rows, ["ID", "KIND", "STATUS", "TITLE", "URL"]) if rows else "no sources")


@sources.command("show")
@click.argument("source_id")
@click.option(
    "--version",
    "version",
    type=click.IntRange(1),
    default=None,
    help="Show this capture (`laika sources versions ID` lists them).",
)
@json_option
def show(source_id: str, version: int | None, as_json: bool) -> None:
    """Print one source's Markdown (or, with --json, everything stored about it)."""
    if version is not None:
        old = run_with_store(lambda store: service.version(store, source_id, version))
        print_json(old.to_json()) if as_json else echo(old.markdown)
        return
    found = run_with_store(lambda store: service.get_source(store, source_id))
    if as_json:
        print_json(found.to_json())
    else:
        echo(found.markdown or f"(not captured yet: {found.capture_status})")


@sources.command("versions")
@click.argument("source_id")
@json_option
def versions(source_id: str, as_json: bool) -> None:
    """List every capture of a source, oldest first (replaced ones are kept)."""
    found = run_with_store(lambda store: service.versions(store, source_id))
    if as_json:
        print_json({"source_id": source_id, "versions": [v.to_json() for v in found]})
        return
    rows = [
        [
            str(v.version) + (" (current)" if v.current else ""),
            v.captured_at or "",
            f"{v.markdown_chars:,}",
            ",".join(v.signals),
            shorten(v.title, 40),
        ]
        for v in found
    ]
    headers = ["VERSION", "CAPTURED", "CHARS", "SIGNALS", "TITLE"]
    echo(table(rows, headers) if rows else "no captures yet")


@sources.command("add")
@click.argument("url")
@save_collection_option
@click.option("--queue-only", is_flag=True, help="Queue the capture; do not fetch now.")
@allow_private_option
@json_option
def add(
    url: str, collection: str | None, queue_only: bool, allow_private: bool, as_json: bool
) -> None:
    """Add a URL and capture it (fetched by the host: pages that need no login). An
    address on your own machine or network needs --allow-private-address (for this capture,
    now or queued) or the setting capture.allow_private_addresses."""
    from ..service.capture_settings import default_collection, private_addresses_allowed

    allowed = private_addresses_allowed(allow_private)
    added = run_with_store(
        lambda store: service.add_url(
            store,
            url,
            collection=default_collection(collection),
            capture_now=not queue_only,
            allow_private=allowed,
        )
    )
    if as_json:
        print_json(added.to_json())
        return
    job, source = added.job, added.source
    echo(f"{source.id} {source.capture_status}: {source.url} (job {job.status})")
    if job.last_error:
        echo(f"last error: {job.last_error}", err=True)


@sources.command("note")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--title", help="The note's title (default: its first line).")
@save_collection_option
@json_option
def note(file: str, title: str | None, collection: str | None, as_json: bool) -> None:
    """Add a Markdown note from FILE (`-` for standard input)."""
    from ..service.capture_settings import default_collection

    text = sys.stdin.read() if file == "-" else _read_text(Path(file))
    saved = run_with_store(
        lambda store: service.add_note(
            store, text, collection=default_collection(collection), title=title
        )
    )
    if as_json:
        print_json(saved.to_json())
    else:
        echo(f"{saved.source.id} note in {saved.collection}: {saved.source.title}")


@sources.command("refresh")
@click.argument("source_id")
@click.option("--queue-only", is_flag=True, help="Queue the capture (`laika jobs run`).")
@click.option(
    "--force",
    is_flag=True,
    help="Replace the saved copy even when the new capture has much less text or a login wall.",
)
@allow_private_option
@json_option
def refresh(
    source_id: str, queue_only: bool, force: bool, allow_private: bool, as_json: bool
) -> None:
    """Capture a URL source again now. A capture with much less text or a new login wall
    keeps the saved copy (outcome `kept`, with the reason); a replaced copy stays available
    (`laika sources versions ID`). An address on your own machine or network needs
    --allow-private-address or the setting capture.allow_private_addresses."""
    from ..service.capture_settings import private_addresses_allowed

    if queue_only and force:
        raise click.UsageError("--force applies to a capture made now; drop --queue-only")
    allowed = private_addresses_allowed(allow_private)
    done = run_with_store(
        lambda store: service.refresh(
            store,
            source_id,
            capture_now=not queue_only,
            force=force,
            allow_private=allowed,
        )
    )
    if as_json:
        print_json(done.to_json())
        return
    job, source = done.job, done.source
    outcome = job.outcome or job.status
    echo(f"{source.id} {outcome}: version {source.capture_version} (job {job.id})")
    if job.outcome_reason:
        echo(f"why: {job.outcome_reason}")
    if job.outcome == "kept":
        echo(f"to replace it anyway: laika sources refresh {source.id} --force")
    if job.last_error:
        echo(f"last error: {job.last_error}", err=True)


@sources.command("delete")
@click.argument("source_id")
@json_option
def delete(source_id: str, as_json: bool) -> None:
    """Delete a source (its capture jobs go with it)."""
    deleted = run_with_store(lambda store: service.delete_source(store, source_id))
    if as_json:
        print_json({"deleted": deleted.to_json()})
    else:
        echo(f"deleted {deleted.id} {shorten(deleted.title, 60)}")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise click.ClickException(f"no such file: {path}") from None
    except UnicodeDecodeError:
        raise click.ClickException(f"{path} is not UTF-8 text") from None
