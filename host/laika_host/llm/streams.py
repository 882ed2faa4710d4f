"""Wire framings: Server-Sent Events (OpenAI, Anthropic) and NDJSON (Ollama).

Both work on decoded lines as httpx delivers them. A bad line is logged and skipped; the
stream goes on. The end of the stream is the end of the body (plus `[DONE]` for OpenAI).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from ..redact import redact_prefix

log = logging.getLogger("laika.llm")
MAX_LOGGED_LINE = 200


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str | None
    data: str


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    """Events from SSE lines: `event:` and `data:` fields, dispatched on a blank line."""
    event: str | None = None
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield SseEvent(event, "\n".join(data))
            event, data = None, []
            continue
        if line.startswith(":"):
            continue  # a comment (keep-alive)
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
    if data:
        yield SseEvent(event, "\n".join(data))


def parse_json_line(text: str, *, where: str) -> dict[str, Any] | None:
    """One JSON object, or None (logged) when the line is not one."""
    try:
        value = json.loads(text)
    except ValueError as error:
        log.error(
            json.dumps(
                {
                    "event": "malformed_json_line",
                    "where": where,
                    "line": redact_prefix(text, MAX_LOGGED_LINE),
                    "error": str(error),
                }
            )
        )
        return None
    if not isinstance(value, dict):
        log.error(
            json.dumps(
                {
                    "event": "malformed_json_line",
                    "where": where,
                    "line": redact_prefix(text, MAX_LOGGED_LINE),
                }
            )
        )
        return None
    return value


async def ndjson_objects(lines: AsyncIterator[str], *, where: str) -> AsyncIterator[dict[str, Any]]:
    async for line in lines:
        if line.strip():
            parsed = parse_json_line(line, where=where)
            if parsed is not None:
                yield parsed
