"""`laika search QUERY`: full-text search over sources and artifacts."""

from __future__ import annotations

import click

from ..defaults import MAX_SEARCH_LIMIT, SEARCH_LIMIT
from ._output import echo, print_json
from ._store import collection_option, json_option, run_with_store, shorten


@click.command()
@click.argument("query", nargs=-1, required=True)
@collection_option
@click.option(
    "--limit", type=click.IntRange(1, MAX_SEARCH_LIMIT), default=SEARCH_LIMIT, show_default=True
)
@json_option
def search(query: tuple[str, ...], collection: str | None, limit: int, as_json: bool) -> None:
    """Find sources and artifacts by words or "quoted phrases" (all words first, then any)."""
    from ..service.search import search as search_service

    text = " ".join(query)
    found = run_with_store(
        lambda store: search_service(store, text, collection=collection, limit=limit)
    )
    if as_json:
        print_json(found.to_json())
        return
    if not found.hits:
        echo(f"nothing found for {text!r}")
    for hit in found.hits:
        echo(f"{hit.id}  {shorten(hit.title, 70)}")
        if hit.url:
            echo(f"    {hit.url}")
        echo(f"    {shorten(hit.snippet, 160)}")
