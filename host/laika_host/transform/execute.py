"""One run of a transform into its artifact: pending -> running -> completed | failed |
cancelled.

The runner (offline heuristics, or the type's model runner) works in its own task; a watcher
beside it refreshes the heartbeat, reads a cancel asked from another process, and cancels the
runner when the token is set. Whatever ends the run, the items made so far are kept in the
artifact with the Markdown rendered from them, the warnings and the reason, and the run is
recorded in `llm_runs`. A cancel of the caller itself (asyncio) ends the artifact as
`cancelled` first, then propagates.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import JsonValue

from ..agent.flows import context_window, pack_budget
from ..agent.pack import Pack, SourceText, pack_collection
from ..defaults import TRANSFORM_MAX_TOKENS
from ..llm.client import ChatClient
from ..llm.config import ProviderConfig
from ..store import Artifact, Store
from ..store.artifacts import ArtifactOutcome
from ..store.records import ArtifactStatus
from ..store.runs import RunLinks, RunUsage
from ..store.sources import summary_of
from .cite import packed
from .config import TransformConfig
from .corpus import Corpus
from .model_run import ModelContext, ModelFailedError, Usage, single_phase
from .prompt import documents_digest, system_prompt
from .render import render
from .sink import CancelToken, ItemSink, OnEvent, RunCancelledError
from .spec import NotReadyError, TransformType
from .staged import StagedRun

log = logging.getLogger("laika.transform")
POLL_SECONDS = 0.1
BEAT_SECONDS = 2.0
CANCEL_CHECK_SECONDS = 0.5
MAX_ERROR = 600


@dataclass
class Plan:
    """What to run: the type, its validated config, the sources, and who answers."""

    spec: TransformType
    config: TransformConfig
    corpus: Corpus
    provider: ProviderConfig | None  # None: the offline runtime (or a deterministic type)
    provider_label: str
    client: ChatClient | None = None
    max_tokens: int = TRANSFORM_MAX_TOKENS


@dataclass
class _State:
    """What the runner leaves behind, even when it fails half-way."""

    warnings: list[str] = field(default_factory=list)
    partial: bool = False
    usage: Usage = field(default_factory=Usage)
    pack: Pack | None = None
    cancel_asked: bool = False


async def execute(
    store: Store,
    plan: Plan,
    artifact: Artifact,
    *,
    on_event: OnEvent | None = None,
    cancel: CancelToken | None = None,
) -> Artifact:
    sink = ItemSink(store, artifact.id, [], on_event=on_event, cancel=cancel)
    state = _State()
    await store.artifact_runs.start(artifact.id)
    sink.progress("running", type=plan.spec.id, provider=plan.provider_label)
    runner = asyncio.create_task(_produce(plan, sink, state))
    watcher = asyncio.create_task(_watch(store, artifact.id, runner, sink.cancel, state))
    status: ArtifactStatus = "completed"
    error: str | None = None
    try:
        await runner
    except asyncio.CancelledError:
        if not state.cancel_asked or _caller_cancelled():
            await _shielded(_finish(_Run(store, plan, artifact, sink, state), "cancelled", None))
            raise
        status = "cancelled"
    except RunCancelledError:
        status = "cancelled"
    except (NotReadyError, ModelFailedError) as failure:
        status, error = "failed", str(failure)
    except Exception as failure:
        log.exception("transform %s failed (artifact %s)", plan.spec.id, artifact.id)
        status, error = "failed", f"{type(failure).__name__}: {failure}"[:MAX_ERROR]
    finally:
        watcher.cancel()
    return await _finish(_Run(store, plan, artifact, sink, state), status, error)


def _caller_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _shielded(work: Any) -> None:
    """Finish the artifact even if the caller is cancelled again meanwhile."""
    task = asyncio.ensure_future(work)
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            continue
    task.result()


async def _produce(plan: Plan, sink: ItemSink, state: _State) -> None:
    if plan.provider is None or plan.spec.deterministic:
        sink.sources = packed(plan.corpus.sources)
        sink.progress("generating")
        if plan.spec.staged is not None:
            await plan.spec.staged(StagedRun(plan.corpus, plan.config, sink, plan.provider_label))
            return
        assert plan.spec.offline is not None  # run.py refuses a type that needs a model
        for item in plan.spec.offline(plan.corpus, plan.config):
            await sink.add(item)
        return
    assert plan.client is not None
    max_tokens, budget = _budget(plan)
    state.pack = _pack(plan.corpus, budget)
    sink.sources = state.pack.sources
    context = ModelContext(
        plan.spec, plan.config, plan.provider, plan.client, state.pack, sink, max_tokens
    )
    context.warnings, context.usage = state.warnings, state.usage  # kept if it fails
    try:
        if plan.spec.staged is not None:  # it reads every block itself: no pack, no note
            sink.sources, state.pack = packed(plan.corpus.sources), None
            run = StagedRun(plan.corpus, plan.config, sink, plan.provider_label, context)
            await plan.spec.staged(run)
        else:
            await (plan.spec.model or single_phase)(context)
    finally:
        state.partial = context.partial


def _budget(plan: Plan) -> tuple[int, int]:
    """(max_tokens, pack budget) within the provider's context window."""
    assert plan.provider is not None
    max_tokens = max(64, min(plan.max_tokens, context_window(plan.provider) // 2))
    system = system_prompt(plan.spec, plan.config)
    return max_tokens, pack_budget(plan.provider, max_tokens, system)


def _pack(corpus: Corpus, budget: int) -> Pack:
    texts = [
        SourceText(
            source_id=s.source_id,
            url=s.url,
            title=s.title,
            markdown=s.markdown,
            text=s.text,
            summary=summary_of(s.text),
            captured_at=s.captured_at,
        )
        for s in corpus.sources
    ]
    return pack_collection(corpus.collection_id, corpus.title, texts, budget_tokens=budget)


async def _watch(
    store: Store, artifact_id: str, runner: asyncio.Task[None], cancel: CancelToken, state: _State
) -> None:
    """Heartbeat, cross-process cancel, and the token: stop the runner when asked."""
    beaten = checked = time.monotonic()
    while not runner.done():
        await asyncio.sleep(POLL_SECONDS)
        if cancel.cancelled:
            state.cancel_asked = True
            runner.cancel()
            return
        now = time.monotonic()
        if now - beaten >= BEAT_SECONDS:
            beaten = checked = now
            if await store.artifact_runs.beat(artifact_id):
                cancel.cancel()
        elif now - checked >= CANCEL_CHECK_SECONDS:  # a read: cheap enough to ask often
            checked = now
            if await store.artifact_runs.cancel_requested(artifact_id):
                cancel.cancel()


@dataclass
class _Run:
    store: Store
    plan: Plan
    artifact: Artifact
    sink: ItemSink
    state: _State


async def _finish(run: _Run, status: ArtifactStatus, error: str | None) -> Artifact:
    plan, sink, state = run.plan, run.sink, run.state
    warnings = _warnings(plan, sink, state, status)
    sink.stage = status
    await sink.save()  # the items not saved yet
    outcome = ArtifactOutcome(
        markdown=render(plan.spec.layout, run.artifact.title, sink.items) if sink.items else None,
        citations=_citations(sink),
        warnings=warnings,
        partial=state.partial or (status != "completed" and bool(sink.items)),
        progress=sink.state(),
        error=error,
    )
    final = await run.store.artifacts.finish(run.artifact.id, status, outcome=outcome)
    await _record(run.store, plan, final, state)
    sink.progress(status)
    return final


def _warnings(plan: Plan, sink: ItemSink, state: _State, status: str) -> list[str]:
    warnings = [*plan.corpus.notes, *state.warnings]
    note = state.pack.note() if state.pack else None
    if note:
        warnings.insert(0, note)
    if sink.capped:
        warnings.append(f"only the first {len(sink.items)} items were kept")
    unverified = sum(not item.verified for item in sink.items)
    if unverified:
        warnings.append(f"{unverified} item(s) could not be verified and are flagged")
    if status == "completed" and not sink.items:
        warnings.append(f"the sources hold nothing a {plan.spec.title.lower()} could be made of")
    return warnings


def _citations(sink: ItemSink) -> list[JsonValue]:
    seen: dict[tuple[Any, Any], JsonValue] = {}
    for item in sink.items:
        for citation in item.citations:
            seen.setdefault((citation.get("source_id"), citation.get("quote")), citation)
    return list(seen.values())


async def _record(store: Store, plan: Plan, artifact: Artifact, state: _State) -> None:
    """The run in `llm_runs` (ids and digests only: the bodies stay in `sources`)."""
    usage = state.usage
    model = plan.provider.model if plan.provider and not plan.spec.deterministic else "extractive"
    await store.runs.append(
        "transform.run",
        provider_id=plan.provider_label,
        model_id=model,
        links=RunLinks(collection_id=artifact.collection_id, artifact_id=artifact.id),
        usage=RunUsage(
            usage.input_tokens or None, usage.output_tokens or None, None, int(usage.duration_ms)
        ),
        status="error" if artifact.status == "failed" else "partial" if artifact.partial else "ok",
        request={
            "type": plan.spec.id,
            "config": plan.config.model_dump(mode="json"),
            "documents": documents_digest(state.pack) if state.pack else [],  # type: ignore[dict-item]
        },
        response={
            "status": artifact.status,
            "items": len(artifact.items),
            "verified": sum(bool(item.get("verified")) for item in artifact.items),
        },
        error=artifact.error,
    )
