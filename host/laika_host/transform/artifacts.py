"""Reading and managing transform artifacts: shown with `stale`, cancelled, deleted."""

from __future__ import annotations

from typing import Any

from ..store import Store
from .stale import artifact_view


async def get_artifact(store: Store, artifact_id: str) -> dict[str, Any]:
    return await artifact_view(store, await store.artifacts.get(artifact_id))


async def list_artifacts(
    store: Store, collection: str, *, limit: int = 100
) -> list[dict[str, Any]]:
    target = await store.collections.get(collection)
    return [
        await artifact_view(store, a) for a in await store.artifacts.list(target.id, limit=limit)
    ]


async def cancel_artifact(store: Store, artifact_id: str) -> bool:
    """Ask the process making it to stop (any process; it keeps the items so far). False
    when the artifact is not being made."""
    await store.artifacts.get(artifact_id)  # NotFoundError names it
    return await store.artifact_runs.request_cancel(artifact_id)


async def delete_artifact(store: Store, artifact_id: str) -> dict[str, Any]:
    return (await store.artifacts.delete(artifact_id)).to_json()
