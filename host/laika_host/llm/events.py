"""The one normalized stream event type every adapter yields."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LlmError


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a tool call: `index` says which; id and name come first, arguments in parts."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(frozen=True, slots=True)
class UsageUpdate:
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Done:
    """The provider finished: `stop`, `length`, `tool_calls`, `content_filter` or its own word."""

    finish_reason: str


@dataclass(frozen=True, slots=True)
class StreamError:
    """The provider reported an error inside the stream."""

    error: LlmError


StreamEvent = TextDelta | ToolCallDelta | UsageUpdate | Done | StreamError

FINISH_REASONS = {
    "stop": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "tool_use": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


def finish_reason(raw: str | None) -> str:
    return FINISH_REASONS.get(raw or "stop", raw or "stop")
