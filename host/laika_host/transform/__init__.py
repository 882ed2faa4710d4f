"""Transforms: a collection becomes a durable artifact of a given type, every item cited.

    result = await run_transform(store, "Demo", "timeline", {"count": 5}, provider=None)
    result.artifact["content_markdown"], result.artifact["items"]

- `catalog` / `types/`: the types as data (config model, item model, prompt, layout, runners);
  `list_types()` publishes them with their JSON Schemas.
- `items`: the item contract (every item has `citations: [{source_id, quote}]`).
- `ndjson`: a model's NDJSON reply parsed line by line; bad lines logged and skipped.
- `cite`: items verified against the stored text; `render`: items to safe Markdown.
- `offline/`: the heuristic runner of every type; `model_run`: NDJSON phases with a model.
- `run` / `execute`: dedupe, reuse, join, run with heartbeat and cancellation, store.
- `notes/`: knowledge notes (spec 001), a `staged` type that builds on the collection's notes.
- `stale`, `artifacts`: an artifact read back with `stale` / `stale_sources`.
"""

from .artifacts import cancel_artifact, delete_artifact, get_artifact, list_artifacts
from .catalog import get_type, list_types
from .items import CheckedItem, Cited, Item
from .run import TransformResult, run_transform
from .sink import CancelToken
from .spec import TransformType

__all__ = [
    "CancelToken",
    "CheckedItem",
    "Cited",
    "Item",
    "TransformResult",
    "TransformType",
    "cancel_artifact",
    "delete_artifact",
    "get_artifact",
    "get_type",
    "list_artifacts",
    "list_types",
    "run_transform",
]
