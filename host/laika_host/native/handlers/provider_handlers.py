"""Handlers of the `models.*` message types: thin calls into `service.models` (as `laika
models`).

The providers file is small and local, so list/add/remove/set_default run inline; a test
makes one network probe (bounded by `probe.PROBE_TIMEOUT`) in a thread, so the session keeps
answering meanwhile.
"""

from __future__ import annotations

from typing import Any

from ...service import models
from ..transport.router import RequestContext
from .provider_models import DefaultTarget, ProviderAdd, ProviderTarget


async def models_list(_: None, ctx: RequestContext) -> dict[str, Any]:
    return models.list_providers()


async def models_add(payload: ProviderAdd, ctx: RequestContext) -> dict[str, Any]:
    spec = models.ProviderSpec(
        payload.id, payload.kind, payload.model, payload.base_url, payload.key_env
    )
    return {"provider": models.add_provider(spec, who="panel").row}


async def models_remove(payload: ProviderTarget, ctx: RequestContext) -> dict[str, Any]:
    models.remove_provider(payload.id, who="panel")
    return {"removed": payload.id}


async def models_test(payload: ProviderTarget, ctx: RequestContext) -> dict[str, Any]:
    return (await models.test_provider(payload.id)).to_json()


async def models_set_default(payload: DefaultTarget, ctx: RequestContext) -> dict[str, Any]:
    return {"default": models.set_default(payload.id, who="panel")}
