"""Handlers of the `config.*` message types: thin calls into `service.config` (as `laika
config`), in a thread: a change waits for the registry's lock and writes a git commit."""

from __future__ import annotations

import asyncio
from typing import Any

from ...service import config
from ..transport.router import RequestContext
from .config_models import ConfigGet, ConfigHistory, ConfigRevert, ConfigSet


async def config_get(payload: ConfigGet, ctx: RequestContext) -> dict[str, Any]:
    value, version = await asyncio.to_thread(config.get_versioned, payload.path)
    return {"path": payload.path, "value": value, "version": version}


async def config_set(payload: ConfigSet, ctx: RequestContext) -> dict[str, Any]:
    change = await asyncio.to_thread(config.set_value, payload.path, payload.value, who="panel")
    return change.to_json()


async def config_history(payload: ConfigHistory, ctx: RequestContext) -> dict[str, Any]:
    items = await asyncio.to_thread(config.history_of, payload.path, limit=payload.limit)
    return {"commits": [item.to_json() for item in items]}


async def config_revert(payload: ConfigRevert, ctx: RequestContext) -> dict[str, Any]:
    change = await asyncio.to_thread(config.revert, payload.commit, who="panel")
    return change.to_json()
