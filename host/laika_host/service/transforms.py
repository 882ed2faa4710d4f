"""Transforms: the types there are, and one run of a type over a collection.

`laika transform` and the native `transform.*` handlers (and the LLMCP executors) call these,
so who answers is chosen one way everywhere: the provider named, `offline` for the built-in
runtime, else the configured default, else offline (`service.models.resolve`, as `ask`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..defaults import DEFAULT_COLLECTION, TRANSFORM_MAX_TOKENS
from ..events import payloads
from ..events.bus import emit
from .models import ProviderChoice, resolve

if TYPE_CHECKING:
    from ..store import Store
    from ..transform import CancelToken, TransformResult
    from ..transform.sink import OnEvent


@dataclass(frozen=True)
class TransformRequest:
    """One run: which type over which collection, its settings, and who answers."""

    type_id: str
    collection: str = DEFAULT_COLLECTION
    config: object = None
    provider: ProviderChoice = field(default_factory=ProviderChoice)
    force: bool = False
    """Make a new artifact even when an identical, current one exists."""
    max_tokens: int = TRANSFORM_MAX_TOKENS


def list_types() -> list[dict[str, Any]]:
    """Every type with its config's JSON Schema, defaults and `ready` flag."""
    from ..transform import list_types as catalog_types

    return catalog_types()


def config_from_pairs(type_id: str, pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """`--config key=value` pairs as `type_id`'s config (`transform.config.from_pairs`): lists
    as `a, b`, repeated keys or JSON. An unknown type is left to `run`, which names the
    types there are."""
    from ..store import InvalidInputError
    from ..transform.catalog import catalog
    from ..transform.config import ConfigError, from_pairs

    spec = catalog().get(type_id)
    if spec is None:
        return dict(pairs)
    try:
        return from_pairs(spec.config, pairs)
    except ConfigError as error:
        raise InvalidInputError(
            f"{type_id}: {error}. `laika transform list --json` shows each type's settings"
        ) from None


async def run(
    store: Store,
    request: TransformRequest,
    *,
    on_event: OnEvent | None = None,
    cancel: CancelToken | None = None,
) -> TransformResult:
    """Make (or reuse, or join) the artifact; the provider is resolved before any work, so an
    unknown one is refused with the fix and nothing is made."""
    from ..transform import run_transform

    provider = resolve(request.provider)
    result = await run_transform(
        store,
        request.collection,
        request.type_id,
        request.config,
        provider=provider,
        force=request.force,
        max_tokens=request.max_tokens,
        on_event=on_event,
        cancel=cancel,
    )
    if result.status == "completed" and not result.reused:
        await emit(store, "artifact.completed", await payloads.artifact_completed(store, result))
    return result
