"""Every message type this host handles. Add a route here; handlers load on first use."""

from __future__ import annotations

from .router import Route, Router

_BUILTINS = "laika_host.native.builtins"
_MODELS = "laika_host.native.builtin_models"

ROUTES = (
    Route(
        "host.ping",
        f"{_BUILTINS}:ping",
        "Liveness check: version, protocol versions and the message types handled.",
        result=f"{_MODELS}:PingResult",
    ),
    Route(
        "host.info",
        f"{_BUILTINS}:info",
        "Diagnostics: interpreter, transport, caller, data dir, log file, limits, types.",
        result=f"{_MODELS}:InfoResult",
    ),
    Route(
        "host.cancel",
        f"{_BUILTINS}:cancel",
        "Cancel an in-flight request; it then replies with error code `cancelled`.",
        payload=f"{_MODELS}:CancelPayload",
        result=f"{_MODELS}:CancelResult",
    ),
    Route(
        "host.echo",
        f"{_BUILTINS}:echo",
        "Diagnostics and throughput: return `data` `repeat` times (at most 16 MiB), "
        "optionally after `delay_ms` or as `delta` events.",
        payload=f"{_MODELS}:EchoPayload",
        result=f"{_MODELS}:EchoResult",
        events=("delta",),
    ),
    Route(
        "host.log",
        f"{_BUILTINS}:log_message",
        "Write an extension diagnostic line to the host log file.",
        payload=f"{_MODELS}:LogPayload",
        result=f"{_MODELS}:LogResult",
    ),
)


def default_router() -> Router:
    return Router(ROUTES)
