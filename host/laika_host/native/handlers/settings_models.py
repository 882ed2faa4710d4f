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
    message: str = Field(
        description="One sentence for the user, never a tool id or JSON: what changed, what "
        "waits for approval, or why nothing did and what can be changed instead."
    )
    change: SettingsChange | None = Field(description="The registry change, once applied.")
    can_change: list[SettingsToolListed] = Field(
        description="On a decline: every settings tool, with what it does (for programs; "
        "`message` and `suggestions` say it in words)."
    )
    approval_id: str | None = Field(description="Set while pending (`tool.decide`).")
    chosen_by: Literal["model", "matcher"]
    notes: list[str] = Field(description="E.g. the model's reply was unusable: matched offline.")
    details: list[str] = Field(
        default_factory=list,
        description="Sentences under `message`: the settings shown (one per line), the event "
        "rules listed.",
    )
    suggestions: list[str] = Field(
        default_factory=list,
        description="On a decline: the two or three closest things that can be changed, in "
        "words (`Change the maximum capture length`).",
    )
    question: bool = Field(
        default=False,
        description="Declined because the words could not tell what to change: `message` "
        "asks back (`Which theme: dark, light, or the same as your system?`).",
    )
