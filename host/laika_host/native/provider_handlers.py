"""Handlers of the `models.*` message types: thin calls into `llm.manage` (as `laika models`).

The providers file is small and local, so list/add/remove/set_default run inline; a test
makes one network probe (bounded by `probe.PROBE_TIMEOUT`) in a thread, so the session keeps
answering meanwhile. A provider setting that cannot be changed (`ProviderSettingsError`) reaches
the session, which maps it once (`laika_host.errors`): `not_found` or `bad_request`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..llm import manage
from .provider_models import DefaultTarget, ProviderAdd, ProviderTarget
from .router import RequestContext


async def models_list(_: None, ctx: RequestContext) -> dict[str, Any]:
    return manage.list_providers()


async def models_add(payload: ProviderAdd, ctx: RequestContext) -> dict[str, Any]:
    provider, _ = manage.add_provider(
        payload.id,
        payload.kind,
        payload.model,
        base_url=payload.base_url,
        api_key_env=payload.key_env,
    )
    default = manage.list_providers()["default"]
    return {"provider": manage.provider_row(provider, default)}


async def models_remove(payload: ProviderTarget, ctx: RequestContext) -> dict[str, Any]:
    manage.remove_provider(payload.id)
    return {"removed": payload.id}


async def models_test(payload: ProviderTarget, ctx: RequestContext) -> dict[str, Any]:
    checked = await asyncio.to_thread(manage.test_provider, payload.id)
    return checked.to_json()


async def models_set_default(payload: DefaultTarget, ctx: RequestContext) -> dict[str, Any]:
    return {"default": manage.set_default(payload.id)}
