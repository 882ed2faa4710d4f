"""Chat Protocol v1 (spec 003): one provider-agnostic request, capabilities, response."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

AuthType = Literal["bearer", "x-api-key", "none"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatMessage(_Model):
    """One message. `content` may be structured JSON (sent as JSON text where a provider
    takes only strings)."""

    role: str = Field(description="system, developer, user, assistant or tool")
    content: str | dict[str, Any] | list[Any] = ""
    tool_call_id: str | None = Field(default=None, description="For role=tool: the call answered.")
    tool_calls: list[dict[str, Any]] | None = Field(
        default=None, description="For role=assistant: OpenAI-shaped calls it made."
    )
    name: str | None = None


class Reasoning(_Model):
    effort: Literal["low", "medium", "high"]


class ChatRequest(_Model):
    provider: str | None = None
    base_url: str | None = None
    model: str = Field(min_length=1)
    messages: list[ChatMessage] = Field(min_length=1)
    tools: list[dict[str, Any]] | None = None
    tool_choice: Any = None
    response_format: dict[str, Any] | None = Field(
        default=None, description="OpenAI-compatible hint; ignored where unsupported."
    )
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    reasoning: Reasoning | None = None
    metadata: dict[str, Any] | None = None

    def json_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of a `json_schema` response_format, if any."""
        spec = (self.response_format or {}).get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        return schema if isinstance(schema, dict) else None


class ProviderCapabilities(_Model):
    supports_tools: bool = True
    supports_json_mode: bool = True
    requires_max_tokens: bool = False
    max_tokens_limit: int | None = None
    auth_type: AuthType = "bearer"
    supports_system_top_level: bool = False
    rate_limits: dict[str, Any] | None = None


class Usage(_Model):
    input_tokens: int | None = None
    output_tokens: int | None = None


class ProviderMeta(_Model):
    provider: str | None = None
    model: str | None = None
    request_id: str | None = None


class ChatResponse(_Model):
    usage: Usage | None = None
    provider_meta: ProviderMeta | None = None
