"""Full-text search over sources and artifacts, optionally within one collection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..defaults import SEARCH_LIMIT
from ..store import SearchHit, Store


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: list[SearchHit]

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "hits": [hit.to_json() for hit in self.hits]}


async def search(
    store: Store, query: str, *, collection: str | None = None, limit: int = SEARCH_LIMIT
) -> SearchResult:
    """bm25-ranked hits with snippets (all words first, then any); `collection` is a title or
    id, resolved here so that every caller accepts both."""
    collection_id = (await store.collections.get(collection)).id if collection else None
    hits = await store.search.query(query, collection_id=collection_id, limit=limit)
    return SearchResult(query, hits)
