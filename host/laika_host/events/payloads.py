"""Each trigger's payload, built from what the service layer has in hand after the operation
committed (`event.TRIGGER_FIELDS` lists the fields, a test checks both agree)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from ..agent.flows import Answer
    from ..store import Collection, SavedSource, Store
    from ..store.records import CaptureJob
    from ..transform import TransformResult


def domain_of(url: str | None) -> str:
    """The URL's host, lower case, without a trailing dot ("" when there is none)."""
    try:
        return (urlsplit((url or "").strip()).hostname or "").rstrip(".")
    except ValueError:
        return ""


def captured(saved: SavedSource) -> dict[str, Any]:
    source = saved.source
    return {
        "source_id": source.id,
        "url": source.url or "",
        "domain": domain_of(source.url),
        "title": source.title or "",
        "collection": saved.collection,
        "collection_id": source.collection_id,
        "chars": source.markdown_chars,
        "signals": list(source.signals),
        "outcome": saved.outcome,
    }


async def capture_failed(store: Store, job: CaptureJob) -> dict[str, Any]:
    source = await store.sources.get_summary(job.source_id)
    collection = await store.collections.find(job.collection_id)
    return {
        "source_id": source.id,
        "url": source.url or "",
        "domain": domain_of(source.url),
        "collection": collection.title if collection else "",
        "collection_id": job.collection_id,
        "error": job.last_error or source.capture_error or "",
    }


async def artifact_completed(store: Store, result: TransformResult) -> dict[str, Any]:
    artifact = result.artifact
    collection_id = str(artifact.get("collection_id") or "")
    collection = await store.collections.find(collection_id) if collection_id else None
    items = artifact.get("items")
    return {
        "artifact_id": str(artifact.get("id") or ""),
        "type": str(artifact.get("type") or ""),
        "collection": collection.title if collection else "",
        "collection_id": collection_id,
        "status": result.status,
        "items": len(items) if isinstance(items, list) else int(artifact.get("item_count") or 0),
    }


def collection_created(collection: Collection) -> dict[str, Any]:
    return {
        "collection_id": collection.id,
        "title": collection.title,
        "collection": collection.title,
    }


async def chat_answered(
    store: Store, collection: str, question: str, answer: Answer
) -> dict[str, Any]:
    found = await store.collections.find(collection)
    return {
        "collection": found.title if found else collection,
        "collection_id": found.id if found else "",
        "question": question,
        "status": answer.status,
        "citations": len(answer.citations),
        "verified": sum(1 for c in answer.citations if c.get("verified") is True),
    }
