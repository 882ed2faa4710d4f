"""Built-in message types: host.ping, host.info, host.cancel, host.echo, host.log.

Kept free of pydantic imports: `host.ping` must answer before any heavy module loads.
"""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import sys
import time
from typing import TYPE_CHECKING, Any

from ... import __version__
from ...paths import data_dir, logs_dir
from ..errors import ErrorCode, HostError
from ..install.commands import pinned_cli
from ..transport import framing

if TYPE_CHECKING:
    from ..transport.router import RequestContext
    from .builtin_models import CancelPayload, EchoPayload, LogPayload

NATIVE_PROTOCOL_VERSION = 1
LLMCP_VERSION = 1
MAX_ECHO_BYTES = 16 * 1024 * 1024
MAX_STREAMED_ITEMS = 10_000
extension_log = logging.getLogger("laika.extension")


async def ping(_: None, ctx: RequestContext) -> dict[str, Any]:
    return {
        "pong": True,
        "version": __version__,
        "protocols": {"native": NATIVE_PROTOCOL_VERSION, "llmcp": LLMCP_VERSION},
        "capabilities": ctx.session.router.types(),
    }


async def info(_: None, ctx: RequestContext) -> dict[str, Any]:
    session = ctx.session
    return {
        "version": __version__,
        "protocols": {"native": NATIVE_PROTOCOL_VERSION, "llmcp": LLMCP_VERSION},
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "platform": platform.platform(),
        "pid": os.getpid(),
        "transport": session.options.transport,
        "caller": session.options.caller.to_json(),
        "data_dir": str(data_dir()),
        "cli": pinned_cli(),
        "log_file": str(logs_dir() / "host.log"),
        "uptime_seconds": round(time.monotonic() - session.started, 3),
        "inflight": len(session.inflight_ids()),
        "limits": {
            "max_request_frame": framing.MAX_REQUEST_FRAME,
            "max_reply_frame": framing.MAX_REPLY_FRAME,
            "chunk_threshold": session.options.chunk_threshold,
        },
        "types": [
            {"type": route.name, "summary": route.summary, "events": list(route.events)}
            for route in session.router.routes()
        ],
    }


async def cancel(payload: CancelPayload, ctx: RequestContext) -> dict[str, Any]:
    if payload.target_id == ctx.id:
        raise HostError(ErrorCode.CONFLICT, "a host.cancel request cannot cancel itself")
    if not ctx.session.cancel(payload.target_id, by=f"host.cancel {ctx.id!r}"):
        raise HostError(
            ErrorCode.NOT_FOUND,
            f"no request with id {payload.target_id!r} is running (it may have finished)",
        )
    return {"cancelled": True, "target_id": payload.target_id}


async def echo(payload: EchoPayload, ctx: RequestContext) -> dict[str, Any]:
    """Diagnostics and throughput checks: returns `data` `repeat` times, optionally streamed."""
    unit = len(framing.dumps(payload.data).encode("utf-8"))
    if unit * payload.repeat > MAX_ECHO_BYTES:
        raise HostError(
            ErrorCode.TOO_LARGE,
            f"echo would return {unit * payload.repeat} bytes; the limit is {MAX_ECHO_BYTES}",
        )
    if payload.delay_ms:
        await asyncio.sleep(payload.delay_ms / 1000)
    await ctx.room_for_output()  # many delayed echoes must not all build their copies at once
    if payload.stream:
        if payload.repeat > MAX_STREAMED_ITEMS:
            raise HostError(
                ErrorCode.TOO_LARGE,
                f"a streamed echo sends at most {MAX_STREAMED_ITEMS} events",
            )
        for _ in range(payload.repeat):
            ctx.emit("delta", payload.data)
            await ctx.room_for_output()
            await asyncio.sleep(0)
        return {"count": payload.repeat}
    if isinstance(payload.data, str):
        return {"data": payload.data * payload.repeat}
    return {"data": [payload.data] * payload.repeat}


async def log_message(payload: LogPayload, ctx: RequestContext) -> dict[str, Any]:
    """Write an extension's diagnostic line to the host log (`laika doctor` shows it)."""
    caller = ctx.session.options.caller
    extension_log.log(
        logging.getLevelName(payload.level.upper()),
        "%s (%s): %s %s",
        caller.extension_id or caller.origin or "unknown extension",
        caller.browser,
        payload.message,
        framing.dumps(payload.context) if payload.context else "",
    )
    return {"logged": True}
