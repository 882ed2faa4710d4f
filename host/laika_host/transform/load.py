"""A collection's sources loaded for a run (bodies, metadata, content hashes)."""

from __future__ import annotations

from ..store import InvalidInputError, Store
from ..store.source_snapshot import collection_sources
from .corpus import Corpus, SourceDoc


async def load_corpus(store: Store, collection: str) -> Corpus:
    """The collection's captured sources; an empty collection is refused with what to do."""
    target = await store.collections.get(collection)
    rows = await collection_sources(store.db, target.id)
    if not rows:
        raise InvalidInputError(
            f"the collection “{target.title}” has no captured sources to transform: save "
            f'pages to it first (`laika capture FILE_OR_URL -c "{target.title}"`, or Save '
            "in the browser extension)"
        )
    return Corpus(target.id, target.title, [SourceDoc.from_row(row) for row in rows])
