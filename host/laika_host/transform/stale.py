"""Is an artifact still about what its sources say? Computed when it is read.

An artifact records the content hash of each source it was built from; a source whose hash
changed since (a refresh captured new content) or that was deleted makes it stale, and the
view says which, so the user can run it again.
"""

from __future__ import annotations

from typing import Any

from ..store import Artifact, Store
from ..store.source_snapshot import current_hashes


async def stale_sources(store: Store, artifact: Artifact) -> list[dict[str, str]]:
    built = {str(e.get("source_id")): str(e.get("content_hash")) for e in artifact.sources}
    if not built:
        return []
    now = await current_hashes(store.db, list(built))
    stale = []
    for source_id, content_hash in built.items():
        if source_id not in now or now[source_id] is None:
            stale.append({"source_id": source_id, "reason": "deleted"})
        elif now[source_id] != content_hash:
            stale.append({"source_id": source_id, "reason": "changed"})
    return stale


async def artifact_view(store: Store, artifact: Artifact) -> dict[str, Any]:
    """The artifact as shown: everything stored, plus `stale` and `stale_sources`."""
    stale = await stale_sources(store, artifact)
    return {**artifact.to_json(), "stale": bool(stale), "stale_sources": stale}
