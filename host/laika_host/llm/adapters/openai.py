"""OpenAI `/v1/chat/completions`, also OpenRouter and OpenAI-compatible servers (llama.cpp's
llama-server, LM Studio, vLLM): bearer auth, messages passed through, SSE with
`stream_options.include_usage`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ...redact import redact_prefix
from ..config import ProviderConfig
from ..contract import ChatRequest, ProviderCapabilities
from ..errors import LlmError, from_stream_error
from ..events import Done, StreamError, StreamEvent, TextDelta, ToolCallDelta, UsageUpdate
from ..events import finish_reason as normalized_finish
from ..streams import log, sse_events
from .base import HttpCall, plain_message, require_key


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Function(_Loose):
    name: str | None = None
    arguments: str | None = None


class _ToolCallPart(_Loose):
    index: int = 0
    id: str | None = None
    function: _Function | None = None


class _Delta(_Loose):
    content: str | None = None
    tool_calls: list[_ToolCallPart] | None = None


class _Choice(_Loose):
    index: int = 0
    delta: _Delta | None = None
    finish_reason: str | None = None


class _Usage(_Loose):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class _Chunk(_Loose):
    choices: list[_Choice] = []
    usage: _Usage | None = None
    error: dict[str, Any] | None = None


class OpenAIAdapter:
    """`kind` openai, openrouter or openai_compatible."""

    def __init__(self, kind: str = "openai") -> None:
        self.kind = kind
        self.capabilities = ProviderCapabilities(
            auth_type="none" if kind == "openai_compatible" else "bearer"
        )

    def build(
        self, request: ChatRequest, provider: ProviderConfig, api_key: str | None
    ) -> HttpCall:
        if self.kind == "openrouter" and "/" not in request.model:
            raise LlmError(
                "bad_request",
                f"OpenRouter model ids are provider/model-name (got {request.model!r}), "
                "e.g. openai/gpt-4o",
                provider=provider.id,
            )
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [plain_message(m) for m in request.messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        optional = {
            "tools": request.tools,
            "tool_choice": request.tool_choice,
            "response_format": request.response_format,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        body.update({key: value for key, value in optional.items() if value is not None})
        if request.reasoning is not None:
            if self.kind == "openrouter":
                body["reasoning"] = {"effort": request.reasoning.effort}
            else:
                body["reasoning_effort"] = request.reasoning.effort
        return HttpCall(
            url=f"{provider.url}/chat/completions",
            headers=self._headers(provider, api_key),
            body=body,
            framing="sse",
        )

    def _headers(self, provider: ProviderConfig, api_key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        elif self.kind != "openai_compatible":
            require_key(provider, api_key)
        if self.kind == "openrouter":
            if provider.title:
                headers["X-Title"] = provider.title
            if provider.referer:
                headers["HTTP-Referer"] = provider.referer
        return headers

    async def events(self, lines: AsyncIterator[str]) -> AsyncIterator[StreamEvent]:
        finish: str | None = None
        async for event in sse_events(lines):
            if event.data.strip() == "[DONE]":
                finish = finish or "stop"
                break
            try:
                chunk = _Chunk.model_validate_json(event.data)
            except ValidationError as error:
                log.error(
                    '{"event": "malformed_stream_line", "error": %r}',
                    redact_prefix(str(error), 200),
                )
                continue
            if chunk.error is not None:
                yield StreamError(from_stream_error(chunk.error))
                return
            for choice in chunk.choices:
                for item in _choice_events(choice):
                    yield item
                finish = choice.finish_reason or finish
            if chunk.usage is not None:
                yield UsageUpdate(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
        if finish is not None:
            yield Done(normalized_finish(finish))


def _choice_events(choice: _Choice) -> list[StreamEvent]:
    found: list[StreamEvent] = []
    delta = choice.delta
    if delta is None:
        return found
    if delta.content:
        found.append(TextDelta(delta.content))
    for part in delta.tool_calls or []:
        function = part.function or _Function()
        found.append(ToolCallDelta(part.index, part.id, function.name, function.arguments or ""))
    return found
