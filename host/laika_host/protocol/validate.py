"""Validate one LLMCP packet, request or response, detected from its `type`.

This is the boundary check the host applies to everything a model returns and the engine of
`laika validate`: it never raises on bad input, it returns every problem it found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ConfigDict, ValidationError

from .envelope import Envelope
from .errors import Issue, issues_from
from .request import RequestPacket
from .response import ContentPath, ResponsePacket

Packet = RequestPacket | ResponsePacket


class EnvelopeHeader(Envelope):
    """The envelope alone, other keys ignored: used to report envelope errors of any packet."""

    model_config = ConfigDict(extra="ignore")


class NotJsonError(ValueError):
    """The input is not a JSON document at all (as opposed to JSON that breaks LLMCP rules)."""


@dataclass(frozen=True)
class PacketCheck:
    """The outcome of validating one packet: the model when valid, the issues otherwise."""

    packet: Packet | None
    issues: list[Issue] = field(default_factory=list)
    packet_type: str | None = None
    packet_id: str | None = None

    @property
    def ok(self) -> bool:
        return self.packet is not None

    @property
    def content_path(self) -> ContentPath | None:
        """For a valid response: `render`, or `markdown_fallback` when only markdown came."""
        if isinstance(self.packet, ResponsePacket):
            return self.packet.assistant.content_path
        return None


_PACKET_MODELS: dict[str, type[Packet]] = {"request": RequestPacket, "response": ResponsePacket}


def check_packet(data: Any) -> PacketCheck:
    """Validate already-parsed JSON as an LLMCP packet; never raises on bad input."""
    if not isinstance(data, dict):
        kind = "array" if isinstance(data, list) else type(data).__name__
        return PacketCheck(None, [Issue("$", f"must be a JSON object (got {kind})", "type")])
    packet_type = data.get("type") if isinstance(data.get("type"), str) else None
    packet_id = data.get("id") if isinstance(data.get("id"), str) else None
    model = _PACKET_MODELS.get(packet_type or "", EnvelopeHeader)
    try:
        packet = model.model_validate(data)
    except ValidationError as error:
        return PacketCheck(None, issues_from(error, data), packet_type, packet_id)
    if not isinstance(packet, RequestPacket | ResponsePacket):  # pragma: no cover - guarded above
        raise AssertionError("an envelope without a packet type validated")
    return PacketCheck(packet, [], packet_type, packet_id)


def parse_json(text: str | bytes) -> Any:
    """Strict JSON: UTF-8, no NaN/Infinity, no duplicate keys (parsers disagree on them)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise NotJsonError(f"input is not UTF-8 text: {exc}") from None
    try:
        return json.loads(
            text, parse_constant=_reject_constant, object_pairs_hook=_reject_duplicate_keys
        )
    except json.JSONDecodeError as exc:
        raise NotJsonError(f"input is not JSON: {exc}") from None


def check_packet_text(text: str | bytes) -> PacketCheck:
    """Parse and validate; raises `NotJsonError` only when the input is not JSON."""
    return check_packet(parse_json(text))


def _reject_constant(name: str) -> Any:
    raise NotJsonError(f"input is not strict JSON: {name} is not a JSON number")


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise NotJsonError(f"input has the key {key!r} twice in one object")
        result[key] = value
    return result
