"""`run_transform`: make (or reuse, or join) the artifact of a type over a collection.

The dedupe key covers the collection's sources with their content hashes, the type and the
canonical config. An identical completed artifact from the same provider (its sources hold
the same content: the key says so) is returned as is (`reused`) unless `force`, checked in the
transaction that would create the new one; a run with the same key already in
progress (in this process or another) is joined: we wait for it, relaying its items, and
return its artifact (`joined`), so two identical runs never make two artifacts. A run whose
owner died while we waited is resolved (`recover`) and we make the artifact ourselves.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ..defaults import TRANSFORM_MAX_TOKENS
from ..llm.client import ChatClient
from ..llm.config import ProviderConfig
from ..llm.window import with_window
from ..store import Artifact, ConflictError, InvalidInputError, Store
from .catalog import UnknownTypeError, get_type
from .config import ConfigError, TransformConfig, validate_config
from .execute import Plan, execute
from .keys import dedupe_key
from .load import load_corpus
from .sink import CancelToken, OnEvent
from .spec import TransformType
from .stale import artifact_view

FINAL = ("completed", "failed", "cancelled")
JOIN_POLL_SECONDS = 0.2
RECOVER_EVERY = 10  # polls between checks that the run we wait for still has a live owner
MAX_ATTEMPTS = 3


@dataclass
class TransformResult:
    """What a run returns (and `--json` prints): the artifact as shown (with `stale`), and
    how it was obtained."""

    artifact: dict[str, Any]
    reused: bool = False
    joined: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        return str(self.artifact["status"])

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reused": self.reused,
            "joined": self.joined,
            "partial": bool(self.artifact.get("partial")),
            "warnings": self.warnings,
            "artifact": self.artifact,
        }


def resolve(type_id: str, config: object) -> tuple[TransformType, TransformConfig]:
    """The type and its validated config; a bad id or setting is refused with the fix."""
    try:
        spec = get_type(type_id)
    except UnknownTypeError as error:
        raise InvalidInputError(str(error)) from None
    try:
        validated = validate_config(spec.config, config)
    except ConfigError as error:
        refused = InvalidInputError(f"{type_id}: {error}")
        raise refused.with_cli_hint(
            "`laika transform list --json` shows each type's settings"
        ) from None
    if spec.coming:
        raise InvalidInputError(spec.coming)
    return spec, validated


async def run_transform(
    store: Store,
    collection: str,
    type_id: str,
    config: object = None,
    *,
    provider: ProviderConfig | None = None,
    client: ChatClient | None = None,
    force: bool = False,
    on_event: OnEvent | None = None,
    cancel: CancelToken | None = None,
    max_tokens: int = TRANSFORM_MAX_TOKENS,
) -> TransformResult:
    spec, validated = resolve(type_id, config)
    deterministic = spec.deterministic or provider is None
    if deterministic and spec.needs_model:
        refused = InvalidInputError(f"{spec.title} needs a model: {spec.needs_model}.")
        raise refused.with_cli_hint(
            "`--provider ID` runs it with a model; `laika models list` shows them"
        )
    corpus = await load_corpus(store, collection)
    if provider is not None and not spec.deterministic:  # the window its server runs
        provider = await with_window(provider)
    label = "metadata" if spec.deterministic else provider.id if provider else "offline"
    pairs = [(s.source_id, s.content_hash) for s in corpus.sources]
    key = dedupe_key(corpus.collection_id, spec.id, pairs, validated)
    await store.artifact_runs.recover()  # a run a dead process left must not block this one
    for _ in range(MAX_ATTEMPTS):
        try:
            artifact = await store.artifacts.create(
                corpus.collection_id,
                spec.id,
                f"{spec.title}: {corpus.title}",
                dedupe_key=key,
                config=validated.model_dump(mode="json"),
                sources=[{"source_id": s, "content_hash": h} for s, h in pairs],
                provider=label,
                owner=store.artifact_runs.owner,
                reuse=not force,
            )
        except ConflictError:
            joined = await _join(store, key, on_event, cancel)
            if joined is not None:
                return _result(await artifact_view(store, joined), joined=True)
            continue
        if artifact.status == "completed":  # identical and current (the key holds the hashes)
            return _result(await artifact_view(store, artifact), reused=True)
        plan = Plan(spec, validated, corpus, None if deterministic else provider, label)
        plan.max_tokens = max_tokens
        if not deterministic:
            return await _with_client(
                store, plan, artifact, client, on_event=on_event, cancel=cancel
            )
        final = await execute(store, plan, artifact, on_event=on_event, cancel=cancel)
        return _result(await artifact_view(store, final))
    raise ConflictError(
        f"another run of {spec.id} on this collection kept failing or stopping; try again"
    )


async def _with_client(
    store: Store,
    plan: Plan,
    artifact: Artifact,
    client: ChatClient | None,
    *,
    on_event: OnEvent | None,
    cancel: CancelToken | None,
) -> TransformResult:
    if client is not None:
        plan.client = client
        final = await execute(store, plan, artifact, on_event=on_event, cancel=cancel)
    else:
        async with ChatClient() as own:
            plan.client = own
            final = await execute(store, plan, artifact, on_event=on_event, cancel=cancel)
    return _result(await artifact_view(store, final))


def _result(view: dict[str, Any], *, joined: bool = False, reused: bool = False) -> TransformResult:
    warnings = list(view.get("warnings") or [])
    return TransformResult(view, reused=reused, joined=joined, warnings=warnings)


async def _join(
    store: Store, key: str, on_event: OnEvent | None, cancel: CancelToken | None
) -> Artifact | None:
    """Wait for the active run under `key`, relaying its items; None when there is none any
    more or its owner died (the caller then tries again)."""
    active = await store.artifacts.active_for(key)
    if active is None:
        return None
    relayed, polls = 0, 0
    _emit(on_event, "progress", {"artifact_id": active.id, "stage": "joined", "items": 0})
    while True:
        current = await store.artifacts.get(active.id)
        for index, item in enumerate(current.items[relayed:], start=relayed):
            _emit(on_event, "item", {"artifact_id": current.id, "index": index, "item": item})
        relayed = max(relayed, len(current.items))
        if current.status in FINAL or (cancel is not None and cancel.cancelled):
            return current
        polls += 1
        if polls % RECOVER_EVERY == 0 and current.id in await store.artifact_runs.recover():
            return None
        await asyncio.sleep(JOIN_POLL_SECONDS)


def _emit(on_event: OnEvent | None, event: str, data: dict[str, Any]) -> None:
    if on_event is not None:
        on_event(event, data)
