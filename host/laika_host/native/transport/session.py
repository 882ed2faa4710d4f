"""One connection (a browser port or a socket client): read frames, run requests, write replies.

Requests run concurrently as asyncio tasks, so a slow one never blocks a ping. Replies leave
through one writer that takes frames from each request's queue in turn: a pong goes out
between two chunks of a 3 MB reply instead of after all of them.

Back-pressure: a client that stops reading must not make the host hold replies without bound.
While `reply_high_water` bytes wait to be written, no handler starts and no finished result is
encoded (it waits as the handler left it, often far smaller than its JSON); control types
(ping, info, cancel) skip that wait, so they still answer at once when the client reads. The
session reads no new frame while four times that much waits (what error and control replies
alone can pile up), nor while `max_inflight` requests or `max_inflight_request_bytes` of
request frames are in flight.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...errors import LaikaError
from ...events.budget import operation
from ..errors import ErrorCode, HostError, host_error
from .envelope import (
    InvalidRequestError,
    Request,
    RequestId,
    decode_request,
    error_reply,
    event_message,
    ok_reply,
)
from .framing import CHUNK_THRESHOLD, FrameProblem, frames_for, read_frame, skip_bytes
from .resources import Resources
from .router import RequestContext, Route, Router

log = logging.getLogger("laika.host")
Watcher = Callable[["Session"], Coroutine[Any, Any, None]]
"""A task run beside a session's requests (it may send host events)."""
REPLY_HIGH_WATER = 8 * 1024 * 1024
READ_PAUSE_FACTOR = 4
MAX_INFLIGHT = 1024
MAX_INFLIGHT_REQUEST_BYTES = 128 * 1024 * 1024  # two of the largest request frames


class FrameSink(Protocol):
    """Where encoded frames go (a pipe, a socket, a file)."""

    async def write(self, frame: bytes) -> None: ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class Caller:
    """Who started the host, from the browser's arguments (see `parse_browser_args`)."""

    browser: str = "unknown"
    origin: str | None = None
    extension_id: str | None = None
    manifest_path: str | None = None
    parent_window: str | None = None
    other_args: tuple[str, ...] = ()
    user_data_dir: str | None = None
    """The profile folder a Chrome-family browser was started with (`--user-data-dir`), read
    from the browser's command line (Linux); None without one, or when it cannot be read."""

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if value not in (None, ())}


@dataclass
class SessionOptions:
    transport: str = "stdio"
    chunk_threshold: int = CHUNK_THRESHOLD
    eof_grace_seconds: float = 5.0
    caller: Caller = field(default_factory=Caller)
    reply_high_water: int = REPLY_HIGH_WATER
    max_inflight: int = MAX_INFLIGHT
    max_inflight_request_bytes: int = MAX_INFLIGHT_REQUEST_BYTES
    watchers: tuple[Watcher, ...] = ()
    """Run beside the requests until the input ends; they send host events (`id` null)."""


class _RoundRobinWriter:
    """Writes one frame per queue in turn; frames of one request keep their order.

    Counts the bytes queued, so callers can wait until fewer than a limit are (`wait_below`).
    """

    def __init__(self, sink: FrameSink) -> None:
        self._sink = sink
        self._queues: dict[Hashable, deque[bytes]] = {}
        self._order: deque[Hashable] = deque()
        self._ready = asyncio.Event()
        self._closing = False
        self.broken = False
        self.queued_bytes = 0
        self._written = asyncio.Condition()

    def send(self, key: Hashable, frames: list[bytes]) -> None:
        if self.broken:
            return
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = deque()
            self._order.append(key)
        queue.extend(frames)
        self.queued_bytes += sum(len(frame) for frame in frames)
        self._ready.set()

    async def wait_below(self, limit: int) -> None:
        """Until fewer than `limit` bytes wait to be written, or nobody will ever read them."""
        if self.queued_bytes < limit or self.broken:
            return  # the usual case, without taking the lock
        async with self._written:
            await self._written.wait_for(lambda: self.queued_bytes < limit or self.broken)

    async def run(self) -> None:
        while True:
            if not self._order:
                if self._closing:
                    return
                self._ready.clear()
                await self._ready.wait()
                continue
            key = self._order.popleft()
            queue = self._queues[key]
            frame = queue.popleft()
            if queue:
                self._order.append(key)
            else:
                del self._queues[key]
            try:
                await self._sink.write(frame)
            except (BrokenPipeError, ConnectionResetError):
                log.info("the other side closed the connection; dropping unsent replies")
                self.broken = True
                return
            finally:
                self.queued_bytes -= len(frame)
                async with self._written:
                    self._written.notify_all()

    def close(self) -> None:
        """Stop once every queued frame is written."""
        self._closing = True
        self._ready.set()


class Session:
    def __init__(
        self,
        reader: asyncio.StreamReader,
        sink: FrameSink,
        router: Router,
        options: SessionOptions | None = None,
    ) -> None:
        self.reader = reader
        self.router = router
        self.options = options or SessionOptions()
        self.started = time.monotonic()
        self._writer = _RoundRobinWriter(sink)
        self._request_bytes = 0
        self._request_finished = asyncio.Event()
        self._sink = sink
        self._inflight: dict[RequestId, asyncio.Task[None]] = {}
        self._cancelled_by: dict[RequestId, str] = {}
        self._frame_errors = 0
        self._host_events = 0
        self.resources = Resources()

    # --- running ------------------------------------------------------------------------

    async def run(self) -> None:
        """Serve until the other side closes; then finish (or abandon) in-flight work."""
        writer = asyncio.create_task(self._writer.run(), name="laika-writer")
        watching = [asyncio.create_task(watch(self)) for watch in self.options.watchers]
        try:
            await self._read_loop()
        finally:
            await _stop(watching)
            await self._finish_inflight()
            await self.resources.aclose()
            self._writer.close()
            await writer
            await self._sink.close()

    async def _read_loop(self) -> None:
        while not self._writer.broken:
            await self._ready_to_read()
            item = await read_frame(self.reader)
            if item is None:
                return
            if isinstance(item, FrameProblem):
                if not await self._frame_problem(item):
                    return
                continue
            self._accept(item)

    async def _ready_to_read(self) -> None:
        """Back-pressure: wait while replies pile up unread or too much is in flight."""
        await self._writer.wait_below(self.options.reply_high_water * READ_PAUSE_FACTOR)
        while (
            len(self._inflight) >= self.options.max_inflight
            or self._request_bytes >= self.options.max_inflight_request_bytes
        ):
            self._request_finished.clear()
            await self._request_finished.wait()

    async def _room_for_reply(self, route: Route) -> None:
        if not route.control:
            await self.room_for_output()

    async def room_for_output(self) -> None:
        """Until fewer than `reply_high_water` bytes of replies wait to be written."""
        await self._writer.wait_below(self.options.reply_high_water)

    async def _frame_problem(self, problem: FrameProblem) -> bool:
        """Report a broken frame; False when the stream cannot continue."""
        self._frame_errors += 1
        log.warning("frame problem (%s): %s", problem.code.value, problem.message)
        self._send(None, error_reply(None, HostError(problem.code, problem.message)))
        if problem.discard and not await skip_bytes(self.reader, problem.discard):
            return False
        return not problem.at_eof

    def _accept(self, body: bytes) -> None:
        try:
            request = decode_request(body)
            route = self.router.get(request.type)
            if request.id in self._inflight:
                raise HostError(
                    ErrorCode.CONFLICT,
                    f"a request with id {request.id!r} is still running; use a new id",
                )
        except InvalidRequestError as rejected:
            self._send(rejected.request_id, error_reply(rejected.request_id, rejected.error))
            return
        except HostError as error:
            self._send(request.id, error_reply(request.id, error))
            return
        self._request_bytes += len(body)
        task = asyncio.create_task(
            self._handle(request, route, len(body)), name=f"laika-{request.type}"
        )
        self._inflight[request.id] = task

    async def _handle(self, request: Request, route: Route, size: int) -> None:
        started = time.perf_counter()
        try:
            payload = route.parse_payload(request.payload)
            handler = route.handler_function()
            await self._room_for_reply(route)
            with operation():  # one request is one user operation (its rules' action budget)
                result = await handler(payload, RequestContext(request.id, request.type, self))
            await self._room_for_reply(route)
            reply = ok_reply(request.id, _to_json(result))
        except LaikaError as error:  # the one mapping: laika_host.errors
            failure = host_error(error)
            if failure.code is ErrorCode.INTERNAL:
                log.exception("%s %r failed", request.type, request.id)
            reply = error_reply(request.id, failure)
        except asyncio.CancelledError:
            why = self._cancelled_by.pop(request.id, "the host is stopping")
            reply = error_reply(request.id, HostError(ErrorCode.CANCELLED, f"cancelled: {why}"))
        except Exception as error:
            log.exception("%s %r failed", request.type, request.id)
            reply = error_reply(
                request.id,
                HostError(
                    ErrorCode.INTERNAL,
                    f"internal error ({type(error).__name__}); the host log has the details",
                ),
            )
        finally:
            self._inflight.pop(request.id, None)
            self._request_bytes -= size
            self._request_finished.set()
        try:
            self._send(request.id, reply)
        except (TypeError, ValueError):  # a result that is not JSON: a bug, still answered
            log.exception("%s %r returned a result that is not JSON", request.type, request.id)
            reply = error_reply(
                request.id,
                HostError(ErrorCode.INTERNAL, "internal error (the result is not JSON)"),
            )
            self._send(request.id, reply)
        outcome = "ok" if reply["ok"] else reply["error"]["code"]
        elapsed = (time.perf_counter() - started) * 1000
        log.info("%s id=%r %s %.2fms", request.type, request.id, outcome, elapsed)

    async def _finish_inflight(self) -> None:
        if not self._inflight:
            return
        pending = list(self._inflight.values())
        _, still_running = await asyncio.wait(pending, timeout=self.options.eof_grace_seconds)
        for task in still_running:
            task.cancel()
        if still_running:
            log.info("abandoned %d request(s) still running at end of input", len(still_running))
            await asyncio.wait(still_running)

    # --- used by handlers ---------------------------------------------------------------

    def send_event(self, request_id: RequestId, event: str, seq: int, data: Any) -> None:
        self._send(request_id, event_message(request_id, event, seq, data))

    def send_host_event(self, event: str, data: Any) -> None:
        """An event no request asked for (`id` null, `seq` counting per session)."""
        message = {"id": None, "event": event, "seq": self._host_events, "data": data}
        self._host_events += 1
        self._send(None, message)

    def cancel(self, target_id: RequestId, *, by: str) -> bool:
        """Cancel an in-flight request; it replies with error code `cancelled`."""
        task = self._inflight.get(target_id)
        if task is None or task.done():
            return False
        self._cancelled_by[target_id] = by
        task.cancel()
        return True

    def inflight_ids(self) -> list[RequestId]:
        return list(self._inflight)

    @property
    def frame_errors(self) -> int:
        return self._frame_errors

    def _send(self, key: RequestId | None, message: dict[str, Any]) -> None:
        frames = frames_for(message, threshold=self.options.chunk_threshold)
        self._writer.send(("request", key) if key is not None else ("frame", id(message)), frames)


async def _stop(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel watchers; one that failed is logged (the session serves on without it)."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        try:
            await task
        except asyncio.CancelledError:
            continue
        except Exception:
            log.exception("a session watcher failed")


def _to_json(result: Any) -> Any:
    """Results may hold pydantic models anywhere (`{"sources": [Source, ...]}`)."""
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(result, dict):
        return {key: _to_json(value) for key, value in result.items()}
    if isinstance(result, list | tuple):
        return [_to_json(value) for value in result]
    return result
