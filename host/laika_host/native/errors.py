"""The stable error codes of the native protocol (documented in docs/PROTOCOL.md)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from ..errors import LaikaError, native_code


class ErrorCode(StrEnum):
    BAD_FRAME = "bad_frame"
    BAD_JSON = "bad_json"
    BAD_REQUEST = "bad_request"
    UNKNOWN_TYPE = "unknown_type"
    TOO_LARGE = "too_large"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    PROVIDER_ERROR = "provider_error"
    POLICY_DENIED = "policy_denied"
    CANCELLED = "cancelled"
    BUSY = "busy"
    STORAGE_FULL = "storage_full"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"


ERROR_TABLE: dict[ErrorCode, tuple[bool, str]] = {
    ErrorCode.BAD_FRAME: (False, "The frame is broken: empty, or the stream ended inside it."),
    ErrorCode.BAD_JSON: (
        False,
        "The frame is not UTF-8 JSON (or uses NaN, a number past a 64-bit float, an integer "
        "over 4,300 digits, a lone surrogate, or repeats a key).",
    ),
    ErrorCode.BAD_REQUEST: (
        False,
        "The JSON is not a valid request: not an object, a missing or wrong id/type, or a "
        "payload that fails its schema. `details.issues` lists each JSON path and rule.",
    ),
    ErrorCode.UNKNOWN_TYPE: (False, "No handler is registered for this message type."),
    ErrorCode.TOO_LARGE: (
        False,
        "A request frame claims more than 64 MiB, or a result would exceed a bound.",
    ),
    ErrorCode.NOT_FOUND: (False, "The thing the request names does not exist."),
    ErrorCode.CONFLICT: (False, "The request clashes with current state (e.g. an id in use)."),
    ErrorCode.PROVIDER_ERROR: (True, "The model provider failed; `details` says how."),
    ErrorCode.POLICY_DENIED: (False, "The policy gate refused the action."),
    ErrorCode.CANCELLED: (False, "The request was cancelled (host.cancel, or the host stopped)."),
    ErrorCode.BUSY: (True, "The database stayed locked by other Laika processes; retry soon."),
    ErrorCode.STORAGE_FULL: (
        False,
        "The disk holding the database is full; nothing saved before is lost. Free some "
        "space, then retry.",
    ),
    ErrorCode.UNAVAILABLE: (
        False,
        "Something the request needs cannot be used (a database written by a newer Laika, "
        "damaged, locked by another program, or not readable or writable); the message "
        "names the file and what to do.",
    ),
    ErrorCode.INTERNAL: (False, "A bug in the host; the log file has the traceback."),
}
"""code -> (retryable by default, meaning)."""


class HostError(LaikaError):
    """An error that becomes `{ok: false, error: {...}}` for one request. It carries its
    code itself: the native protocol's own errors (frames, envelopes, routes) have no other
    meaning than the code."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.retryable = ERROR_TABLE[code][0] if retryable is None else retryable

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "code": self.code.value,
            "message": self.message,
            "retryable": self.retryable,
        }
        if self.details is not None:
            body["details"] = self.details
        return body

    def error_details(self) -> dict[str, Any] | None:
        return self.details


def host_error(error: LaikaError) -> HostError:
    """`error` as the reply's error: its code from the one table (`laika_host.errors`), its
    message, its details, and whether to retry when the error knows better than its code."""
    if isinstance(error, HostError):
        return error
    retryable = getattr(error, "retryable", None)
    return HostError(
        ErrorCode(native_code(error)),
        str(error),
        details=error.error_details(),
        retryable=retryable if isinstance(retryable, bool) else None,
    )
