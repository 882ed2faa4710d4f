"""One adapter per wire format; `adapter_for(kind)` picks it."""

from __future__ import annotations

from .anthropic import AnthropicAdapter
from .base import Adapter, HttpCall
from .ollama import OllamaAdapter
from .openai import OpenAIAdapter


def adapter_for(kind: str) -> Adapter:
    if kind in ("openai", "openrouter", "openai_compatible"):
        return OpenAIAdapter(kind)
    if kind == "anthropic":
        return AnthropicAdapter()
    if kind in ("ollama", "ollama_cloud"):
        return OllamaAdapter(kind)
    raise ValueError(f"no adapter for provider kind {kind!r}")


__all__ = [
    "Adapter",
    "AnthropicAdapter",
    "HttpCall",
    "OllamaAdapter",
    "OpenAIAdapter",
    "adapter_for",
]
