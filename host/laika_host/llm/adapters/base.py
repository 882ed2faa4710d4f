"""What every adapter provides: the HTTP call for a request, and events from its stream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..config import ProviderConfig
from ..contract import ChatMessage, ChatRequest, ProviderCapabilities
from ..errors import LlmError
from ..events import StreamEvent


@dataclass
class HttpCall:
    """One POST: where, with which headers and body, and how its stream is framed.

    `dropped` names request fields this provider cannot take (logged, never silent).
    """

    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    framing: Literal["sse", "ndjson"]
    dropped: list[str] = field(default_factory=list)


class Adapter(Protocol):
    capabilities: ProviderCapabilities

    def build(
        self, request: ChatRequest, provider: ProviderConfig, api_key: str | None
    ) -> HttpCall: ...

    def events(self, lines: AsyncIterator[str]) -> AsyncIterator[StreamEvent]: ...


def require_key(provider: ProviderConfig, api_key: str | None) -> str:
    """The key, or an auth error naming the variable to set (checked before sending)."""
    if not api_key:
        raise LlmError(
            "auth",
            f"no API key: set the environment variable {provider.key_env} for "
            f"provider {provider.id!r}",
            provider=provider.id,
        )
    return api_key


def text_of(content: str | dict[str, Any] | list[Any]) -> str:
    """Structured content as JSON text, for providers that take only strings."""
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def plain_message(message: ChatMessage) -> dict[str, Any]:
    """An OpenAI-shaped message (also what Ollama takes), structured content as JSON text."""
    out: dict[str, Any] = {"role": message.role, "content": text_of(message.content)}
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.tool_calls is not None:
        out["tool_calls"] = message.tool_calls
    if message.name is not None:
        out["name"] = message.name
    return out
