"""`laika collections ...`: list, create, rename and delete collections."""

from __future__ import annotations

import click

from ..controls import strip_controls
from ..defaults import DEFAULT_COLLECTION
from ..service import collections as service
from ._output import echo, print_json
from ._store import json_option, run_with_store, table


@click.group(help=f'Named groups of sources (the default one is "{DEFAULT_COLLECTION}").')
def collections() -> None:
    pass


@collections.command("list")
@json_option
def list_collections(as_json: bool) -> None:
    """List collections, most recently changed first."""
    found = run_with_store(service.list_collections)
    if as_json:
        print_json({"collections": [c.to_json() for c in found]})
        return
    if not found:
        from ..service.capture_settings import default_collection

        where = default_collection()
        echo(f"no collections yet: `laika capture PAGE` saves into {where} (created then)")
        return
    rows = [[c.title, str(c.source_count), c.updated_at, c.id] for c in found]
    echo(table(rows, ["TITLE", "SOURCES", "UPDATED", "ID"]))


@collections.command("create")
@click.argument("title")
@json_option
def create(title: str, as_json: bool) -> None:
    """Create a collection."""
    created = run_with_store(lambda store: service.create_collection(store, title))
    print_json(created.to_json()) if as_json else echo(f"created {created.title} ({created.id})")


@collections.command("rename")
@click.argument("collection")
@click.argument("new_title")
@json_option
def rename(collection: str, new_title: str, as_json: bool) -> None:
    """Rename COLLECTION (title or id) to NEW_TITLE."""
    renamed = run_with_store(lambda store: service.rename_collection(store, collection, new_title))
    print_json(renamed.to_json()) if as_json else echo(f"renamed to {renamed.title}")


@collections.command("delete")
@click.argument("collection")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
def delete(collection: str, yes: bool, as_json: bool) -> None:
    """Delete COLLECTION with its sources, jobs, chat and artifacts (LLM run logs stay)."""
    if not yes:
        target = run_with_store(lambda store: service.get_collection(store, collection))
        question = f"delete {target.title} and its {target.source_count} sources?"
        click.confirm(strip_controls(question), abort=True)
    deleted = run_with_store(lambda store: service.delete_collection(store, collection))
    if as_json:
        print_json({"deleted": deleted.to_json()})
    else:
        echo(f"deleted {deleted.title} ({deleted.source_count} sources)")
