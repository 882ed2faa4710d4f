"""Native-messaging frames: a 4-byte native-order length, then that many bytes of UTF-8 JSON.

Limits measured in Chromium 156 (DESIGN.md): a host-to-browser frame over 1,048,576 bytes kills
the port, so replies above `CHUNK_THRESHOLD` are split into chunk frames that never exceed it;
browser-to-host frames up to 64 MiB are legal, so a longer length claim is refused without
buffering it (its bytes are read and dropped, which keeps the stream in sync).
"""

from __future__ import annotations

import asyncio
import json
import math
import struct
from dataclasses import dataclass
from typing import Any

from ..errors import ErrorCode

HEADER = struct.Struct("=I")
MAX_REPLY_FRAME = 1_048_576
MAX_REQUEST_FRAME = 64 * 1024 * 1024
CHUNK_THRESHOLD = 256 * 1024
_DISCARD_STEP = 1 << 20


def dumps(message: Any) -> str:
    """Compact JSON as sent on the wire; never raises for a JSON-like value.

    A reply must reach the extension whatever a handler or an echo put in it, so what JSON (or
    UTF-8) cannot carry is written as JavaScript's `JSON.stringify` and Chrome's UTF-8 bridge
    would: NaN, infinities and integers too long to write out become `null`, a lone surrogate
    becomes U+FFFD, and nesting deeper than the C encoder's recursion limit is written by a
    loop. Only a value that is not JSON-like at all (a set, a cycle) raises, as `json` does.
    """
    return _text_and_body(message)[0]


def encode_frame(message: Any) -> bytes:
    body = _text_and_body(message)[1]
    return HEADER.pack(len(body)) + body


def _text_and_body(message: Any) -> tuple[str, bytes]:
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (ValueError, RecursionError):
        text = _dumps_by_loop(message)
    try:
        return text, text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: U+FFFD each (a valid pair is joined)
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return text, text.encode("utf-8")


@dataclass(frozen=True)
class _Close:
    """A container's closing bracket, queued behind its items."""

    text: str
    owner: int


def _dumps_by_loop(value: Any) -> str:
    """`json.dumps` without recursion and without refusing a non-finite or huge number."""
    parts: list[str] = []
    open_ids: set[int] = set()
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, _Close):
            parts.append(item.text)
            open_ids.discard(item.owner)
        elif isinstance(item, dict | list | tuple):
            if id(item) in open_ids:
                raise ValueError("Circular reference detected")
            open_ids.add(id(item))
            parts.append("{" if isinstance(item, dict) else "[")
            pending.extend(_reversed_members(item))
        else:
            parts.append(_scalar(item))
    return "".join(parts)


def _reversed_members(container: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> list[Any]:
    """What follows an opening bracket, last first (it goes on a stack): items, separators,
    keys, and the closing bracket."""
    is_dict = isinstance(container, dict)
    items = list(container.items()) if isinstance(container, dict) else list(container)
    members: list[Any] = [_Close("}" if is_dict else "]", id(container))]
    for index in range(len(items) - 1, -1, -1):
        comma = "," if index else ""
        if isinstance(container, dict):
            key, child = items[index]
            members += [child, _Close(comma + json.dumps(_key(key), ensure_ascii=False) + ":", -1)]
        else:
            members += [items[index], _Close(comma, -1)]
    return members


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool | int | float):
        return _scalar(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _scalar(value: Any) -> str:
    if value is None or isinstance(value, bool | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        try:
            return int.__repr__(value)
        except ValueError:  # more digits than the interpreter will write
            return "null"
    if isinstance(value, float):
        return float.__repr__(value) if math.isfinite(value) else "null"
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def frames_for(message: dict[str, Any], *, threshold: int = CHUNK_THRESHOLD) -> list[bytes]:
    """One frame, or chunk frames `{id, chunk: {index, count}, data}` when it is too large.

    Concatenating the `data` strings in `index` order (1-based) gives the JSON text of the
    original message. Every frame stays at or below `threshold` bytes of data (plus a small
    envelope), far under the 1 MiB limit, whatever escaping the text needs.
    """
    text, body = _text_and_body(message)
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
