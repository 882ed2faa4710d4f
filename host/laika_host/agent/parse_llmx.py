"""Read a compact-mode (LLMX) reply into the same `ParsedResponse` the JSON path gives.

The reply's LLMX message is parsed by the codec (bounded, linear time), the bridge turns it
into the LLMCP answer JSON (`llmx.bridge.compact_reply`), and that JSON goes through
`parse_response`: the envelope, the citation checks and the warnings are the JSON path's, and
the citations are then verified against the stored text like any others. `raw` stays the
reply as received. Citations and tool calls are cut to the JSON path's caps before the JSON is
written (a reply of 10,000 one-line citations would otherwise become JSON longer than the cap,
cut, and lose its answer), with the same warnings.

Small models slip in two harmless ways, which are read with a warning: text (a fence, a
sentence) before the first `HEADER:`/`RES:` line or a closing fence after the message, and a
missing HEADER (the host knows who spoke). Anything else that is not valid LLMX is read by
`parse_response` (JSON, then Markdown), with a warning naming the LLMX error: nothing the
model said is lost.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Final

from ..llmx import LlmxError, parse
from ..llmx.bridge import compact_reply
from .parse import (
    DEFAULT_MAX_CHARS,
    MAX_CITATIONS,
    MAX_TOOL_CALLS,
    ParsedResponse,
    excess_warning,
    parse_response,
)

_START: Final = re.compile(r"^[ \t]{0,8}(?:HEADER|RES)[ \t]{0,8}:", re.M)
_FENCE: Final = ("```", "~~~")
REPLY_HEADER: Final = "HEADER:{f:model,t:user,s:1}"
"""Filled in when the reply starts at its first RES."""


def parse_llmx_reply(
    text: str, *, request_id: str | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> ParsedResponse:
    """An LLMX reply as a checked response; else what the JSON/Markdown readers make of it."""
    try:
        data, warnings = _read(text, max_chars)
    except LlmxError as error:
        parsed = parse_response(text, request_id=request_id, max_chars=max_chars)
        why = f"the reply is not valid LLMX ({error}): read as JSON, else Markdown"
        return replace(parsed, warnings=[why, *parsed.warnings])
    repairs = _cap(data, "citations", MAX_CITATIONS, warnings)
    repairs += _cap(data, "tool_calls", MAX_TOOL_CALLS, warnings)
    encoded = json.dumps(data, ensure_ascii=False)
    parsed = parse_response(encoded, request_id=request_id, max_chars=max_chars)
    return replace(
        parsed,
        raw=text,
        repairs=[*parsed.repairs, *repairs],
        warnings=[*warnings, *parsed.warnings],
    )


def _cap(data: dict[str, object], key: str, cap: int, warnings: list[str]) -> list[str]:
    """Cut `data[key]` to `cap` items; the repair made, if any (its warning is added)."""
    items = data.get(key)
    if not isinstance(items, list) or len(items) <= cap:
        return []
    warnings.append(excess_warning(len(items), cap, key.replace("_", " ")))
    data[key] = items[:cap]
    return [f"dropped_excess_{key}"]


def _read(text: str, max_chars: int) -> tuple[dict[str, object], list[str]]:
    """The reply's LLMCP answer JSON and the leniencies applied; LlmxError when it is not
    LLMX (an over-long reply too: `parse_response` cuts it and says so)."""
    if len(text) > max_chars:
        raise LlmxError(f"the reply is longer than {max_chars} characters")
    start = _START.search(text)
    if start is None:
        raise LlmxError("no HEADER: or RES: line")
    warnings: list[str] = []
    before, message = text[: start.start()], _without_closing_fence(text[start.start() :])
    if before.strip() and before.strip() not in _opening_fences(before):
        warnings.append("text before the LLMX reply was ignored")
    if not message.lstrip().startswith("HEADER"):
        message = f"{REPLY_HEADER}\n{message}"
    return compact_reply(parse(message)), warnings


def _opening_fences(before: str) -> set[str]:
    """A fence line alone before the message (```, ```llmx) is no text to warn about."""
    line = before.strip()
    return {line} if line.startswith(_FENCE) and "\n" not in line else set()


def _without_closing_fence(message: str) -> str:
    body = message.rstrip()
    for fence in _FENCE:
        if body.endswith(fence):
            return body[: -len(fence)].rstrip("`~ \t\r\n")
    return body
