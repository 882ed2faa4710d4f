"""Payload and result models of the `config.*` message types (the settings registry) and of
the `config.changed` host event."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, JsonValue

from ...service.config import DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT
from .base_models import StrictPayload

ConfigPath = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$",
        description="A dotted setting path, e.g. `providers.default`.",
    ),
]


class ConfigGet(StrictPayload):
    path: ConfigPath | None = Field(default=None, description="None: every setting.")


class ConfigSet(StrictPayload):
    path: ConfigPath
    value: JsonValue


class ConfigHistory(StrictPayload):
    path: ConfigPath | None = None
    limit: Annotated[int, Field(ge=1, le=MAX_HISTORY_LIMIT)] = DEFAULT_HISTORY_LIMIT


class ConfigRevert(StrictPayload):
    commit: Annotated[str, Field(min_length=4, max_length=40, pattern=r"^[0-9a-fA-F]+$")]


class ConfigValue(BaseModel):
    path: str | None
    value: JsonValue
    version: int


class ConfigChange(BaseModel):
    version: int = Field(description="The registry's version after the change.")
    commit: str
    paths: list[str]
    message: str


class ConfigCommit(BaseModel):
    commit: str
    message: str
    time: int = Field(description="Seconds since the epoch.")


class ConfigCommits(BaseModel):
    commits: list[ConfigCommit] = Field(description="Newest first.")


class ConfigChanged(BaseModel):
    """Data of the `config.changed` host event (`id` null): the settings changed, by anyone."""

    version: int
    paths: list[str]
