"""Turn a model's reply into a validated LLMCP response, repairing only what is safe to repair.

Model output is untrusted and often slightly off: fenced, preceded by reasoning, wrapped in
prose, missing the envelope. `parse_response` tries strict JSON first, then a repair mode in
which every change is named in `repairs`, then the spec's Markdown fallback (spec 000,
"Markdown-only response mode"). It never raises and always keeps the reply as received in
`raw`, so nothing the model said is lost even when it is not shown.

Any reply is read in bounded, linear time: it is cut at `max_chars` first, and the answer
with its truncation note fits inside `max_chars` (so a caller can store it under the same
cap); JSON nested deeper than `MAX_JSON_DEPTH` (100) levels is not parsed (it is read as
Markdown, with a warning), so nothing recurses past Python's stack; lone surrogates (invalid
UTF-16 from a provider's `\ud800` escapes) become U+FFFD, so the answer can be stored and sent.
What is checked one item at a time is capped before any check, each cap with a warning that
says how many items were dropped: `MAX_CITATIONS` citations (64: no more are ever verified or
kept), `MAX_TOOL_CALLS` tool calls (32: no more are ever recorded), `MAX_RENDER_BLOCKS`
top-level render blocks (500), and `MAX_QUOTES` quote lines in Markdown mode (64). A reply of
60,000 empty citations took 3 CPU-s here (and 27 more in the client's schema check) before.

| outcome | meaning |
| --- | --- |
| `parsed` | strict JSON that validates as a response; no repairs |
| `repaired` | a valid response after the repairs listed in `repairs` |
| `markdown_fallback` | no usable response: the cleaned text is the answer, no citations or tools |
| `error` | nothing usable: empty, whitespace, or only unfinished reasoning |

`parse_markdown_reply` reads a reply to the Markdown-mode prompt (for models that cannot keep
to JSON): after the same cleaning, the text is the answer, and each line of the form
`> "exact words" (doc_id)` becomes one of `quotes`, to be verified like any citation.

| repair | what was done |
| --- | --- |
| `truncated_output` | reply (or answer) over `max_chars` cut; a note inside the cap ends it |
| `replaced_lone_surrogates` | lone UTF-16 surrogates (invalid Unicode) replaced by U+FFFD |
| `stripped_bom` | leading byte-order mark removed |
| `stripped_think_block` | leading `<think>...</think>` (or an unclosed one) removed |
| `stripped_code_fence` | the JSON (or the whole answer) was inside a ``` fence |
| `extracted_json_from_prose` | the first balanced JSON object taken from surrounding text |
| `removed_trailing_commas` | `,` before `}` or `]` removed (unambiguous, so repaired) |
| `escaped_control_characters` | raw newlines/tabs inside JSON strings escaped |
| `decoded_json_string` | the response arrived JSON-encoded as a string |
| `unwrapped_json_array` | the response arrived as the first item of an array |
| `filled_envelope` | missing envelope fields filled; bare content wrapped as `assistant` |
| `replaced_invalid_envelope_fields` | envelope fields the model got wrong replaced |
| `corrected_in_reply_to` | `in_reply_to.request_id` set to the real request id |
| `wrapped_assistant_string` | `assistant` was a string: taken as `assistant.markdown` |
| `moved_citations_into_assistant` | top-level `citations` moved to `assistant.citations` |
| `dropped_unknown_keys` | keys outside the schema removed (not inside tool calls) |
| `dropped_invalid_fields` | invalid optional fields removed (title, locator, confidence) |
| `render_missing_used_markdown` | `render` invalid, `assistant.markdown` used instead |
| `dropped_invalid_render_blocks` | invalid top-level blocks of a render tree removed |
| `dropped_invalid_citations` | citations that do not validate removed |
| `dropped_unknown_tool_calls` | tool calls outside the v1 catalog or `known_tools` removed |
| `dropped_invalid_tool_calls` | tool calls with invalid arguments or shape removed |
| `dropped_excess_citations` | citations past `MAX_CITATIONS` removed unread |
| `dropped_excess_render_blocks` | top-level render blocks past `MAX_RENDER_BLOCKS` removed unread |
| `dropped_excess_tool_calls` | tool calls past `MAX_TOOL_CALLS` removed unread (never run) |
| `salvaged_partial_markdown` | cut-off JSON: the partial `markdown` string shown (fallback) |

Not repaired, so they fall back to Markdown: single quotes (Python dicts), NaN/Infinity,
duplicate keys and comments are not JSON, and guessing their meaning is exactly what a strict
boundary must not do. A response whose only answer is `assistant.markdown` is valid (the spec's
lenient path) and counts as `parsed`. Tool calls are never repaired, only kept or dropped, and
JSON cut off mid-way never yields tool calls or citations. The envelope is the host's to know:
filled values are laika.llmcp v1, a fresh id, the current time, conversation `unknown` turn 1
(callers own the real conversation), sender `assistant`, and `in_reply_to` = `request_id`.
"""

from __future__ import annotations

import json
import re
import uuid
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from pydantic import ValidationError

from ..issues import Issue, issues_from, json_type
from ..json_depth import MAX_JSON_DEPTH, too_deep
from ..protocol import (
    PROTOCOL_NAME,
    PROTOCOL_VERSION,
    TOOL_CALL_MODELS,
    Assistant,
    Citation,
    Document,
    ResponsePacket,
    ToolCallBase,
    format_timestamp,
)
from ..render import document_to_markdown
from ..strict_json import loads_strict
from .verify import MAX_CITATIONS as VERIFIED_CITATIONS

Outcome = Literal["parsed", "repaired", "markdown_fallback", "error"]
OUTCOMES: Final[tuple[Outcome, ...]] = ("parsed", "repaired", "markdown_fallback", "error")

REPAIRS: Final[tuple[str, ...]] = (
    "truncated_output",
    "replaced_lone_surrogates",
    "stripped_bom",
    "stripped_think_block",
    "stripped_code_fence",
    "extracted_json_from_prose",
    "removed_trailing_commas",
    "escaped_control_characters",
    "decoded_json_string",
    "unwrapped_json_array",
    "filled_envelope",
    "replaced_invalid_envelope_fields",
    "corrected_in_reply_to",
    "wrapped_assistant_string",
    "moved_citations_into_assistant",
    "dropped_unknown_keys",
    "dropped_invalid_fields",
    "render_missing_used_markdown",
    "dropped_invalid_render_blocks",
    "dropped_invalid_citations",
    "dropped_unknown_tool_calls",
    "dropped_invalid_tool_calls",
    "dropped_excess_citations",
    "dropped_excess_render_blocks",
    "dropped_excess_tool_calls",
    "salvaged_partial_markdown",
)
"""Every repair name `parse_response` records, in the order of the module docstring."""

DEFAULT_MAX_CHARS: Final = 200_000
TRUNCATION_MARKER: Final = "\n\n*[Output truncated: the reply was longer than {limit} characters.]*"
UNKNOWN_ID: Final = "unknown"
"""Filled in for a conversation or request id the host did not pass and the model left out."""

MAX_JSON_CANDIDATES: Final = 16
"""How many `{` positions are tried when looking for JSON in prose (bounds the work)."""
MAX_CITATIONS: Final = VERIFIED_CITATIONS
"""Citations read from one reply: verification keeps no more, so none past it is checked."""
MAX_QUOTES: Final = VERIFIED_CITATIONS
"""Quote lines read from one Markdown-mode reply (they are its citations)."""
MAX_TOOL_CALLS: Final = 32
"""Tool calls read from one reply; the tool loop runs at most 8 of them and records the rest."""
MAX_RENDER_BLOCKS: Final = 500
"""Top-level blocks of a render tree read from one reply (its Markdown is cut at `max_chars`)."""
MAX_ISSUES: Final = 50
"""Validation issues read per check: a reason shows five; the envelope's come first."""

_ENVELOPE_KEYS: Final = (
    "protocol",
    "id",
    "type",
    "created_at",
    "conversation",
    "sender",
    "in_reply_to",
)
_PACKET_KEYS: Final = frozenset(ResponsePacket.model_fields)
_ASSISTANT_KEYS: Final = frozenset(Assistant.model_fields)
_CITATION_KEYS: Final = frozenset(Citation.model_fields)
_OPTIONAL_CITATION_FIELDS: Final = frozenset({"locator", "confidence"})
_CONTENT_KEYS: Final = ("title", "render", "markdown", "citations")


@dataclass(frozen=True)
class Dropped:
    """Something removed from the reply: what, where (JSON path), why; `raw` still has it."""

    what: str
    path: str
    reason: str
    value: Any = None


@dataclass(frozen=True)
class ParsedResponse:
    """What a model reply turned into; `raw` is always the reply exactly as received."""

    outcome: Outcome
    markdown: str
    raw: str
    response: ResponsePacket | None = None
    citations: list[Citation] = field(default_factory=list)
    tool_calls: list[ToolCallBase] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    quotes: list[dict[str, str]] = field(default_factory=list)
    """Markdown mode only: `{"doc_id", "quote"}` for each listed quote, in order."""

    @property
    def ok(self) -> bool:
        """True when there is an answer to show (every outcome but `error`)."""
        return self.outcome != "error"

    @property
    def truncated(self) -> bool:
        """True when the reply or its answer was cut at `max_chars` (the answer says so)."""
        return "truncated_output" in self.repairs


@dataclass
class _Context:
    """The caller's expectations plus everything recorded while parsing."""

    request_id: str | None
    known_tools: set[str] | None
    max_chars: int = DEFAULT_MAX_CHARS
    repairs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    truncated_at: int | None = None

    def repair(self, name: str, warning: str | None = None) -> None:
        if name not in self.repairs:
            self.repairs.append(name)
        if warning:
            self.warnings.append(warning)

    def drop(self, repair: str, what: str, path: str, reason: str, value: Any) -> None:
        self.repair(repair)
        self.dropped.append(Dropped(what, path, reason, value))

    def known(self, tool: str) -> bool:
        allowed = self.known_tools is None or tool in self.known_tools
        return tool in TOOL_CALL_MODELS and allowed

    def mark(self) -> tuple[int, int, int]:
        return len(self.repairs), len(self.warnings), len(self.dropped)

    def rollback(self, mark: tuple[int, int, int]) -> None:
        """Forget object repairs made on JSON that turned out unusable after all."""
        del self.repairs[mark[0] :], self.warnings[mark[1] :], self.dropped[mark[2] :]


def parse_response(
    text: str,
    *,
    request_id: str | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
    known_tools: set[str] | None = None,
) -> ParsedResponse:
    """Parse a model reply: strict, else repaired, else Markdown; never raises."""
    ctx = _Context(request_id or None, known_tools, max(max_chars, 0))
    try:
        return _parse(text, ctx)
    except Exception as error:  # the last line of defence: a reply must never crash a turn
        raw = text if isinstance(text, str) else repr(text)
        warning = f"internal error while parsing the reply ({type(error).__name__}: {error})"
        return ParsedResponse("error", "", raw, warnings=[*ctx.warnings, warning])


def _parse(raw: str, ctx: _Context) -> ParsedResponse:
    text = _bound(raw, ctx)
    found = _load_strict_whole(text)
    cleaned = text if found is not None else _clean_text(text, ctx)
    if not cleaned.strip():
        return _error(raw, ctx, "the reply has no answer text")
    mark = ctx.mark()  # what was done to JSON that proves unusable is forgotten below
    found = found if found is not None else _find_json(cleaned)
    if found is not None:
        for name in found.repairs:
            ctx.repair(name)
        ctx.warnings.extend(found.warnings)
    outcome = "the reply is not JSON" if found is None else _to_response(found, ctx)
    if isinstance(outcome, ResponsePacket):
        return _result(outcome, raw, ctx)
    ctx.rollback(mark)
    return _fallback(raw, cleaned, ctx, outcome)


_QUOTE_LINE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+|\d{1,3}[.)][ \t]+)?(?:>[ \t]*)?"
    r"[\"\u201c](?P<quote>[^\n]+?)[\"\u201d][ \t]*\([ \t]*(?P<doc_id>[^()\s]+)[ \t]*\)[ \t]*$",
    re.M,
)
_QUOTES_LABEL = re.compile(r"\n[ \t]*(?:#+[ \t]*)?[^\n]{0,40}:[ \t]*\Z")
"""A short label left at the very end once the quote lines are gone ("Quotes used:")."""


def parse_markdown_reply(
    text: str, *, request_id: str | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> ParsedResponse:
    """Read a Markdown-mode reply: the cleaned text is the answer, quote lines are citations."""
    ctx = _Context(request_id or None, None, max(max_chars, 0))
    cleaned = _clean_text(_bound(text, ctx), ctx)
    matches = list(_QUOTE_LINE.finditer(cleaned))
    if len(matches) > MAX_QUOTES:
        ctx.warnings.append(excess_warning(len(matches), MAX_QUOTES, "quote lines"))
    quotes = [
        {"doc_id": match["doc_id"], "quote": match["quote"].strip()}
        for match in matches[:MAX_QUOTES]
    ]
    answer = _QUOTE_LINE.sub("", cleaned).rstrip()
    answer = _QUOTES_LABEL.sub("", answer).strip("\n") if quotes else answer.strip("\n")
    if not answer.strip():  # nothing but quotes: they are the answer
        answer = cleaned.strip("\n")
    if not answer.strip():
        return _error(text, ctx, "the reply has no answer text")
    _note_html(answer, ctx)
    shown = _finish(answer, ctx)  # first: a cut here is a repair too
    return ParsedResponse(
        "repaired" if ctx.repairs else "parsed",
        shown,
        text,
        repairs=ctx.repairs,
        warnings=ctx.warnings,
        quotes=quotes,
    )


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _bound(text: str, ctx: _Context) -> str:
    """The reply cut at the cap, as valid Unicode, and warned about when it nests too deep."""
    if len(text) > ctx.max_chars:
        ctx.truncated_at = ctx.max_chars
        warning = f"the reply had {len(text)} characters; cut at {ctx.max_chars}"
        ctx.repair("truncated_output", warning)
        text = text[: ctx.max_chars]
    valid = well_formed(text)  # a lone surrogate can be neither stored nor sent
    if valid is not text:
        text = valid
        ctx.repair("replaced_lone_surrogates", "the reply had invalid Unicode: replaced by �")
    if too_deep(text):
        ctx.warnings.append(
            f"the reply nests JSON deeper than {MAX_JSON_DEPTH} levels: not read as JSON"
        )
    return text


# --- text cleaning --------------------------------------------------------------------------

_THINK_BLOCK = re.compile(r"\s*<(?:think|thinking)>.*?</(?:think|thinking)\s*>", re.I | re.S)
"""Used with `match(text, start)`, which anchors it (`\\A` would not match past 0)."""
_THINK_OPEN = re.compile(r"\A\s*<(?:think|thinking)>", re.I)
_THINK_CLOSE = re.compile(r"</(?:think|thinking)\s*>", re.I)
_AFTER_THINKING = re.compile(r"^[ \t]*(?:\{|```)", re.M)
_FENCE_OPEN = re.compile(r"\A\s*+(`{3,}+|~{3,}+)[ \t]*+([A-Za-z0-9_+.-]*+)[ \t]*+\r?\n")
_WRAPPER_LANGUAGES = frozenset({"", "json", "jsonc", "json5", "markdown", "md", "text", "txt"})


def _clean_text(text: str, ctx: _Context) -> str:
    """The reply without a BOM, leading reasoning, or a fence around all of it."""
    if text.startswith("\ufeff"):
        text = text.lstrip("\ufeff")
        ctx.repair("stripped_bom")
    text = _strip_think(text, ctx)
    return _unwrap_fence(text, ctx)


def _strip_think(text: str, ctx: _Context) -> str:
    """Remove reasoning the runtime failed to keep out of the answer (spec: transport note)."""
    stripped, start = False, 0
    while match := _THINK_BLOCK.match(text, start):  # one copy after all blocks: linear
        start, stripped = match.end(), True
    text = text[start:]
    if opened := _THINK_OPEN.match(text):
        # Unclosed: the reasoning runs until JSON or a fence starts, or to the end.
        rest = text[opened.end() :]
        answer = _AFTER_THINKING.search(rest)
        text, stripped = (rest[answer.start() :] if answer else ""), True
        ctx.warnings.append("the reply has an unclosed <think> block")
    elif not text.lstrip().startswith(("{", "[", '"')) and (close := _THINK_CLOSE.search(text)):
        # A closing tag alone: the template opened the block (Qwen3 style).
        text, stripped = text[close.end() :], True
    if stripped:
        ctx.repair("stripped_think_block")
    return text


def _unwrap_fence(text: str, ctx: _Context) -> str:
    """Unwrap a reply that is one fenced block (closed, or cut off before its closing fence)."""
    opened = _FENCE_OPEN.match(text)
    if opened is None or opened.group(2).lower() not in _WRAPPER_LANGUAGES:
        return text
    fence, body = opened.group(1), text[opened.end() :]
    closing = re.compile(rf"^[ \t]*{re.escape(fence)}[ \t]*\r?$", re.M)
    closings = list(closing.finditer(body))
    at_end = bool(closings) and not body[closings[-1].end() :].strip()
    nested_ok = opened.group(2).lower() in ("markdown", "md")
    if at_end and (len(closings) == 1 or nested_ok):
        body = body[: closings[-1].start()]
    elif closings:
        return text  # a fence followed by prose: the prose extractor deals with it
    ctx.repair("stripped_code_fence")
    return body


# --- finding JSON ---------------------------------------------------------------------------

_NOT_JSON: Final = object()
_STRING = r'"[^"\\]*+(?:\\.[^"\\]*+)*+'
_TOKENS = re.compile(_STRING + r'(?P<close>")?|[{}\[\]]', re.S)
_SYNTAX = re.compile(_STRING + r'\\?+(?:"|\Z)|,(?=\s*[}\]])', re.S)  # unclosed: one scan
_CONTROL = re.compile(r"[\x00-\x1f]")
_CONTROL_ESCAPES: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_FENCE_LINE = re.compile(r"^[ \t]*+(`{3,}+|~{3,}+)[ \t]*+([A-Za-z0-9_+.-]*+)[ \t]*+\r?$", re.M)
"""A fence line: its fence and info string (possessive: one pass per line, no backtracking)."""


@dataclass(frozen=True)
class _Found:
    """A JSON value found in the reply and the text repairs it took to get it."""

    value: Any
    repairs: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def _try_strict(text: str) -> Any:
    if too_deep(text):  # refused before any recursion (see the module docstring)
        return _NOT_JSON
    try:
        return loads_strict(text, allow_lone_surrogates=True)  # replaced in _decode_string
    except (ValueError, RecursionError):  # NotJsonError, and int() digit limits from json
        return _NOT_JSON


def _load_strict_whole(text: str) -> _Found | None:
    """The reply as strict JSON, exactly as received (the path of a well-behaved model)."""
    value = _try_strict(text)
    return None if value is _NOT_JSON else _decode_string(value, ())


def _load(text: str) -> _Found | None:
    """Strict JSON, else strict JSON after the unambiguous syntax fixes."""
    value = _try_strict(text)
    fixes: tuple[str, ...] = ()
    if value is _NOT_JSON:
        fixed, fixes = _fix_syntax(text)
        value = _try_strict(fixed) if fixes else _NOT_JSON
    return None if value is _NOT_JSON else _decode_string(value, fixes)


def _decode_string(value: Any, repairs: tuple[str, ...]) -> _Found:
    """A JSON string that itself holds a JSON object or array is decoded once more; lone
    surrogates that `\\ud800`-style escapes decoded to are replaced."""
    if isinstance(value, str) and value.strip().startswith(("{", "[")):
        inner = _try_strict(value.strip())
        if inner is not _NOT_JSON:
            value, repairs = inner, (*repairs, "decoded_json_string")
    value, replaced = _valid_unicode(value)
    return _Found(value, (*repairs, "replaced_lone_surrogates") if replaced else repairs)


def _valid_unicode(value: Any) -> tuple[Any, bool]:
    """`value` with lone surrogates in every string (keys too) replaced, and whether any
    were; unchanged parts stay the same objects (depth is bounded by MAX_JSON_DEPTH)."""
    if isinstance(value, str):
        fixed = well_formed(value)
        return fixed, fixed is not value
    if isinstance(value, list):
        pairs = [_valid_unicode(item) for item in value]
        if any(changed for _, changed in pairs):
            return [item for item, _ in pairs], True
    elif isinstance(value, dict):
        entries = [(_valid_unicode(k), _valid_unicode(v)) for k, v in value.items()]
        if any(k[1] or v[1] for k, v in entries):
            return {k[0]: v[0] for k, v in entries}, True
    return value, False


def well_formed(text: str) -> str:
    """The same string object when it is valid Unicode; else lone surrogates become U+FFFD
    (a high and low surrogate that make a pair become the one character they stand for)."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _fix_syntax(text: str) -> tuple[str, tuple[str, ...]]:
    """Remove trailing commas and escape raw control characters in strings; never guesses."""
    fixes: set[str] = set()

    def fix(match: re.Match[str]) -> str:
        token = match.group()
        if token == ",":
            fixes.add("removed_trailing_commas")
            return ""
        if _CONTROL.search(token):
            fixes.add("escaped_control_characters")
            return _CONTROL.sub(_escape_control, token)
        return token

    fixed = _SYNTAX.sub(fix, text)
    return fixed, tuple(name for name in REPAIRS if name in fixes)


def _escape_control(match: re.Match[str]) -> str:
    char = match.group()
    return _CONTROL_ESCAPES.get(char, f"\\u{ord(char):04x}")


def _find_json(text: str) -> _Found | None:
    """The whole text as JSON, else a fenced JSON block, else the first JSON object in prose."""
    return _load(text) or _from_fence(text) or _from_prose(text)


def _fenced_blocks(text: str) -> Iterator[str]:
    """The body of each fenced block: an opening fence line closed by the first later line
    that is exactly that fence; the scan goes on after each block. Linear: the fence lines
    are found once and each opening looks up its closing by bisection (a regex that searched
    ahead from every unclosed opening took minutes on a reply of 80,000 characters)."""
    lines = [(m.start(), m.end(), m.group(1), m.group(2)) for m in _FENCE_LINE.finditer(text)]
    closings: dict[str, list[int]] = {}
    for number, (_, _, fence, info) in enumerate(lines):
        if not info:
            closings.setdefault(fence, []).append(number)
    number = 0
    while number < len(lines):
        _, end, fence, _ = lines[number]
        later = closings.get(fence, [])
        at = bisect_right(later, number)
        if text.startswith("\n", end) and at < len(later):
            yield text[end + 1 : lines[later[at]][0]]
            number = later[at] + 1
        else:
            number += 1


def _from_fence(text: str) -> _Found | None:
    for inner in _fenced_blocks(text):
        if not inner.lstrip().startswith(("{", "[")):
            continue
        found = _load(inner)
        if found is not None:
            repairs = ("stripped_code_fence", "extracted_json_from_prose", *found.repairs)
            ignored = len(text) - len(inner.strip())
            return _Found(found.value, repairs, (_ignored_warning(ignored),))
    return None


def _from_prose(text: str) -> _Found | None:
    """The first top-level `{...}` that parses as a JSON object (nested ones are not tried)."""
    for start, status, end in _top_level_objects(text):
        if status != "closed":
            continue
        found = _load(text[start:end])
        if found is not None and isinstance(found.value, dict):
            ignored = len(text.strip()) - (end - start)
            repairs = ("extracted_json_from_prose", *found.repairs)
            return _Found(found.value, repairs, (_ignored_warning(ignored),))
    return None


def _ignored_warning(count: int) -> str:
    return f"ignored {count} characters of text around the JSON"


_Status = Literal["closed", "open", "broken"]


def _top_level_objects(text: str) -> Iterator[tuple[int, _Status, int]]:
    """`(start, status, end)` of each top-level `{` in prose, up to MAX_JSON_CANDIDATES.

    A closed object is skipped whole (what is inside is not top-level); an open one runs to
    the end of the text, so it is the last.
    """
    start = text.find("{")
    for _ in range(MAX_JSON_CANDIDATES):
        if start < 0:
            return
        status, end = _balanced(text, start)
        yield start, status, end
        if status == "open":
            return
        start = text.find("{", end if status == "closed" else start + 1)


def _balanced(text: str, start: int) -> tuple[_Status, int]:
    """Where the JSON value opening at `start` ends; `open` when the text ends first."""
    stack: list[str] = []
    for token in _TOKENS.finditer(text, start):
        kind = token.group()[0]
        if kind == '"':
            if token.group("close") is None:
                return "open", len(text)
        elif kind in "{[":
            stack.append("}" if kind == "{" else "]")
        elif not stack or stack.pop() != kind:
            return "broken", token.end()
        if not stack:
            return "closed", token.end()
    return "open", len(text)


# --- from JSON to a response ----------------------------------------------------------------


def _to_response(found: _Found, ctx: _Context) -> ResponsePacket | str:
    """The validated response, or why the JSON cannot be one."""
    data = _as_object(found.value, ctx)
    if isinstance(data, str):
        return data
    data = _capped(data, ctx)  # before any validation: each item costs a check
    checked = _validate(data)
    if isinstance(checked, ResponsePacket) and _acceptable(checked, ctx):
        return checked
    repaired = _repair_packet(data, ctx)
    if isinstance(repaired, str):
        return repaired
    checked = _validate(repaired)
    if isinstance(checked, ResponsePacket):
        return checked
    problems = "; ".join(str(issue) for issue in checked[:5])
    return f"the JSON is still not a valid response after repairs ({problems})"


def _as_object(value: Any, ctx: _Context) -> dict[str, Any] | str:
    if isinstance(value, list) and value and isinstance(value[0], dict):
        extra = f"; ignored {len(value) - 1} more item(s)" if len(value) > 1 else ""
        ctx.repair("unwrapped_json_array", f"the response came inside a JSON array{extra}")
        value = value[0]
    if not isinstance(value, dict):
        return f"the JSON is {json_type(value)}, not a response object"
    return value


def _validate(data: dict[str, Any]) -> ResponsePacket | list[Issue]:
    try:
        return ResponsePacket.model_validate(data)
    except ValidationError as error:
        return issues_from(error, data, limit=MAX_ISSUES)


def _acceptable(packet: ResponsePacket, ctx: _Context) -> bool:
    """Valid by schema and also by what this caller knows (its request id, its tools)."""
    if ctx.request_id is not None and packet.in_reply_to.request_id != ctx.request_id:
        return False
    return all(ctx.known(call.name) for call in packet.tool_calls)


def _repair_packet(data: dict[str, Any], ctx: _Context) -> dict[str, Any] | str:
    """A copy of `data` with every safe repair applied, or why it has no answer."""
    data = dict(data)
    _wrap_content(data, ctx)
    data = _capped(data, ctx)  # bare content became `assistant`: capped like it
    if "assistant" not in data:
        return "the JSON has no assistant answer (no render or markdown)"
    _move_citations(data, ctx)
    assistant = _repair_assistant(data["assistant"], ctx)
    if assistant is None:
        return "the assistant has no usable render or markdown"
    data["assistant"] = assistant
    if "tool_calls" in data:
        data["tool_calls"] = _repair_tool_calls(data["tool_calls"], ctx)
    _drop_unknown_keys(data, _PACKET_KEYS, "", ctx)
    _repair_envelope(data, ctx)
    return data


def excess_warning(total: int, kept: int, what: str) -> str:
    """The warning of a cap: how many there were, how many were read, how many dropped."""
    return f"the reply has {total} {what}; only the first {kept} were read ({total - kept} dropped)"


def _capped(data: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    """`data` with its citations, tool calls and top-level render blocks cut to their caps
    (containers on the way copied, `data` itself unchanged); a warning for each cut. Lists
    anywhere else are an unknown key (one issue, not read) or inside a capped item."""
    data = _cap_citations(data, ctx)
    calls = data.get("tool_calls")
    if isinstance(calls, list) and len(calls) > MAX_TOOL_CALLS:
        ctx.repair(
            "dropped_excess_tool_calls", excess_warning(len(calls), MAX_TOOL_CALLS, "tool calls")
        )
        data = {**data, "tool_calls": calls[:MAX_TOOL_CALLS]}
    assistant = data.get("assistant")
    if isinstance(assistant, dict) and (kept := _cap_render(assistant, ctx)) is not assistant:
        data = {**data, "assistant": kept}
    return data


def _cap_render(assistant: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    render = assistant.get("render")
    if not isinstance(render, dict):
        return assistant
    blocks = render.get("children")
    if not isinstance(blocks, list) or len(blocks) <= MAX_RENDER_BLOCKS:
        return assistant
    warning = excess_warning(len(blocks), MAX_RENDER_BLOCKS, "top-level render blocks")
    ctx.repair("dropped_excess_render_blocks", warning)
    return {**assistant, "render": {**render, "children": blocks[:MAX_RENDER_BLOCKS]}}


def _cap_citations(data: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    """At most MAX_CITATIONS citations, counted in the order `_move_citations` joins them:
    the assistant's own first, then the top-level ones."""
    assistant = data.get("assistant")
    inner = assistant.get("citations") if isinstance(assistant, dict) else None
    inner = inner if isinstance(inner, list) else []
    outer = data.get("citations")
    outer = outer if isinstance(outer, list) else []
    total = len(inner) + len(outer)
    if total <= MAX_CITATIONS:
        return data
    ctx.repair("dropped_excess_citations", excess_warning(total, MAX_CITATIONS, "citations"))
    data = dict(data)
    if inner:
        data["assistant"] = {**data["assistant"], "citations": inner[:MAX_CITATIONS]}
    if outer:
        data["citations"] = outer[: max(0, MAX_CITATIONS - len(inner))]
    return data


def _wrap_content(data: dict[str, Any], ctx: _Context) -> None:
    """Bare content (`{"markdown": ...}`) becomes `assistant`; a string assistant, markdown."""
    if "assistant" not in data and {"render", "markdown"} & data.keys():
        data["assistant"] = {key: data.pop(key) for key in _CONTENT_KEYS if key in data}
        ctx.repair("filled_envelope", "the reply was bare content: wrapped as assistant")
    if isinstance(data.get("assistant"), str):
        data["assistant"] = {"markdown": data["assistant"]}
        ctx.repair("wrapped_assistant_string")


def _move_citations(data: dict[str, Any], ctx: _Context) -> None:
    if "citations" not in data or not isinstance(data["assistant"], dict):
        return
    outer = data.pop("citations")
    assistant = dict(data["assistant"])
    inner = assistant.get("citations")
    if inner is None:
        assistant["citations"] = outer
    elif isinstance(inner, list) and isinstance(outer, list):
        assistant["citations"] = [*inner, *outer]
    else:
        ctx.drop("dropped_invalid_citations", "citations", "citations", "must be an array", outer)
        return
    data["assistant"] = assistant
    ctx.repair("moved_citations_into_assistant")


def _drop_unknown_keys(
    data: dict[str, Any], allowed: frozenset[str], path: str, ctx: _Context
) -> None:
    for key in [key for key in data if key not in allowed]:
        where = f"{path}.{key}" if path else key
        reason = "not part of the LLMCP v1 schema here"
        ctx.drop("dropped_unknown_keys", "key", where, reason, data.pop(key))


# --- assistant, render, citations -----------------------------------------------------------


def _repair_assistant(value: Any, ctx: _Context) -> dict[str, Any] | None:
    """The assistant object with bad parts removed; None when no answer is left."""
    if not isinstance(value, dict):
        return None
    assistant = dict(value)
    _drop_unknown_keys(assistant, _ASSISTANT_KEYS, "assistant", ctx)
    for key in ("title", "markdown"):
        if assistant.get(key) is not None and not isinstance(assistant[key], str):
            reason = f"must be a string (got {json_type(assistant[key])})"
            ctx.drop(
                "dropped_invalid_fields", "field", f"assistant.{key}", reason, assistant.pop(key)
            )
    _repair_render(assistant, ctx)
    if assistant.get("render") is None and assistant.get("markdown") is None:
        return None
    if "citations" in assistant:
        assistant["citations"] = _repair_citations(assistant["citations"], ctx)
    return assistant


def _issues(validate: Callable[[Any], object], data: Any) -> list[Issue]:
    try:
        validate(data)
    except ValidationError as error:
        return issues_from(error, data, limit=MAX_ISSUES)
    return []


def _reason(issues: list[Issue]) -> str:
    return "; ".join(str(issue) for issue in issues[:5])


def _repair_render(assistant: dict[str, Any], ctx: _Context) -> None:
    """An invalid render tree gives way to markdown, else keeps only its valid blocks."""
    render = assistant.get("render")
    issues = [] if render is None else _issues(Document.model_validate, render)
    if not issues:
        return
    if isinstance(assistant.get("markdown"), str):
        reason = _reason(issues)
        ctx.drop("render_missing_used_markdown", "render", "assistant.render", reason, render)
        del assistant["render"]
        return
    children = render.get("children") if isinstance(render, dict) else None
    blocks = children if isinstance(children, list) else []
    kept = [block for index, block in enumerate(blocks) if _keep_block(block, index, ctx)]
    if kept:
        assistant["render"] = {"type": "doc", "children": kept}
    else:
        reason = _reason(issues)
        ctx.drop("dropped_invalid_render_blocks", "render", "assistant.render", reason, render)
        del assistant["render"]


def _keep_block(block: Any, index: int, ctx: _Context) -> bool:
    issues = _issues(Document.model_validate, {"type": "doc", "children": [block]})
    if issues:
        path = f"assistant.render.children[{index}]"
        ctx.drop("dropped_invalid_render_blocks", "render_block", path, _reason(issues), block)
    return not issues


def _repair_citations(value: Any, ctx: _Context) -> list[Any]:
    if not isinstance(value, list):
        reason = f"must be an array (got {json_type(value)})"
        ctx.drop("dropped_invalid_citations", "citations", "assistant.citations", reason, value)
        return []
    kept = (
        _repair_citation(item, f"assistant.citations[{i}]", ctx) for i, item in enumerate(value)
    )
    return [item for item in kept if item is not None]


def _repair_citation(item: Any, path: str, ctx: _Context) -> dict[str, Any] | None:
    """A citation with bad optional fields removed; None when the citation itself is bad."""
    if not isinstance(item, dict):
        reason = f"must be an object (got {json_type(item)})"
        ctx.drop("dropped_invalid_citations", "citation", path, reason, item)
        return None
    citation = dict(item)
    _drop_unknown_keys(citation, _CITATION_KEYS, path, ctx)
    issues = _issues(Citation.model_validate, citation)
    bad = {_top_key(issue.path) for issue in issues}
    if bad and bad <= _OPTIONAL_CITATION_FIELDS:
        for key in sorted(bad):
            reason = _reason([issue for issue in issues if _top_key(issue.path) == key])
            ctx.drop("dropped_invalid_fields", "field", f"{path}.{key}", reason, citation.pop(key))
        issues = _issues(Citation.model_validate, citation)
    if issues:
        ctx.drop("dropped_invalid_citations", "citation", path, _reason(issues), item)
        return None
    return citation


def _top_key(path: str) -> str:
    """`locator.type` -> `locator`: the top-level key an issue is about (`$`: the object)."""
    return re.split(r"[.\[]", path, maxsplit=1)[0]


# --- tool calls and envelope ----------------------------------------------------------------


def _repair_tool_calls(value: Any, ctx: _Context) -> list[Any]:
    """Keep each tool call that is known and valid as written; tool calls are never edited."""
    if not isinstance(value, list):
        reason = f"must be an array (got {json_type(value)})"
        ctx.drop("dropped_invalid_tool_calls", "tool_calls", "tool_calls", reason, value)
        return []
    return [call for index, call in enumerate(value) if _keep_tool_call(call, index, ctx)]


def _keep_tool_call(call: Any, index: int, ctx: _Context) -> bool:
    path = f"tool_calls[{index}]"
    name = call.get("name") if isinstance(call, dict) else None
    if not isinstance(name, str):
        reason = "must be an object with a tool name"
        ctx.drop("dropped_invalid_tool_calls", "tool_call", path, reason, call)
        return False
    if not ctx.known(name):
        reason = f"unknown tool {name!r}"
        ctx.drop("dropped_unknown_tool_calls", "tool_call", path, reason, call)
        return False
    issues = _issues(TOOL_CALL_MODELS[name].model_validate, call)
    if issues:
        ctx.drop("dropped_invalid_tool_calls", "tool_call", path, _reason(issues), call)
    return not issues


def _envelope_defaults(ctx: _Context) -> dict[str, Any]:
    """What the host knows about this reply; the model is not trusted to know it."""
    return {
        "protocol": {"name": PROTOCOL_NAME, "version": PROTOCOL_VERSION},
        "id": str(uuid.uuid4()),
        "type": "response",
        "created_at": format_timestamp(datetime.now(UTC)),
        "conversation": {"id": UNKNOWN_ID, "turn": 1},
        "sender": {"role": "assistant"},
        "in_reply_to": {"request_id": ctx.request_id or UNKNOWN_ID},
    }


def _repair_envelope(data: dict[str, Any], ctx: _Context) -> None:
    defaults = _envelope_defaults(ctx)
    missing = [key for key in _ENVELOPE_KEYS if key not in data]
    if missing:
        data.update({key: defaults[key] for key in missing})
        ctx.repair("filled_envelope", f"filled missing envelope fields: {', '.join(missing)}")
    for _ in _ENVELOPE_KEYS:  # issues are read MAX_ISSUES at a time: each round replaces one
        checked = _validate(data)
        replaced = False
        for issue in [] if isinstance(checked, ResponsePacket) else checked:
            key = _top_key(issue.path)
            if key in _ENVELOPE_KEYS and data[key] != defaults[key]:  # once per key
                what = "envelope_field"
                ctx.drop("replaced_invalid_envelope_fields", what, key, issue.message, data[key])
                data[key], replaced = defaults[key], True
        if not replaced:
            break
    wanted = defaults["in_reply_to"]
    if ctx.request_id is not None and data["in_reply_to"] != wanted:
        ctx.repair("corrected_in_reply_to", f"in_reply_to was {data['in_reply_to']!r}")
        data["in_reply_to"] = wanted


# --- results --------------------------------------------------------------------------------

_CODE = re.compile(r"(`{3,}|~{3,}).*?(?:\1|\Z)|`[^`\n]*`", re.S)
_HTML_TAG = re.compile(r"<(/?[A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?/?>|<!--")
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\r?\n)+")
_MARKDOWN_STRING = re.compile(r'"markdown"\s*:\s*"')
_STRING_BODY = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+', re.S)


def _result(packet: ResponsePacket, raw: str, ctx: _Context) -> ParsedResponse:
    assistant = packet.assistant
    if assistant.render is not None:
        markdown = document_to_markdown(assistant.render)  # text nodes escaped: no raw HTML
    else:
        markdown = assistant.markdown or ""
        _note_html(markdown, ctx)
    if not markdown.strip():
        ctx.warnings.append("the answer is empty")
    shown = _finish(markdown, ctx)  # first: a cut here is a repair too
    return ParsedResponse(
        outcome="repaired" if ctx.repairs else "parsed",
        markdown=shown,
        raw=raw,
        response=packet,
        citations=list(assistant.citations),
        tool_calls=list(packet.tool_calls),
        repairs=ctx.repairs,
        dropped=ctx.dropped,
        warnings=ctx.warnings,
    )


def _fallback(raw: str, cleaned: str, ctx: _Context, why: str) -> ParsedResponse:
    """Spec: when JSON fails, the whole output is the Markdown answer; no tools, no citations."""
    text = cleaned
    salvaged = _salvage_markdown(cleaned)
    if salvaged is not None:
        text = salvaged
        ctx.repair("salvaged_partial_markdown", "the JSON was cut off: showing its partial answer")
    text = _LEADING_BLANK_LINES.sub("", text).rstrip()
    if not text:
        return _error(raw, ctx, why)
    ctx.warnings.append(f"{why}: shown as Markdown; citations and tool calls dropped")
    _note_html(text, ctx)
    return ParsedResponse(
        "markdown_fallback",
        _finish(text, ctx),
        raw,
        repairs=ctx.repairs,
        dropped=ctx.dropped,
        warnings=ctx.warnings,
    )


def _error(raw: str, ctx: _Context, why: str) -> ParsedResponse:
    ctx.warnings.append(f"{why}: nothing to show")
    return ParsedResponse("error", "", raw, repairs=ctx.repairs, warnings=ctx.warnings)


def _salvage_markdown(text: str) -> str | None:
    """The `markdown` string of a JSON object the reply cut off, as far as it got."""
    for start, status, _ in _top_level_objects(text):
        if status != "open":
            continue
        key = _MARKDOWN_STRING.search(text, start)
        if key is None:
            return None
        body = _STRING_BODY.match(text, key.end())
        return _decode_partial(body.group() if body else "")
    return None


def _decode_partial(body: str) -> str | None:
    for cut in range(7):  # drop a cut-off escape such as `\u00`
        try:
            decoded = json.loads(f'"{body[: len(body) - cut]}"', strict=False)
        except ValueError:
            continue
        return decoded if isinstance(decoded, str) and decoded.strip() else None
    return None


def _note_html(markdown: str, ctx: _Context) -> None:
    """Raw HTML stays as text (the renderer escapes it), but the caller should know."""
    tags = sorted(
        {match.group(1) or "!--" for match in _HTML_TAG.finditer(_CODE.sub("", markdown))}
    )
    if tags:
        shown = ", ".join(f"<{tag}>" for tag in tags[:5])
        ctx.warnings.append(f"the Markdown contains raw HTML ({shown}); it is kept as text")


def _finish(markdown: str, ctx: _Context) -> str:
    """The answer with newlines unified; when anything was cut, the note ends it, and the
    whole still fits in `max_chars` (the note alone when the cap cannot hold more)."""
    markdown = markdown.replace("\r\n", "\n").replace("\r", "\n")
    valid = well_formed(markdown)  # a salvaged partial string may still hold one
    if valid is not markdown:
        markdown = valid
        ctx.repair("replaced_lone_surrogates")
    if ctx.truncated_at is None and len(markdown) <= ctx.max_chars:
        return markdown
    if ctx.truncated_at is None:  # the answer grew past the cap (a render tree's Markdown)
        warning = f"the answer had {len(markdown)} characters; cut at {ctx.max_chars}"
        ctx.repair("truncated_output", warning)
    note = TRUNCATION_MARKER.format(limit=ctx.max_chars)
    return markdown[: max(0, ctx.max_chars - len(note))] + note
