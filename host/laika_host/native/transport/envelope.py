"""The native message envelope: request `{id, type, payload}`; replies, events and chunks.

Checked by hand rather than with pydantic so the first reply does not wait for pydantic to
load (~150 ms). `schema_models.py` states the same envelope as pydantic models for `schema/`;
a test keeps the two in agreement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...strict_json import NotJsonError, loads_strict
from ..errors import ErrorCode, HostError, host_error

RequestId = str | int
MAX_ID_LENGTH = 256
MAX_SAFE_INTEGER = 2**53 - 1  # ids must survive a round trip through JavaScript numbers
TYPE_PATTERN = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+")
MAX_TYPE_LENGTH = 64
REQUEST_KEYS = ("id", "type", "payload")


@dataclass(frozen=True)
class Request:
    id: RequestId
    type: str
    payload: dict[str, Any]


class InvalidRequestError(HostError):
    """A frame that is not a valid request; `request_id` is echoed when it could be read."""

    def __init__(self, request_id: RequestId | None, error: HostError) -> None:
        super().__init__(
            error.code, error.message, details=error.details, retryable=error.retryable
        )
        self.request_id = request_id
        self.error = error


def decode_request(body: bytes) -> Request:
    """Parse one frame body into a Request, or raise InvalidRequestError saying exactly why."""
    try:
        data = loads_strict(body)
    except NotJsonError as exc:
        raise InvalidRequestError(None, host_error(exc)) from None
    if not isinstance(data, dict):
        kind = "array" if isinstance(data, list) else type(data).__name__
        raise InvalidRequestError(None, bad_request([("$", f"must be a JSON object (got {kind})")]))
    issues: list[tuple[str, str]] = []
    request_id = _check_id(data, issues)
    message_type = _check_type(data, issues)
    payload = data.get("payload", {})
    if not isinstance(payload, dict):
        issues.append(("payload", "must be an object"))
    issues.extend(
        (key[:64], f"unknown key {_short(key)}: a request has only id, type and payload")
        for key in data
        if key not in REQUEST_KEYS
    )
    if issues or request_id is None or message_type is None:
        raise InvalidRequestError(request_id, bad_request(issues))
    return Request(request_id, message_type, payload)


def _short(text: str, limit: int = 60) -> str:
    """`text` quoted for an error message, however long it is."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def _check_id(data: dict[str, Any], issues: list[tuple[str, str]]) -> RequestId | None:
    if "id" not in data:
        issues.append(("id", "required field is missing"))
        return None
    value = data["id"]
    if isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_SAFE_INTEGER:
        return value
    issues.append(
        ("id", f"must be a non-empty string (at most {MAX_ID_LENGTH} characters) or a safe integer")
    )
    return None


def _check_type(data: dict[str, Any], issues: list[tuple[str, str]]) -> str | None:
    if "type" not in data:
        issues.append(("type", "required field is missing"))
        return None
    value = data["type"]
    if isinstance(value, str) and len(value) <= MAX_TYPE_LENGTH and TYPE_PATTERN.fullmatch(value):
        return value
    issues.append(("type", "must be a dotted lowercase name such as 'host.ping'"))
    return None


def bad_request(issues: list[tuple[str, str]]) -> HostError:
    """A bad_request error listing every `(json.path, rule)` in `details.issues`."""
    first = f"{issues[0][0]}: {issues[0][1]}" if issues else "invalid request"
    more = f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""
    return HostError(
        ErrorCode.BAD_REQUEST,
        first + more,
        details={"issues": [{"path": path, "message": message} for path, message in issues]},
    )


def ok_reply(request_id: RequestId | None, result: Any) -> dict[str, Any]:
    return {"id": request_id, "ok": True, "result": result}


def error_reply(request_id: RequestId | None, error: HostError) -> dict[str, Any]:
    return {"id": request_id, "ok": False, "error": error.to_json()}


def event_message(request_id: RequestId, event: str, seq: int, data: Any) -> dict[str, Any]:
    return {"id": request_id, "event": event, "seq": seq, "data": data}
