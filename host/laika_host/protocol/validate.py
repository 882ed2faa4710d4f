"""Validate LLMCP data: whole packets, or any object the spec defines on its own.

`check_packet` is the boundary check the host applies to everything a model returns: only a
complete request or response passes. `check_object` is the engine of `laika validate`: it also
recognises an envelope alone, a context document, a document's content, a citation, a tool call
and a render Document, so each spec example can be checked by itself. Neither raises on bad
input; both return every problem found.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError

from ..issues import Issue, issues_from
from ..strict_json import loads_strict
from ._base import LlmcpModel
from .citations import Citation
from .documents import CONTENT_MODELS, ContextDocument
from .envelope import Envelope
from .render_tree import Document
from .request import RequestPacket
from .response import ContentPath, ResponsePacket
from .tools import ToolCall

Packet = RequestPacket | ResponsePacket
PACKET_TYPES = ("request", "response")
BODY_KEYS = frozenset({"input", "context", "output", "in_reply_to", "assistant", "tool_calls"})
"""Keys a request or response adds to the envelope; an object with none of them is an envelope."""


class EnvelopeHeader(Envelope):
    """The envelope alone, other keys ignored: used to report envelope errors of any packet."""

    model_config = ConfigDict(extra="ignore")


@dataclass(frozen=True)
class Check:
    """The outcome of validating one object: the model when valid, the issues otherwise.

    `kind` is what the object was checked as (`request`, `response`, `envelope`, a document
    kind, `citation`, ...); `label` identifies it in messages (packet id, tool name, url).
    """

    value: LlmcpModel | None
    issues: list[Issue] = field(default_factory=list)
    kind: str | None = None
    label: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None

    @property
    def packet(self) -> Packet | None:
        return self.value if isinstance(self.value, RequestPacket | ResponsePacket) else None

    @property
    def content_path(self) -> ContentPath | None:
        """For a valid response: `render`, or `markdown_fallback` when only markdown came."""
        if isinstance(self.value, ResponsePacket):
            return self.value.assistant.content_path
        return None


Validator = Callable[[Any], LlmcpModel]


def _label(*keys: str) -> Callable[[dict[str, Any]], str | None]:
    def first_present(data: dict[str, Any]) -> str | None:
        return next((data[key] for key in keys if isinstance(data.get(key), str)), None)

    return first_present


OBJECT_KINDS: dict[str, tuple[Validator, Callable[[dict[str, Any]], str | None]]] = {
    "request": (RequestPacket.model_validate, _label("id")),
    "response": (ResponsePacket.model_validate, _label("id")),
    "envelope": (Envelope.model_validate, _label("id")),
    "context_document": (TypeAdapter(ContextDocument).validate_python, _label("doc_id")),
    **{
        kind: (model.model_validate, _label("source_id", "url", "collection_id"))
        for kind, model in CONTENT_MODELS.items()
    },
    "citation": (Citation.model_validate, _label("source_id", "doc_id")),
    "tool_call": (TypeAdapter(ToolCall).validate_python, _label("name")),
    "render_document": (Document.model_validate, _label("type")),
}
"""Every object kind `check_object` knows: how to validate it and how to name it."""


def check_packet(data: Any) -> Check:
    """Validate already-parsed JSON as a complete request or response packet."""
    if not isinstance(data, dict):
        return _not_an_object(data)
    packet_type = data.get("type")
    if packet_type in PACKET_TYPES:
        return check_as(data, packet_type)
    # No usable `type`: report the envelope's problems (including `type` itself).
    return _validate(data, "packet", EnvelopeHeader.model_validate, _label("id"))


def check_object(data: Any, kind: str = "auto") -> Check:
    """Validate any LLMCP object; `kind="auto"` tells the kind from the object's keys."""
    if not isinstance(data, dict):
        return _not_an_object(data)
    if kind == "auto":
        kind = detect_kind(data)
    if kind == "packet":
        return check_packet(data)
    return check_as(data, kind)


def check_as(data: dict[str, Any], kind: str) -> Check:
    """Validate `data` as one named kind of `OBJECT_KINDS`."""
    validator, label = OBJECT_KINDS[kind]
    return _validate(data, kind, validator, label)


def detect_kind(data: dict[str, Any]) -> str:
    """Which LLMCP object this looks like; `packet` when it is (or tries to be) a packet."""
    if "protocol" in data or data.get("type") in PACKET_TYPES:
        is_bare_envelope = data.get("type") in PACKET_TYPES and not BODY_KEYS & data.keys()
        return "envelope" if is_bare_envelope else "packet"
    doc_type = data.get("doc_type")
    if isinstance(doc_type, str) and doc_type in CONTENT_MODELS:
        return doc_type
    if "kind" in data and "content" in data:
        return "context_document"
    if "name" in data:
        return "tool_call"
    if "quote" in data:
        return "citation"
    if data.get("type") == "doc":
        return "render_document"
    return "packet"


def _validate(
    data: dict[str, Any],
    kind: str,
    validator: Validator,
    label: Callable[[dict[str, Any]], str | None],
) -> Check:
    try:
        value = validator(data)
    except ValidationError as error:
        return Check(None, issues_from(error, data), kind, label(data))
    if kind == "packet":  # pragma: no cover - an envelope without a packet type cannot validate
        raise AssertionError("an envelope without a packet type validated")
    return Check(value, [], kind, label(data))


def _not_an_object(data: Any) -> Check:
    kind = "array" if isinstance(data, list) else type(data).__name__
    return Check(None, [Issue("$", f"must be a JSON object (got {kind})", "type")])


def parse_json(text: str | bytes) -> Any:
    """Strict JSON: UTF-8, no NaN/Infinity, no duplicate keys, bounded nesting."""
    return loads_strict(text)


def check_packet_text(text: str | bytes) -> Check:
    """Parse and validate a packet; raises `NotJsonError` only when the input is not JSON."""
    return check_packet(parse_json(text))
