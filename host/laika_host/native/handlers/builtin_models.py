"""Payload and result models of the built-in message types (loaded on first use)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, JsonValue

from ..transport.schema_models import RequestIdField
from .base_models import StrictPayload


class CancelPayload(StrictPayload):
    target_id: RequestIdField = Field(description="The id of the in-flight request to cancel.")


class EchoPayload(StrictPayload):
    data: JsonValue = Field(default=None, description="Any JSON value to send back.")
    repeat: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    delay_ms: Annotated[int, Field(ge=0, le=60_000)] = 0
    stream: bool = Field(
        default=False, description="Send each copy as a `delta` event, then `{count}`."
    )


class LogPayload(StrictPayload):
    level: Literal["debug", "info", "warning", "error"] = "info"
    message: Annotated[str, Field(min_length=1, max_length=4000)]
    context: dict[str, JsonValue] | None = None


class Protocols(BaseModel):
    native: int
    llmcp: int


class PingResult(BaseModel):
    pong: Literal[True]
    version: str
    protocols: Protocols
    capabilities: list[str]


class TypeInfo(BaseModel):
    type: str
    summary: str
    events: list[str]


class InfoResult(BaseModel):
    version: str
    protocols: Protocols
    python: str
    executable: str
    platform: str
    pid: int
    transport: str
    caller: dict[str, Any]
    data_dir: str
    cli: str | None = Field(
        description="The absolute path of the `laika` command that installed this host (the "
        "launcher's LAIKA_CLI), else of the one beside its interpreter; what the extension "
        "shows in a fix when the host goes missing."
    )
    log_file: str
    uptime_seconds: float
    inflight: int
    limits: dict[str, int]
    types: list[TypeInfo]


class CancelResult(BaseModel):
    cancelled: Literal[True]
    target_id: str | int


class EchoResult(BaseModel):
    data: JsonValue = None
    count: int | None = None


class LogResult(BaseModel):
    logged: Literal[True]
