"""The one place where a message type is registered: payload model, handler, result, events.

Handlers and models are named as `"module:attribute"` and imported on first use, so building the
router costs nothing and a `host.ping` never waits for the store, the capture pipeline or
pydantic to load. The same table feeds `schema/native/` and `docs/PROTOCOL.md`.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode, HostError
from .envelope import RequestId, bad_request

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .session import Session

Handler = Callable[[Any, "RequestContext"], Awaitable[Any]]


@cache
def resolve(target: str) -> Any:
    """Import `"package.module:attribute"` once."""
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


@dataclass(frozen=True)
class Route:
    """One message type (`name`); `payload` None means it takes no payload (`{}` or absent).

    `control` types answer at once with a small reply and never wait for back-pressure, so a
    ping or a cancel gets through while big replies wait for the client to read them.
    """

    name: str
    handler: str
    summary: str
    payload: str | None = None
    result: str | None = None
    events: tuple[str, ...] = ()
    control: bool = False

    def handler_function(self) -> Handler:
        function: Handler = resolve(self.handler)
        return function

    def payload_model(self) -> type[BaseModel] | None:
        return resolve(self.payload) if self.payload else None

    def result_model(self) -> type[BaseModel] | None:
        return resolve(self.result) if self.result else None

    def parse_payload(self, payload: dict[str, Any]) -> Any:
        """The validated payload model (None for no-payload types); bad_request otherwise."""
        if self.payload is None:
            if payload:
                rule = f"unknown key: {self.name} takes no payload"
                raise bad_request([(f"payload.{key[:64]}", rule) for key in payload])
            return None
        from pydantic import ValidationError

        from ...issues import issues_from

        model = self.payload_model()
        assert model is not None
        try:
            return model.model_validate(payload)
        except ValidationError as error:
            issues = issues_from(error, payload)
            raise bad_request(
                [(_under_payload(issue.path), issue.message) for issue in issues]
            ) from None


def _under_payload(path: str) -> str:
    if path == "$":
        return "payload"
    return "payload" + (path if path.startswith("[") else "." + path)


@dataclass
class RequestContext:
    """What a handler may use besides its payload: its id, stream events, the session."""

    id: RequestId
    type: str
    session: Session
    _seq: int = field(default=0, init=False)

    def emit(self, event: str, data: Any) -> None:
        """Send a stream event `{id, event, seq, data}` now; the final reply comes later."""
        self.session.send_event(self.id, event, self._seq, data)
        self._seq += 1

    async def room_for_output(self) -> None:
        """Wait until the client has read enough of what is queued (back-pressure).

        Call before building a large result or between many events: the session holds back
        handlers only before they start and after they return, so a handler that produces
        its output after a wait must ask for room itself.
        """
        await self.session.room_for_output()


class Router:
    """Message type -> Route."""

    def __init__(self, routes: Iterable[Route] = ()) -> None:
        self._routes: dict[str, Route] = {}
        for route in routes:
            self.register(route)

    def register(self, route: Route) -> None:
        if route.name in self._routes:
            raise ValueError(f"message type {route.name!r} is registered twice")
        self._routes[route.name] = route

    def get(self, message_type: str) -> Route:
        route = self._routes.get(message_type)
        if route is None:
            raise HostError(
                ErrorCode.UNKNOWN_TYPE,
                f"unknown message type {message_type!r}; this host handles: "
                + ", ".join(sorted(self._routes)),
                details={"known_types": sorted(self._routes)},
            )
        return route

    def routes(self) -> list[Route]:
        return [self._routes[name] for name in sorted(self._routes)]

    def types(self) -> list[str]:
        return sorted(self._routes)
