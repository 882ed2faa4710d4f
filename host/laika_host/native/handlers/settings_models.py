"""Payload and result models of `settings.ask` (a setting changed in the user's words)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, JsonValue

from ...settings.intent import MAX_TEXT
from .base_models import StrictPayload
from .chat_models import ProviderRef


class SettingsAsk(StrictPayload):
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)] = Field(
        description="What to change, in the user's words (`use dark mode`)."
    )
    provider: ProviderRef | None = Field(
        default=None,
        description="Who chooses the tool: a configured provider id, or `offline` for the "
        "built-in matcher; none: the default provider, else the matcher.",
    )


class SettingsDecision(BaseModel):
    decision: Literal["allow", "ask", "deny"] | None
    rule_id: str | None
    reason: str | None


class SettingsChange(BaseModel):
    version: int
    commit: str
    paths: list[str]
    message: str


class SettingsToolListed(BaseModel):
    name: str
    description: str


class SettingsReplyResult(BaseModel):
    """What came of the request (the `tool_call` events streamed each state of the call)."""

    status: Literal["applied", "pending", "declined", "denied", "failed"]
    tool: str | None = Field(description="The settings tool chosen; null when declined.")
    arguments: dict[str, JsonValue] | None
    decision: SettingsDecision | None = Field(description="The Policy Gate's decision.")
    message: str = Field(description="One line for the user.")
    change: SettingsChange | None = Field(description="The registry change, once applied.")
    can_change: list[SettingsToolListed] = Field(
        description="On a decline: every settings tool, with what it does."
    )
    approval_id: str | None = Field(description="Set while pending (`tool.decide`).")
    chosen_by: Literal["model", "matcher"]
    notes: list[str] = Field(description="E.g. the model's reply was unusable: matched offline.")
