"""The native message envelope as pydantic models: the source of `schema/native/`.

The host itself checks requests by hand (`envelope.py`) to answer before pydantic loads; a
test keeps these models and that code in agreement.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from ..errors import ErrorCode
from .envelope import MAX_ID_LENGTH, MAX_SAFE_INTEGER, MAX_TYPE_LENGTH, TYPE_PATTERN


class _Frame(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


RequestIdField = (
    Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]
    | Annotated[int, Field(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)]
)
ReplyId = RequestIdField | None


class NativeRequest(_Frame):
    """Extension -> host: one request. `payload` defaults to `{}`."""

    id: RequestIdField
    type: Annotated[str, Field(pattern=f"^{TYPE_PATTERN.pattern}$", max_length=MAX_TYPE_LENGTH)]
    payload: dict[str, JsonValue] = {}


class OkReply(_Frame):
    """Host -> extension: the one final reply of a request that succeeded."""

    id: ReplyId
    ok: Literal[True]
    result: JsonValue


class ErrorBody(_Frame):
    code: ErrorCode
    message: str
    retryable: bool
    details: dict[str, Any] | None = None


class ErrorReply(_Frame):
    """Host -> extension: the one final reply of a request that failed (`id` null when the
    frame could not be read far enough to know it)."""

    id: ReplyId
    ok: Literal[False]
    error: ErrorBody


class StreamEvent(_Frame):
    """Host -> extension: progress of a long request, before its final reply; or, with `id`
    null, a host event no request asked for (`config.changed`)."""

    id: ReplyId
    event: str
    seq: Annotated[int, Field(ge=0)]
    data: JsonValue


class ChunkPosition(_Frame):
    index: Annotated[int, Field(ge=1)]
    count: Annotated[int, Field(ge=1)]


class ChunkFrame(_Frame):
    """Host -> extension: part of a frame over 256 KiB; join `data` in `index` order."""

    id: ReplyId
    chunk: ChunkPosition
    data: str


class NoPayload(_Frame):
    """The payload of a message type that takes none: `{}` or absent."""
