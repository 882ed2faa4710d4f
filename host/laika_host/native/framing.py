"""Native-messaging frames: a 4-byte native-order length, then that many bytes of UTF-8 JSON.

Limits measured in Chromium 156 (DESIGN.md): a host-to-browser frame over 1,048,576 bytes kills
the port, so replies above `CHUNK_THRESHOLD` are split into chunk frames that never exceed it;
browser-to-host frames up to 64 MiB are legal, so a longer length claim is refused without
buffering it (its bytes are read and dropped, which keeps the stream in sync).
"""

from __future__ import annotations

import asyncio
import json
import struct
from dataclasses import dataclass
from typing import Any

from .errors import ErrorCode

HEADER = struct.Struct("=I")
MAX_REPLY_FRAME = 1_048_576
MAX_REQUEST_FRAME = 64 * 1024 * 1024
CHUNK_THRESHOLD = 256 * 1024
_DISCARD_STEP = 1 << 20


def dumps(message: Any) -> str:
    """Compact JSON as sent on the wire (UTF-8, no NaN)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_frame(message: Any) -> bytes:
    body = dumps(message).encode("utf-8")
    return HEADER.pack(len(body)) + body


def frames_for(message: dict[str, Any], *, threshold: int = CHUNK_THRESHOLD) -> list[bytes]:
    """One frame, or chunk frames `{id, chunk: {index, count}, data}` when it is too large.

    Concatenating the `data` strings in `index` order (1-based) gives the JSON text of the
    original message. Every frame stays at or below `threshold` bytes of data (plus a small
    envelope), far under the 1 MiB limit, whatever escaping the text needs.
    """
    text = dumps(message)
    body = text.encode("utf-8")
    if len(body) <= threshold:
        return [HEADER.pack(len(body)) + body]
    pieces = _split(text, threshold)
    frames = [
        encode_frame(
            {"id": message.get("id"), "chunk": {"index": i, "count": len(pieces)}, "data": piece}
        )
        for i, piece in enumerate(pieces, start=1)
    ]
    if any(len(frame) - HEADER.size > MAX_REPLY_FRAME for frame in frames):  # pragma: no cover
        raise AssertionError("a chunk frame exceeded the browser's limit")
    return frames


def _split(text: str, target: int) -> list[str]:
    """Slices of `text` whose JSON string encoding is at most `target` bytes each."""
    pieces = []
    start = 0
    while start < len(text):
        size = target
        piece = text[start : start + size]
        encoded = len(json.dumps(piece, ensure_ascii=False).encode("utf-8"))
        while encoded > target and size > 1:
            size = max(1, size * target // encoded - 8)
            piece = text[start : start + size]
            encoded = len(json.dumps(piece, ensure_ascii=False).encode("utf-8"))
        pieces.append(piece)
        start += len(piece)
    return pieces


@dataclass(frozen=True)
class FrameProblem:
    """A frame that could not be read; `discard` bytes must still be skipped to stay in sync."""

    code: ErrorCode
    message: str
    discard: int = 0
    at_eof: bool = False


async def read_frame(reader: asyncio.StreamReader) -> bytes | FrameProblem | None:
    """The next frame's body, a problem to report, or None at a clean end of stream."""
    try:
        header = await reader.readexactly(HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        return FrameProblem(
            ErrorCode.BAD_FRAME,
            f"the stream ended inside a frame header ({len(exc.partial)} of 4 bytes)",
            at_eof=True,
        )
    (length,) = HEADER.unpack(header)
    if length == 0:
        return FrameProblem(ErrorCode.BAD_FRAME, "empty frame: the length prefix is 0")
    if length > MAX_REQUEST_FRAME:
        return FrameProblem(
            ErrorCode.TOO_LARGE,
            f"frame claims {length} bytes; requests are limited to {MAX_REQUEST_FRAME} bytes "
            "(64 MiB). Its bytes are skipped.",
            discard=length,
        )
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        return FrameProblem(
            ErrorCode.BAD_FRAME,
            f"the stream ended {len(exc.partial)} bytes into a {length}-byte frame",
            at_eof=True,
        )


async def skip_bytes(reader: asyncio.StreamReader, count: int) -> bool:
    """Read and drop `count` bytes without holding them; False if the stream ended first."""
    remaining = count
    while remaining:
        data = await reader.read(min(remaining, _DISCARD_STEP))
        if not data:
            return False
        remaining -= len(data)
    return True
