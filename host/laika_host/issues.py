"""Turn pydantic validation errors into `<json.path>: <rule>` issues a person can act on.

Shared by the LLMCP models and the native-messaging router. It imports nothing heavy from the
rest of the package, so the host can report a bad request without loading the LLMCP models.

Paths are written the way JavaScript would reach the value (`context.documents[0].trust`,
`$` for the packet itself). Pydantic's locations also contain the tag of a discriminated union
(`documents, 0, "web.observation.summary.v1", content`); those segments are not in the JSON, so
the path is rebuilt by walking the input alongside the location.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

RULE_ERROR = "llmcp_rule"
"""Error type of every rule this package enforces itself (as opposed to pydantic's built-ins)."""


def rule_error(message: str, *, at: tuple[str | int, ...] = ()) -> PydanticCustomError:
    """An error that states the violated rule; `at` extends the error's path below the model."""
    return PydanticCustomError(RULE_ERROR, "{message}", {"message": message, "at": at})


def json_type(value: object) -> str:
    """The JSON name of a Python value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


_DISCRIMINATOR_KEYS = ("kind", "doc_type", "type", "name")
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


@dataclass(frozen=True)
class Issue:
    """One problem with a packet: where it is and which rule it breaks."""

    path: str
    message: str
    code: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def format_path(segments: Sequence[str | int]) -> str:
    """`("a", 0, "b")` -> `a[0].b`; keys that are not identifiers are quoted: `a["x-y"]`."""
    out = ""
    for segment in segments:
        if isinstance(segment, int):
            out += f"[{segment}]"
        elif _IDENTIFIER.match(segment):
            out += f".{segment}" if out else segment
        else:
            out += f'["{segment}"]'
    return out or "$"


def json_path(data: Any, loc: Iterable[str | int]) -> tuple[str | int, ...]:
    """The location as it exists in `data`, without discriminated-union tag segments."""
    path: list[str | int] = []
    node: Any = data
    tag_skipped = False  # at most one tag segment per object level
    for segment in loc:
        # The tag test comes first: in {"type": "text", "text": ...} the tag is also a key.
        if isinstance(node, dict) and not tag_skipped and _is_tag(node, segment):
            tag_skipped = True
            continue
        if _has_child(node, segment):
            node, tag_skipped = node[segment], False
        else:
            node = None
        path.append(segment)
    return tuple(path)


def _has_child(node: Any, segment: str | int) -> bool:
    if isinstance(node, dict):
        return segment in node
    return isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node)


def _is_tag(node: dict[str, Any], segment: str | int) -> bool:
    return any(node.get(key) == segment for key in _DISCRIMINATOR_KEYS)


def issues_from(error: ValidationError, data: Any, *, limit: int | None = None) -> list[Issue]:
    """Every error of `error` as an `Issue`, in input order, without duplicates; with
    `limit`, the first `limit` errors only (each costs a walk of `data`: 11,000 of them, from
    one render block a model filled with invalid nodes, took 0.2 CPU-s a call)."""
    seen: set[tuple[str, str]] = set()
    issues: list[Issue] = []
    for detail in error.errors(include_url=False)[:limit]:
        extra = _path_below(detail)
        path = format_path(json_path(data, (*detail["loc"], *extra)))
        message = describe(detail)
        if (path, message) not in seen:
            seen.add((path, message))
            issues.append(Issue(path, message, detail["type"]))
    return issues


def _path_below(detail: ErrorDetails) -> tuple[str | int, ...]:
    """Where inside the failing object the error really is (rule target, union tag key)."""
    ctx = detail.get("ctx") or {}
    if detail["type"] == RULE_ERROR:
        return tuple(ctx.get("at", ()))
    if detail["type"] in ("union_tag_invalid", "union_tag_not_found") and isinstance(
        detail.get("input"), dict
    ):
        return (str(ctx.get("discriminator", "")).strip("'"),)
    return ()


def describe(detail: ErrorDetails) -> str:
    """A message that states the rule and, where useful, what was found instead."""
    kind = detail["type"]
    ctx: dict[str, Any] = dict(detail.get("ctx") or {})
    value = detail.get("input")
    field = next((seg for seg in reversed(detail["loc"]) if isinstance(seg, str)), "")
    describe_kind = _DESCRIBERS.get(kind)
    if describe_kind is not None:
        return describe_kind(field, value, ctx)
    return detail["msg"]


def _got(value: Any) -> str:
    if isinstance(value, str | int | float | bool) or value is None:
        return f"got {_show(value)}"
    return f"got {json_type(value)}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return repr(shown)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _literal(field: str, value: Any, ctx: dict[str, Any]) -> str:
    expected = ctx.get("expected", "")
    if field == "trust":
        return f"must be 'untrusted': every web-derived document is untrusted ({_got(value)})"
    if field == "doc_type":
        return f"must equal the document's kind, {expected} ({_got(value)})"
    if field == "name" and "laika.llmcp" in expected:
        return f"must be 'laika.llmcp' ({_got(value)})"
    if field == "version":
        return f"must be 1: this host speaks LLMCP v1 ({_got(value)})"
    return f"must be {expected} ({_got(value)})"


def _union_tag(field: str, value: Any, ctx: dict[str, Any]) -> str:
    discriminator = str(ctx.get("discriminator", "")).strip("'")
    noun = {"name": "tool", "kind": "document kind", "type": "type"}.get(discriminator, "tag")
    return f"unknown {noun} {_show(ctx.get('tag'))}; expected one of {ctx.get('expected_tags')}"


def _union_tag_missing(field: str, value: Any, ctx: dict[str, Any]) -> str:
    discriminator = str(ctx.get("discriminator", "")).strip("'")
    if not isinstance(value, dict):
        return f"must be an object ({_got(value)})"
    return f"required field is missing: {discriminator!r} says which kind of object this is"


Describer = Callable[[str, Any, dict[str, Any]], str]
"""(field name, offending input, error context) -> message."""

_DESCRIBERS: dict[str, Describer] = {
    RULE_ERROR: lambda field, value, ctx: ctx["message"],
    "missing": lambda field, value, ctx: "required field is missing",
    "extra_forbidden": lambda field, value, ctx: (
        f"unknown key {field!r}: not part of the LLMCP v1 schema here"
    ),
    "literal_error": _literal,
    "union_tag_invalid": _union_tag,
    "union_tag_not_found": _union_tag_missing,
    "string_type": lambda field, value, ctx: f"must be a string ({_got(value)})",
    "int_type": lambda field, value, ctx: f"must be an integer ({_got(value)})",
    "float_type": lambda field, value, ctx: f"must be a number ({_got(value)})",
    "bool_type": lambda field, value, ctx: f"must be true or false ({_got(value)})",
    "list_type": lambda field, value, ctx: f"must be an array ({_got(value)})",
    "dict_type": lambda field, value, ctx: f"must be an object ({_got(value)})",
    "model_type": lambda field, value, ctx: f"must be an object ({_got(value)})",
    "model_attributes_type": lambda field, value, ctx: f"must be an object ({_got(value)})",
    "string_too_short": lambda field, value, ctx: "must not be empty",
    "string_too_long": lambda field, value, ctx: (
        f"must be at most {ctx.get('max_length')} characters"
    ),
    "too_short": lambda field, value, ctx: (
        f"must have at least {ctx.get('min_length')} item(s) ({_got(value)})"
    ),
    "too_long": lambda field, value, ctx: f"must have at most {ctx.get('max_length')} items",
    "string_pattern_mismatch": lambda field, value, ctx: (
        f"must match {ctx.get('pattern')} ({_got(value)})"
    ),
    "greater_than_equal": lambda field, value, ctx: f"must be >= {ctx.get('ge')} ({_got(value)})",
    "less_than_equal": lambda field, value, ctx: f"must be <= {ctx.get('le')} ({_got(value)})",
    "greater_than": lambda field, value, ctx: f"must be > {ctx.get('gt')} ({_got(value)})",
    "less_than": lambda field, value, ctx: f"must be < {ctx.get('lt')} ({_got(value)})",
    "finite_number": lambda field, value, ctx: "must be a finite number",
    "int_from_float": lambda field, value, ctx: f"must be an integer ({_got(value)})",
}
