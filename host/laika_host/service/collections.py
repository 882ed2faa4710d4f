"""Collections: named groups of sources (titles unique ignoring case; `DEFAULT_COLLECTION`
when none is named)."""

from __future__ import annotations

from ..events import payloads
from ..events.bus import emit
from ..store import Collection, Store


async def list_collections(store: Store) -> list[Collection]:
    """Every collection with its source count, most recently changed first."""
    return await store.collections.list()


async def get_collection(store: Store, collection: str) -> Collection:
    """One collection by title or id; NotFoundError lists the existing ones."""
    return await store.collections.get(collection)


async def create_collection(
    store: Store, title: str, *, tags: list[str] | None = None
) -> Collection:
    """A new collection; ConflictError when the title (ignoring case) is taken."""
    created = await store.collections.create(title, tags)
    await emit(store, "collection.created", payloads.collection_created(created))
    return created


async def rename_collection(store: Store, collection: str, title: str) -> Collection:
    return await store.collections.rename(collection, title)


async def delete_collection(store: Store, collection: str) -> Collection:
    """Delete it with its sources, jobs, chat and artifacts (LLM run logs stay)."""
    return await store.collections.delete(collection)
