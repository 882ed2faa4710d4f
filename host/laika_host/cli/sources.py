"""`laika sources ...`: list, show (any version), add (URLs and notes), refresh, list the
versions of and delete sources."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..store import Store
from ..store.collections import DEFAULT_COLLECTION
from ._output import echo, print_json
from ._store import (
    collection_option,
    json_option,
    run_with_store,
    shorten,
    table,
)


@click.group()
def sources() -> None:
    """Captured pages and notes."""


@sources.command("list")
@collection_option
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True)
@json_option
def list_sources(collection: str | None, limit: int, as_json: bool) -> None:
    """List sources, newest first."""
    found = run_with_store(lambda store: store.sources.list(collection, limit=limit))
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
        old = run_with_store(lambda store: store.sources.version(source_id, version))
        print_json(old.to_json()) if as_json else echo(old.markdown)
        return
    found = run_with_store(lambda store: store.sources.get(source_id))
    if as_json:
        print_json(found.to_json())
    else:
        echo(found.markdown or f"(not captured yet: {found.capture_status})")


@sources.command("versions")
@click.argument("source_id")
@json_option
def versions(source_id: str, as_json: bool) -> None:
    """List every capture of a source, oldest first (replaced ones are kept)."""
    found = run_with_store(lambda store: store.sources.versions(source_id))
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
@collection_option
@click.option("--queue-only", is_flag=True, help="Queue the capture; do not fetch now.")
@json_option
def add(url: str, collection: str | None, queue_only: bool, as_json: bool) -> None:
    """Add a URL and capture it (fetched by the host: pages that need no login)."""

    async def work(store: Store) -> dict[str, object]:
        from ..store.worker import run_job

        saved = await store.sources.add_url(collection or DEFAULT_COLLECTION, url)
        job = await store.jobs.queue(saved.source.id)
        if not queue_only:
            claimed = await store.jobs.claim_job(job.id)
            if claimed is not None:
                job = await run_job(store, claimed)
        source = await store.sources.get_summary(saved.source.id)
        return {"outcome": saved.outcome, "source": source.to_json(), "job": job.to_json()}

    result = run_with_store(work)
    if as_json:
        print_json(result)
        return
    job, source = result["job"], result["source"]
    assert isinstance(job, dict)
    assert isinstance(source, dict)
    echo(f"{source['id']} {source['capture_status']}: {source['url']} (job {job['status']})")
    if job.get("last_error"):
        echo(f"last error: {job['last_error']}", err=True)


@sources.command("note")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--title", help="The note's title (default: its first line).")
@collection_option
@json_option
def note(file: str, title: str | None, collection: str | None, as_json: bool) -> None:
    """Add a Markdown note from FILE (`-` for standard input)."""
    text = sys.stdin.read() if file == "-" else _read_text(Path(file))
    saved = run_with_store(
        lambda store: store.sources.add_note(collection or DEFAULT_COLLECTION, text, title=title)
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
@json_option
def refresh(source_id: str, queue_only: bool, force: bool, as_json: bool) -> None:
    """Capture a URL source again now. A capture with much less text or a new login wall
    keeps the saved copy (outcome `kept`, with the reason); a replaced copy stays available
    (`laika sources versions ID`)."""
    if queue_only and force:
        raise click.UsageError("--force applies to a capture made now; drop --queue-only")

    async def work(store: Store) -> dict[str, object]:
        from ..store.worker import run_job

        job = await store.jobs.queue(source_id)
        if not queue_only:
            claimed = await store.jobs.claim_job(job.id)
            if claimed is not None:
                job = await run_job(store, claimed, force=force)
        source = await store.sources.get_summary(source_id)
        return {
            "outcome": job.outcome,
            "reason": job.outcome_reason,
            "source": source.to_json(),
            "job": job.to_json(),
        }

    result = run_with_store(work)
    if as_json:
        print_json(result)
        return
    job, source = result["job"], result["source"]
    assert isinstance(job, dict)
    assert isinstance(source, dict)
    outcome = result["outcome"] or job["status"]
    echo(f"{source['id']} {outcome}: version {source['capture_version']} (job {job['id']})")
    if result["reason"]:
        echo(f"why: {result['reason']}")
    if job.get("last_error"):
        echo(f"last error: {job['last_error']}", err=True)


@sources.command("delete")
@click.argument("source_id")
@json_option
def delete(source_id: str, as_json: bool) -> None:
    """Delete a source (its capture jobs go with it)."""
    deleted = run_with_store(lambda store: store.sources.delete(source_id))
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
