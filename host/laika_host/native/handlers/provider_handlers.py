"""Handlers of the `models.*` message types: thin calls into `llm.manage` (as `laika models`).

The providers file is small and local, so list/add/remove/set_default run inline; a test
makes one network probe (bounded by `probe.PROBE_TIMEOUT`) in a thread, so the session keeps
answering meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...llm import manage
from ..errors import ErrorCode, HostError
from ..transport.router import RequestContext
from .provider_models import DefaultTarget, ProviderAdd, ProviderTarget


def _host_error(error: manage.ProviderSettingsError) -> HostError:
    code = ErrorCode.NOT_FOUND if error.not_found else ErrorCode.BAD_REQUEST
    return HostError(code, str(error))


async def models_list(_: None, ctx: RequestContext) -> dict[str, Any]:
    try:
        return manage.list_providers()
    except manage.ProviderSettingsError as error:
        raise _host_error(error) from None


async def models_add(payload: ProviderAdd, ctx: RequestContext) -> dict[str, Any]:
    try:
        provider, _ = manage.add_provider(
            payload.id,
            payload.kind,
            payload.model,
            base_url=payload.base_url,
            api_key_env=payload.key_env,
        )
    except manage.ProviderSettingsError as error:
        raise _host_error(error) from None
    default = manage.list_providers()["default"]
    return {"provider": manage.provider_row(provider, default)}


async def models_remove(payload: ProviderTarget, ctx: RequestContext) -> dict[str, Any]:
    try:
        manage.remove_provider(payload.id)
    except manage.ProviderSettingsError as error:
        raise _host_error(error) from None
    return {"removed": payload.id}


async def models_test(payload: ProviderTarget, ctx: RequestContext) -> dict[str, Any]:
    try:
        checked = await asyncio.to_thread(manage.test_provider, payload.id)
    except manage.ProviderSettingsError as error:
        raise _host_error(error) from None
    return checked.to_json()


async def models_set_default(payload: DefaultTarget, ctx: RequestContext) -> dict[str, Any]:
    try:
        return {"default": manage.set_default(payload.id)}
    except manage.ProviderSettingsError as error:
        raise _host_error(error) from None
