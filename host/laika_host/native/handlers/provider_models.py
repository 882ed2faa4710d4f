"""Payload and result models of the `models.*` message types (model providers).

No field takes or returns a key: a provider names the environment variable that holds it
(`key_env`), and `key_set` says whether the host process sees it set."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from ...llm.config import ProviderKind
from .base_models import StrictPayload

ProviderId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
EnvName = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$",
        description="The NAME of the environment variable that holds the key (never the key).",
    ),
]
BaseUrl = Annotated[str, Field(min_length=8, max_length=2048, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://")]


class ProviderAdd(StrictPayload):
    id: ProviderId
    kind: ProviderKind
    model: Annotated[str, Field(min_length=1, max_length=200)]
    base_url: BaseUrl | None = None
    key_env: EnvName | None = None


class ProviderTarget(StrictPayload):
    id: ProviderId


class DefaultTarget(StrictPayload):
    id: Annotated[ProviderId, Field(description="A configured provider's id, or `offline`.")]


class ProviderRow(BaseModel):
    id: str
    kind: str
    model: str
    base_url: str | None
    key_env: str | None
    key_set: bool = Field(description="Whether the host process sees `key_env` set.")
    default: bool


class OfflineRow(BaseModel):
    id: Literal["offline"]
    kind: Literal["offline"]
    model: str
    answers: bool
    detail: str
    default: bool


class ProviderList(BaseModel):
    providers: list[ProviderRow]
    default: str | None = Field(description="The default provider's id; null: offline.")
    offline: OfflineRow


class ProviderSaved(BaseModel):
    provider: ProviderRow


class ProviderRemoved(BaseModel):
    removed: str


class ProviderTested(BaseModel):
    answers: bool
    detail: str
    latency_ms: int


class DefaultSet(BaseModel):
    default: str | None = Field(description="The default provider's id; null: offline.")
