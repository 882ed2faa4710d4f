"""Markdown a model wrote, kept as an artifact of type `note` (LLMCP `artifact.save`).

It is stored as written, like a chat answer's Markdown: the store redacts every text it
writes (`store.redact`, whatever the caller asks), and it is only ever shown through the safe
renderer (`service.artifact_page`). It cites nothing the host checked, so it has no items.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..defaults import DEFAULT_COLLECTION
from ..store import InvalidInputError, Store
from ..store.artifacts import ArtifactOutcome
from ..store.ids import new_id
from ..transform import get_artifact

NOTE_TYPE = "note"
MAX_NOTE_CHARS = 500_000
MAX_TITLE_CHARS = 300


async def save_note(
    store: Store,
    title: str,
    markdown: str,
    *,
    collection: str = DEFAULT_COLLECTION,
    tags: list[str] | None = None,
) -> dict[str, Any]:
    """A completed `note` artifact holding `markdown`, in `collection` (title or id; a new
    title makes the collection); the stored view."""
    if not title.strip():
        raise InvalidInputError("the artifact's title is empty: give it a title")
    if len(markdown) > MAX_NOTE_CHARS:
        raise InvalidInputError(
            f"the Markdown has {len(markdown):,} characters; at most {MAX_NOTE_CHARS:,} are "
            "kept: save a shorter text or split it"
        )
    # created when missing, as saving a source into it would
    target = await store.collections.find(collection) or await store.collections.ensure(collection)
    digest = json.dumps([target.id, NOTE_TYPE, title, markdown, new_id("art")])
    created = await store.artifacts.create(
        target.id,
        NOTE_TYPE,
        " ".join(title.split())[:MAX_TITLE_CHARS],
        dedupe_key=hashlib.sha256(digest.encode("utf-8", "surrogatepass")).hexdigest(),
        config={"tags": list(tags or [])},
        sources=[],
        provider="model",
    )
    await store.artifacts.finish(
        created.id, "completed", outcome=ArtifactOutcome(markdown=markdown)
    )
    return await get_artifact(store, created.id)
