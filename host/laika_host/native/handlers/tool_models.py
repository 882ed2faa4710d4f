"""Payload and result models of the tool message types (`tool.*`, `tools.*`) and of the
`tool_call` event `chat.ask` and `page.summarize` stream."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, JsonValue

from .base_models import StrictPayload

CallId = Annotated[str, Field(min_length=1, max_length=200)]
MAX_TOOL_RESULT = 65_536
"""Bytes of JSON a `tool.result` keeps (the model is shown less: `tools.turn`)."""


class ToolCallEvent(BaseModel):
    """One state of a proposed call (the `tool_call` event, and each `tool_calls` item)."""

    call_id: str
    tool: str
    summary: str | None = Field(
        default=None,
        description="What the call does, in words, for a settings tool (`Switch the theme to "
        "dark`); null for the other tools, whose arguments say it.",
    )
    arguments: JsonValue = Field(description="As shown to the user: redacted and bounded.")
    decision: Literal["allow", "ask", "deny"]
    rule_id: str
    reason: str
    forced_ask: bool = Field(
        description="An `allow` turned into `ask` because untrusted content is in context."
    )
    status: Literal["pending", "approved", "denied", "running", "forward", "executed", "failed"]
    approval_id: str | None = Field(description="Set while `pending`: send it in `tool.decide`.")
    forward: bool = Field(description="True: the extension must run it now (`tool.result`).")
    result: JsonValue = Field(description="What it returned (redacted, bounded), once executed.")
    error: str | None


class ToolDecide(StrictPayload):
    approval_id: CallId
    decision: Literal["approve", "deny"]
    remember: Literal["once", "session", "always"] = "once"


class ToolDecided(BaseModel):
    call: ToolCallEvent


class ToolResult(StrictPayload):
    call_id: CallId
    ok: bool
    result: JsonValue = None
    error: Annotated[str, Field(max_length=4000)] | None = None


class ToolResultRecorded(BaseModel):
    recorded: Literal[True]


class ToolListed(BaseModel):
    name: str
    description: str
    risk: str
    runs_in: Literal["host", "extension"]
    family: Literal["llmcp", "settings"] = Field(
        description="`llmcp`: offered to a chat's model; `settings`: to the settings flow."
    )
    default_decision: Literal["allow", "ask", "deny"]
    arguments_schema: dict[str, Any]


class ToolList(BaseModel):
    schema_version: int
    tools: list[ToolListed]


class ToolRule(BaseModel):
    id: str
    tool: str
    decision: Literal["allow", "deny"]
    scope: Literal["session", "always"]
    created_at: str | None = Field(description="Null for a session's rule (not stored).")


class ToolRules(BaseModel):
    rules: list[ToolRule]


class ToolForget(StrictPayload):
    rule_id: CallId


class ToolForgotten(BaseModel):
    forgotten: Literal[True]
