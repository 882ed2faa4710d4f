"""Ollama `/api/chat`, local (no auth) and cloud (bearer): NDJSON stream, `format` as a JSON
Schema, `options.num_predict` from max_tokens, and `options.num_ctx` sized from the packed
prompt, so Ollama never silently cuts the prompt at its small default context."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ...redact import redact_prefix
from ..config import ProviderConfig
from ..contract import ChatMessage, ChatRequest, ProviderCapabilities
from ..errors import LlmError, from_stream_error
from ..events import Done, StreamError, StreamEvent, TextDelta, ToolCallDelta, UsageUpdate
from ..events import finish_reason as normalized_finish
from ..streams import log
from .base import HttpCall, plain_message, require_key

CHARS_PER_TOKEN = 3  # conservative: real text runs 3.5-4.5 chars per token
MIN_CONTEXT = 2048
CONTEXT_STEP = 1024
DEFAULT_REPLY_TOKENS = 1024
OVERHEAD_TOKENS = 256  # chat template, role markers


def context_size(body: dict[str, Any], reply_tokens: int) -> int:
    """num_ctx for this prompt: its estimated tokens plus the reply, rounded up."""
    prompt_chars = len(json.dumps(body.get("messages", []), ensure_ascii=False))
    prompt_chars += len(json.dumps(body.get("tools", []), ensure_ascii=False))
    needed = math.ceil(prompt_chars / CHARS_PER_TOKEN) + reply_tokens + OVERHEAD_TOKENS
    return max(MIN_CONTEXT, math.ceil(needed / CONTEXT_STEP) * CONTEXT_STEP)


class OllamaAdapter:
    def __init__(self, kind: str = "ollama") -> None:
        self.kind = kind
        self.capabilities = ProviderCapabilities(
            auth_type="bearer" if kind == "ollama_cloud" else "none"
        )

    def build(
        self, request: ChatRequest, provider: ProviderConfig, api_key: str | None
    ) -> HttpCall:
        model = (
            request.model.removesuffix(":cloud") if self.kind == "ollama_cloud" else request.model
        )
        body: dict[str, Any] = {
            "model": model,
            "messages": [_message(m) for m in request.messages],
            "stream": True,
        }
        if request.tools:
            body["tools"] = request.tools
        if request.tool_choice is not None:
            body["tool_choice"] = request.tool_choice
        output_format = _format(request)
        if output_format is not None:
            body["format"] = output_format
        if provider.think is not None:
            body["think"] = provider.think
        body["options"] = self._options(request, provider, body)
        dropped = ["reasoning"] if request.reasoning else []
        return HttpCall(
            f"{provider.url}/api/chat", self._headers(provider, api_key), body, "ndjson", dropped
        )

    def _options(
        self, request: ChatRequest, provider: ProviderConfig, body: dict[str, Any]
    ) -> dict[str, Any]:
        reply = request.max_tokens or DEFAULT_REPLY_TOKENS
        num_ctx = context_size(body, reply)
        if provider.context_window and num_ctx > provider.context_window:
            raise LlmError(
                "context_too_long",
                f"the prompt needs about {num_ctx:,} tokens of context but {provider.id!r} "
                f"allows {provider.context_window:,}: ask with fewer sources, or raise its "
                "context_window",
                provider=provider.id,
            )
        options: dict[str, Any] = {"num_ctx": num_ctx}
        if request.max_tokens is not None:
            options["num_predict"] = request.max_tokens
        if request.temperature is not None:
            options["temperature"] = request.temperature
        return options

    def _headers(self, provider: ProviderConfig, api_key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/x-ndjson"}
        if self.kind == "ollama_cloud":
            headers["Authorization"] = f"Bearer {require_key(provider, api_key)}"
        return headers

    async def events(self, lines: AsyncIterator[str]) -> AsyncIterator[StreamEvent]:
        async for line in lines:
            if not line.strip():
                continue
            try:
                chunk = _Chunk.model_validate_json(line)
            except ValidationError as error:
                log.error(
                    '{"event": "malformed_stream_line", "error": %r}',
                    redact_prefix(str(error), 200),
                )
                continue
            if chunk.error is not None:
                yield StreamError(from_stream_error(chunk.error, provider="ollama"))
                return
            for item in _events_of(chunk):
                yield item
            if chunk.done:
                return


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Function(_Loose):
    name: str | None = None
    arguments: dict[str, Any] | str | None = None


class _ToolCall(_Loose):
    function: _Function | None = None


class _Message(_Loose):
    content: str | None = None
    tool_calls: list[_ToolCall] | None = None


class _Chunk(_Loose):
    message: _Message | None = None
    done: bool = False
    done_reason: str | None = None
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    error: str | dict[str, Any] | None = None


def _events_of(chunk: _Chunk) -> list[StreamEvent]:
    found: list[StreamEvent] = []
    message = chunk.message
    if message is not None and message.content:
        found.append(TextDelta(message.content))
    for index, call in enumerate(message.tool_calls or [] if message else []):
        function = call.function or _Function()
        arguments = function.arguments
        text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        found.append(ToolCallDelta(index, f"call_{index}", function.name, text))
    if chunk.done:
        found.append(UsageUpdate(chunk.prompt_eval_count, chunk.eval_count))
        found.append(Done(normalized_finish(chunk.done_reason)))
    return found


def _message(message: ChatMessage) -> dict[str, Any]:
    out = plain_message(message)
    for call in out.get("tool_calls") or []:
        function = call.get("function", {})
        if isinstance(function.get("arguments"), str):  # Ollama takes an object
            try:
                function["arguments"] = json.loads(function["arguments"])
            except ValueError:
                function["arguments"] = {"_raw": function["arguments"]}
    return out


def _format(request: ChatRequest) -> str | dict[str, Any] | None:
    schema = request.json_schema()
    if schema is not None:
        return schema
    if (request.response_format or {}).get("type") == "json_object":
        return "json"
    return None
