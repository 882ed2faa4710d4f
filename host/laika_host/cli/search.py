"""`laika search QUERY`: full-text search over sources and artifacts."""

from __future__ import annotations

import click

from ..store import SearchHit, Store
from ._output import echo, print_json
from ._store import collection_option, json_option, run_with_store, shorten


@click.command()
@click.argument("query", nargs=-1, required=True)
@collection_option
@click.option("--limit", type=click.IntRange(1, 200), default=20, show_default=True)
@json_option
def search(query: tuple[str, ...], collection: str | None, limit: int, as_json: bool) -> None:
    """Find sources and artifacts by words or "quoted phrases" (all words first, then any)."""
    text = " ".join(query)

    async def work(store: Store) -> list[SearchHit]:
        collection_id = (await store.collections.get(collection)).id if collection else None
        return await store.search.query(text, collection_id=collection_id, limit=limit)

    hits = run_with_store(work)
    if as_json:
        print_json({"query": text, "hits": [hit.to_json() for hit in hits]})
        return
    if not hits:
        echo(f"nothing found for {text!r}")
    for hit in hits:
        echo(f"{hit.id}  {shorten(hit.title, 70)}")
        if hit.url:
            echo(f"    {hit.url}")
        echo(f"    {shorten(hit.snippet, 160)}")
