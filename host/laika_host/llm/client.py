"""`ChatClient`: one request through one adapter, with spec 001's resilience.

- Timeouts per provider (connect 10 s, read 60 s between chunks, write 10 s, pool 10 s).
- One retry after 2 s on a connect error, connect timeout or read timeout, and up to two on
  429/5xx, honoring Retry-After (capped): only while nothing has been received, because a
  retry after text has streamed would repeat it.
- Partial output is kept: a stream that breaks returns status `partial` with the text so far.
- Structured log events `llm_request_started` / `llm_response_chunk` / `llm_request_completed`
  / `llm_request_failed` / `llm_request_retry` (JSON in the `laika.llm` logger) with the
  request id, model, endpoint (never a key), chunk counts and durations.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from functools import cache
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

from .adapters import HttpCall, adapter_for
from .config import ProviderConfig
from .contract import ChatRequest, ProviderMeta, Usage
from .errors import MAX_MESSAGE, LlmError, from_status, scrub
from .events import Done, StreamError, StreamEvent, TextDelta, ToolCallDelta, UsageUpdate
from .output import check_output

log = logging.getLogger("laika.llm")
Status = Literal["ok", "partial", "invalid_output", "error"]
RETRY_DELAY = 2.0
STATUS_RETRIES = 2
MAX_RETRY_AFTER = 30.0
_TRANSIENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.ReadTimeout)


@dataclass
class ChatResult:
    """What a call produced. `text` is kept whatever the status."""

    status: Status
    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    provider_meta: ProviderMeta = field(default_factory=ProviderMeta)
    error: LlmError | None = None
    attempts: int = 0
    chunks: int = 0
    duration_ms: float = 0.0
    first_token_ms: float | None = None
    dropped: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "text": self.text,
            "tool_calls": self.tool_calls,
            "finish_reason": self.finish_reason,
            "usage": self.usage.model_dump(),
            "provider_meta": self.provider_meta.model_dump(),
            "error": self.error.to_json() if self.error else None,
            "attempts": self.attempts,
            "chunks": self.chunks,
            "duration_ms": round(self.duration_ms, 1),
            "first_token_ms": None
            if self.first_token_ms is None
            else round(self.first_token_ms, 1),
            "dropped": self.dropped,
        }


@cache
def tls_context() -> ssl.SSLContext:
    """The TLS settings every model client uses (httpx's defaults), made once: making them
    anew took 65 ms of CPU per client, on the event loop, twice per question asked."""
    return httpx.create_ssl_context()


class _RetryError(Exception):
    def __init__(self, error: LlmError, delay: float) -> None:
        super().__init__(error.message)
        self.error = error
        self.delay = delay


@dataclass
class _Attempt:
    """State of one call across its attempts."""

    request_id: str
    provider: ProviderConfig
    call: HttpCall
    secrets: tuple[str, ...]
    started: float = field(default_factory=time.perf_counter)
    chunks: int = 0
    received: bool = False

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


class ChatClient:
    def __init__(
        self,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        retry_delay: float = RETRY_DELAY,
        status_retries: int = STATUS_RETRIES,
        max_retry_after: float = MAX_RETRY_AFTER,
    ) -> None:
        self._http = httpx.AsyncClient(
            transport=transport, follow_redirects=False, verify=tls_context()
        )
        self.retry_delay = retry_delay
        self.status_retries = status_retries
        self.max_retry_after = max_retry_after

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def complete(
        self,
        provider: ProviderConfig,
        request: ChatRequest,
        *,
        on_event: Callable[[StreamEvent], None] | None = None,
    ) -> ChatResult:
        """Run the call to its end; every event also goes to `on_event` as it arrives."""
        result = ChatResult(status="error")
        collected = _Collected(time.perf_counter())
        async for event in self.stream(provider, request, result=result):
            if on_event is not None:
                on_event(event)
            collected.add(result, event)
        collected.finish(result)
        # the schema check is plain Python over the whole reply: off the event loop
        result.status = await asyncio.to_thread(_status, result, request)
        return result

    async def stream(
        self, provider: ProviderConfig, request: ChatRequest, *, result: ChatResult | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Normalized events; failures end the stream with one `StreamError`."""
        result = result or ChatResult(status="error")
        try:
            attempt = self._prepare(provider, request)
        except LlmError as error:
            yield StreamError(error)
            return
        result.dropped = attempt.call.dropped
        result.provider_meta = ProviderMeta(
            provider=provider.id, model=request.model, request_id=attempt.request_id
        )
        transport_retries, status_retries = 1, self.status_retries
        while True:
            result.attempts += 1
            try:
                async for event in self._once(attempt, result.attempts):
                    yield event
                return
            except _FailedError as failed:
                yield StreamError(failed.error)
                return
            except _RetryError as retry:
                transient = retry.error.kind in ("network", "timeout")
                budget = transport_retries if transient else status_retries
                if budget <= 0:
                    self._failed(attempt, retry.error)
                    yield StreamError(retry.error)
                    return
                if transient:
                    transport_retries -= 1
                else:
                    status_retries -= 1
                self._log("llm_request_retry", attempt, reason=retry.error.kind, delay=retry.delay)
                await asyncio.sleep(retry.delay)

    def _prepare(self, provider: ProviderConfig, request: ChatRequest) -> _Attempt:
        adapter = adapter_for(provider.kind)
        api_key = provider.api_key()
        call = adapter.build(request, provider, api_key)
        secrets = (api_key,) if api_key else ()
        return _Attempt(uuid.uuid4().hex, provider, call, secrets)

    async def _once(self, attempt: _Attempt, number: int) -> AsyncIterator[StreamEvent]:
        call, provider = attempt.call, attempt.provider
        self._log(
            "llm_request_started",
            attempt,
            model=call.body.get("model"),
            messages=len(call.body.get("messages", [])),
            attempt=number,
            dropped=call.dropped,
        )
        timeouts = provider.timeouts
        timeout = httpx.Timeout(
            connect=timeouts.connect, read=timeouts.read, write=timeouts.write, pool=timeouts.pool
        )
        try:
            async with self._http.stream(
                "POST", call.url, headers=call.headers, json=call.body, timeout=timeout
            ) as response:
                if response.status_code >= 400:
                    raise await self._http_error(attempt, response)
                events = adapter_for(provider.kind).events(response.aiter_lines())
                async for event in events:
                    attempt.received = True
                    attempt.chunks += 1
                    if log.isEnabledFor(logging.DEBUG):
                        self._log("llm_response_chunk", attempt, chunk_num=attempt.chunks)
                    yield event
                    if isinstance(event, StreamError):
                        self._failed(attempt, event.error)
                        return
        except _TRANSIENT as error:
            failure = self._transport_error(attempt, error)
            if not attempt.received:
                raise _RetryError(failure, self.retry_delay) from None
            self._failed(attempt, failure)
            yield StreamError(failure)
            return
        except httpx.HTTPError as error:  # dropped mid-stream, protocol errors
            failure = self._transport_error(attempt, error)
            self._failed(attempt, failure)
            yield StreamError(failure)
            return
        self._log("llm_request_completed", attempt, total_chunks=attempt.chunks)

    async def _http_error(self, attempt: _Attempt, response: httpx.Response) -> Exception:
        body = await response.aread()
        retry_after = _retry_after(response.headers.get("retry-after"))
        error = from_status(
            response.status_code,
            body,
            provider=attempt.provider.id,
            retry_after=retry_after,
            secrets=attempt.secrets,
        )
        if response.status_code == 429 or response.status_code >= 500:
            delay = self.retry_delay if retry_after is None else retry_after
            if delay <= self.max_retry_after:
                return _RetryError(error, delay)
        self._failed(attempt, error)
        return _FailedError(error)

    def _transport_error(self, attempt: _Attempt, error: httpx.HTTPError) -> LlmError:
        timeouts = attempt.provider.timeouts
        if isinstance(error, httpx.ConnectTimeout):
            kind, what = "timeout", f"no connection within {timeouts.connect:g} s"
        elif isinstance(error, httpx.ReadTimeout):
            kind, what = "timeout", f"no data for {timeouts.read:g} s"
        elif isinstance(error, httpx.ConnectError):
            kind, what = "network", "could not connect (is the server running?)"
        else:
            kind, what = "network", "the connection broke mid-stream"
        detail = scrub(f"{type(error).__name__}: {error}", attempt.secrets)
        message = f"{attempt.provider.id} at {_endpoint(attempt.call.url)}: {what} ({detail})"
        return LlmError(kind, message, provider=attempt.provider.id)  # type: ignore[arg-type]

    def _failed(self, attempt: _Attempt, error: LlmError) -> None:
        self._log(
            "llm_request_failed",
            attempt,
            error_type=error.kind,
            spec_type=error.spec_type,
            error_message=scrub(error.message, attempt.secrets, limit=2 * MAX_MESSAGE),
            status=error.status,
            chunks_received=attempt.chunks,
        )

    def _log(self, event: str, state: _Attempt, **fields: Any) -> None:
        level = logging.DEBUG if event == "llm_response_chunk" else logging.INFO
        if event == "llm_request_failed":
            level = logging.WARNING
        record = {
            "event": event,
            "request_id": state.request_id,
            "provider": state.provider.id,
            "endpoint": _endpoint(state.call.url),
            "duration_ms": round(state.elapsed_ms(), 1),
            **fields,
        }
        log.log(level, json.dumps(record, default=str))


class _FailedError(Exception):
    """An HTTP error that is not retried: raised out of the stream as a StreamError."""

    def __init__(self, error: LlmError) -> None:
        super().__init__(error.message)
        self.error = error


def _endpoint(url: str) -> str:
    """The URL without credentials or query (where a key could hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


@dataclass
class _Collected:
    """The text and tool calls of a stream, kept as pieces and joined once at the end (`+=`
    on an attribute or a dict item copies the whole string: 1 MiB in 4-character deltas
    cost 51 CPU-s that way)."""

    started: float
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    arguments: dict[int, list[str]] = field(default_factory=dict)

    def add(self, result: ChatResult, event: StreamEvent) -> None:
        result.chunks += 1
        if isinstance(event, TextDelta):
            if result.first_token_ms is None:
                result.first_token_ms = (time.perf_counter() - self.started) * 1000
            self.text.append(event.text)
        elif isinstance(event, ToolCallDelta):
            call = self.calls.setdefault(
                event.index, {"id": None, "type": "function", "function": {"name": None}}
            )
            call["id"] = event.id or call["id"]
            call["function"]["name"] = event.name or call["function"]["name"]
            self.arguments.setdefault(event.index, []).append(event.arguments)
        elif isinstance(event, UsageUpdate):
            usage = result.usage
            result.usage = Usage(
                input_tokens=event.input_tokens
                if event.input_tokens is not None
                else usage.input_tokens,
                output_tokens=event.output_tokens
                if event.output_tokens is not None
                else usage.output_tokens,
            )
        elif isinstance(event, Done):
            result.finish_reason = event.finish_reason
        elif isinstance(event, StreamError):
            result.error = event.error

    def finish(self, result: ChatResult) -> None:
        result.text = "".join(self.text)
        for index, call in self.calls.items():
            call["function"]["arguments"] = "".join(self.arguments[index])
        result.tool_calls = [self.calls[i] for i in sorted(self.calls)]
        result.duration_ms = (time.perf_counter() - self.started) * 1000


def _status(result: ChatResult, request: ChatRequest) -> Status:
    if result.error is not None:
        return "partial" if result.text or result.tool_calls else "error"
    if result.finish_reason is None:
        result.error = LlmError(
            "network", "the stream ended without a finish", provider=result.provider_meta.provider
        )
        return "partial" if result.text else "error"
    if result.finish_reason == "length":
        result.error = LlmError(
            "invalid_output",
            f"the reply was cut at max_tokens ({request.max_tokens}); the text so far is kept",
            provider=result.provider_meta.provider,
        )
        return "partial"
    problem = check_output(result.text, request) if not result.tool_calls else None
    if problem is not None:
        result.error = LlmError("invalid_output", problem, provider=result.provider_meta.provider)
        return "invalid_output"
    return "ok"
