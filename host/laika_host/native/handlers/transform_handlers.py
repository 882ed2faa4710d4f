"""Handlers of `transform.*` and `artifacts.*`: the service layer, with the run's events.

A run's events are sent in the contract's shape (docs/PROTOCOL.md): `progress` `{phase,
done, total, message, artifact_id}` and `item` `{index, item}`. A `host.cancel` cancels the
handler's task; the run then ends its artifact `cancelled` with the items so far, and the
reply is the error `cancelled`.
"""

from __future__ import annotations

from typing import Any

from ...service import artifacts, transforms
from ...service.artifact_page import open_artifact
from ...service.models import ProviderChoice
from ..transport.router import RequestContext
from .transform_models import ArtifactExport, ArtifactList, ArtifactTarget, TransformRun


async def transform_list_types(_payload: None, _ctx: RequestContext) -> dict[str, Any]:
    return {"types": transforms.list_types()}


async def transform_run(payload: TransformRun, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    request = transforms.TransformRequest(
        payload.type,
        payload.collection,
        payload.config,
        ProviderChoice(payload.provider),
        force=payload.force,
    )
    result = await transforms.run(store, request, on_event=lambda e, d: _relay(ctx, e, d))
    return result.to_json()


def _relay(ctx: RequestContext, event: str, data: dict[str, Any]) -> None:
    if event == "item":
        ctx.emit("item", {"index": data["index"], "item": data["item"]})
    elif event == "progress":
        ctx.emit("progress", progress_event(data))


def progress_event(data: dict[str, Any]) -> dict[str, Any]:
    """The run's progress `{stage, items, ...}` as `{phase, done, total, message}`."""
    phase = str(data.get("phase") or data.get("stage") or "running")
    done = int(data.get("items") or 0)
    said = {
        "running": f"started ({data.get('type', '')}, {data.get('provider', '')})",
        "joined": "an identical run is in progress: waiting for it",
    }
    return {
        "phase": phase,
        "done": done,
        "total": None,
        "message": said.get(phase, f"{phase}: {done} item(s)"),
        "artifact_id": data.get("artifact_id"),
    }


async def artifacts_list(payload: ArtifactList, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"artifacts": await artifacts.list_summaries(store, payload.collection)}


async def artifacts_get(payload: ArtifactTarget, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return await open_artifact(store, payload.artifact_id)


async def artifacts_export(payload: ArtifactExport, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    exported = await artifacts.export_content(
        store, payload.artifact_id, payload.format, table=payload.table
    )
    return exported.to_json()


async def artifacts_delete(payload: ArtifactTarget, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    deleted = await artifacts.delete_artifact(store, payload.artifact_id)
    return {"deleted": True, "id": deleted["id"]}
