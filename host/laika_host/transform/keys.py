"""The dedupe key of a transform run: the same collection content, type and config give the
same key, so identical runs share one artifact (the store allows one active per key)."""

from __future__ import annotations

import hashlib
import json

from .config import TransformConfig


def dedupe_key(
    collection_id: str, type_id: str, sources: list[tuple[str, str]], config: TransformConfig
) -> str:
    """sha256 of the collection id, the type, the sorted (source id, content hash) pairs and
    the canonical JSON of the validated config."""
    material = json.dumps(
        [collection_id, type_id, sorted([list(pair) for pair in sources]), config.canonical()],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()
