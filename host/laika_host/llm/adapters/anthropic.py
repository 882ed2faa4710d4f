"""Anthropic `/v1/messages`: x-api-key + anthropic-version, system lifted to the top level,
developer -> user, tool results as `tool_result` blocks (`tool_call_id` -> `tool_use_id`),
max_tokens always set, its SSE event types.

Spec 003 says to drop `response_format`, `format` and `stream` from the body. We drop the
first two (recorded in `HttpCall.dropped`); `stream: true` is how Anthropic streams at all,
so it is sent.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ...redact import redact_prefix
from ..config import ProviderConfig
from ..contract import ChatMessage, ChatRequest, ProviderCapabilities
from ..errors import from_stream_error
from ..events import Done, StreamError, StreamEvent, TextDelta, ToolCallDelta, UsageUpdate
from ..events import finish_reason as normalized_finish
from ..streams import log, sse_events
from .base import HttpCall, require_key, text_of

API_VERSION = "2023-06-01"


class AnthropicAdapter:
    def __init__(self) -> None:
        self.capabilities = ProviderCapabilities(
            supports_json_mode=False,
            requires_max_tokens=True,
            auth_type="x-api-key",
            supports_system_top_level=True,
        )

    def build(
        self, request: ChatRequest, provider: ProviderConfig, api_key: str | None
    ) -> HttpCall:
        api_key = require_key(provider, api_key)
        system = [text_of(m.content) for m in request.messages if m.role == "system"]
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [_message(m) for m in request.messages if m.role != "system"],
            "max_tokens": _max_tokens(request, provider, self.capabilities),
            "stream": True,
        }
        if system:
            body["system"] = "\n\n".join(system)
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = [_tool(tool) for tool in request.tools]
        if request.tool_choice is not None:
            body["tool_choice"] = _tool_choice(request.tool_choice)
        dropped = [name for name in ("response_format", "reasoning") if getattr(request, name)]
        headers = {
            "x-api-key": api_key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
            "accept": "text/event-stream",
        }
        return HttpCall(f"{provider.url}/v1/messages", headers, body, "sse", dropped)

    async def events(self, lines: AsyncIterator[str]) -> AsyncIterator[StreamEvent]:
        async for event in sse_events(lines):
            try:
                message = _Event.model_validate_json(event.data)
            except ValidationError as error:
                log.error(
                    '{"event": "malformed_stream_line", "error": %r}',
                    redact_prefix(str(error), 200),
                )
                continue
            for item in _events_of(message):
                yield item
                if isinstance(item, StreamError):
                    return
            if message.type == "message_stop":
                return


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Usage(_Loose):
    input_tokens: int | None = None
    output_tokens: int | None = None


class _Message(_Loose):
    id: str | None = None
    usage: _Usage | None = None


class _Block(_Loose):
    type: str
    id: str | None = None
    name: str | None = None


class _Delta(_Loose):
    type: str | None = None
    text: str | None = None
    partial_json: str | None = None
    stop_reason: str | None = None


class _Event(_Loose):
    type: str
    index: int = 0
    message: _Message | None = None
    content_block: _Block | None = None
    delta: _Delta | None = None
    usage: _Usage | None = None
    error: dict[str, Any] | None = None


def _events_of(event: _Event) -> list[StreamEvent]:
    kind, delta = event.type, event.delta
    if kind == "message_start" and event.message and event.message.usage:
        return [UsageUpdate(input_tokens=event.message.usage.input_tokens)]
    if kind == "content_block_start" and event.content_block:
        block = event.content_block
        if block.type == "tool_use":
            return [ToolCallDelta(event.index, block.id, block.name, "")]
        return []
    if kind == "content_block_delta" and delta is not None:
        if delta.type == "text_delta" and delta.text:
            return [TextDelta(delta.text)]
        if delta.type == "input_json_delta":
            return [ToolCallDelta(event.index, arguments=delta.partial_json or "")]
        return []
    if kind == "message_delta":
        found: list[StreamEvent] = []
        if event.usage is not None:
            found.append(UsageUpdate(output_tokens=event.usage.output_tokens))
        if delta is not None and delta.stop_reason:
            found.append(Done(normalized_finish(delta.stop_reason)))
        return found
    if kind == "error":
        return [StreamError(from_stream_error(event.error or {}, provider="anthropic"))]
    return []  # ping, content_block_stop, message_stop


def _message(message: ChatMessage) -> dict[str, Any]:
    if message.role == "tool":
        block = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "content": text_of(message.content),
        }
        return {"role": "user", "content": [block]}
    role = "user" if message.role in ("user", "developer") else "assistant"
    if role == "assistant" and message.tool_calls:
        blocks: list[dict[str, Any]] = []
        if text_of(message.content):
            blocks.append({"type": "text", "text": text_of(message.content)})
        blocks += [_tool_use(call) for call in message.tool_calls]
        return {"role": role, "content": blocks}
    return {"role": role, "content": text_of(message.content)}


def _tool_use(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function", {})
    arguments = function.get("arguments") or "{}"
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        parsed = {"_raw": arguments}
    return {"type": "tool_use", "id": call.get("id"), "name": function.get("name"), "input": parsed}


def _tool(tool: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI function tool as an Anthropic tool (already-Anthropic tools pass through)."""
    function = tool.get("function")
    if not isinstance(function, dict):
        return tool
    mapped = {"name": function.get("name"), "input_schema": function.get("parameters") or {}}
    if function.get("description"):
        mapped["description"] = function["description"]
    return mapped


def _tool_choice(choice: Any) -> dict[str, Any]:
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        return {"type": "tool", "name": choice["function"].get("name")}
    words = {"auto": "auto", "required": "any", "any": "any", "none": "none"}
    if isinstance(choice, str) and choice in words:
        return {"type": words[choice]}
    return choice if isinstance(choice, dict) else {"type": "auto"}


def _max_tokens(
    request: ChatRequest, provider: ProviderConfig, capabilities: ProviderCapabilities
) -> int:
    wanted = request.max_tokens or provider.default_max_tokens
    limit = (provider.capabilities or capabilities).max_tokens_limit
    return min(wanted, limit) if limit else wanted
