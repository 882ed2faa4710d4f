"""The error taxonomy: every provider failure becomes one `LlmError` kind.

Messages never carry secrets: `scrub` removes the configured key (and, through
`laika_host.redact`, anything shaped like a key or token) before an error is raised, logged
or stored, and only then cuts the message to its bound.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from ..errors import ProviderFailedError, RefusedError
from ..redact import REDACTED, redact_prefix

ErrorKind = Literal[
    "auth",
    "rate_limit",
    "timeout",
    "network",
    "bad_request",
    "context_too_long",
    "provider",
    "invalid_output",
]
RETRYABLE: frozenset[ErrorKind] = frozenset({"rate_limit", "timeout", "network", "provider"})
_CONTEXT_WORDS = re.compile(
    r"context[ _]length|context window|too many tokens|prompt is too long|maximum context|"
    r"num_ctx|exceeds the (?:model's )?(?:maximum|context)|context size",
    re.IGNORECASE,
)
MAX_MESSAGE = 500


class LlmError(ProviderFailedError):
    """A model call failed. `kind` is stable; `spec_type` is spec 001's error type."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        provider: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.provider = provider

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    @property
    def spec_type(self) -> str:
        """invalid_request_error (400/401), rate_limit_error (429), api_error (5xx...)."""
        if self.kind in ("bad_request", "auth", "context_too_long"):
            return "invalid_request_error"
        if self.kind == "rate_limit":
            return "rate_limit_error"
        return "api_error"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "type": self.spec_type,
            "message": self.message,
            "status": self.status,
            "retry_after": self.retry_after,
            "provider": self.provider,
        }

    def error_details(self) -> dict[str, Any] | None:
        """What `provider_error` promises: `details` says how the provider failed."""
        return {key: value for key, value in self.to_json().items() if key != "message"}


class ProviderConfigError(RefusedError, LlmError):
    """A provider setting that cannot be used as given (no base URL, a refused key
    variable, an unknown id, a broken providers file): the user's to fix, not the provider's
    failure. Kind `bad_request`, as before the one hierarchy."""

    def __init__(self, message: str, *, provider: str | None = None) -> None:
        super().__init__("bad_request", message, provider=provider)

    def error_details(self) -> dict[str, Any] | None:
        return None


_TYPE_KINDS: dict[str, ErrorKind] = {
    "invalid_request_error": "bad_request",
    "authentication_error": "auth",
    "permission_error": "auth",
    "rate_limit_error": "rate_limit",
    "overloaded_error": "provider",
    "api_error": "provider",
    "timeout_error": "timeout",
}


def from_stream_error(error: object, *, provider: str | None = None) -> LlmError:
    """An error object a provider sent inside its stream (`{"type", "message"}` or text)."""
    if isinstance(error, dict):
        kind = _TYPE_KINDS.get(str(error.get("type")), "provider")
        message = scrub(str(error.get("message") or json.dumps(error)))
    else:
        kind, message = "provider", scrub(str(error))
    if _CONTEXT_WORDS.search(message):
        kind = "context_too_long"
    return LlmError(kind, f"error in the stream: {message}", provider=provider)


def scrub(text: str, secrets: tuple[str, ...] = (), *, limit: int = MAX_MESSAGE) -> str:
    """`text` without the caller's own keys (`secrets`: replaced wherever they occur, even in
    a shape no rule knows) nor anything `laika_host.redact` finds, then cut to `limit`."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return redact_prefix(text, limit)


def provider_message(body: bytes | str) -> str:
    """The human part of an error body: `error.message`, `error` or the raw text; whole
    (`scrub` cuts it, after redacting)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        parsed = json.loads(text)
    except ValueError:
        return text.strip()
    error = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    if isinstance(error, dict):
        message = error.get("message") or error.get("error") or json.dumps(error)
        return str(message)
    return str(error)


def from_status(
    status: int,
    body: bytes | str,
    *,
    provider: str,
    retry_after: float | None = None,
    secrets: tuple[str, ...] = (),
) -> LlmError:
    """Map an HTTP status and body to a kind, as every provider's docs describe them."""
    detail = scrub(provider_message(body), secrets)
    kind: ErrorKind
    if status in (401, 403):
        kind = "auth"
    elif status == 429:
        kind = "rate_limit"
    elif status == 408:
        kind = "timeout"
    elif status == 413 or (400 <= status < 500 and _CONTEXT_WORDS.search(detail)):
        kind = "context_too_long"
    elif 400 <= status < 500:
        kind = "bad_request"
    else:
        kind = "provider"  # 5xx, Anthropic's 529 overloaded
    hint = _HINTS.get(kind, "")
    return LlmError(
        kind,
        f"{provider} answered HTTP {status}: {detail or 'no details'}{hint}",
        status=status,
        retry_after=retry_after,
        provider=provider,
    )


_HINTS: dict[str, str] = {
    "auth": " (check the API key in the environment variable this provider names)",
    "context_too_long": " (the prompt is too long for the model: ask with fewer sources)",
    "rate_limit": " (rate limited: wait and retry)",
}
