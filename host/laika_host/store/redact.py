"""Last-line secret scrubbing for anything we persist about model calls.

Callers redact on purpose (context bodies become digests); this pass makes sure that keys,
bearer tokens, cookies and credential-like values never reach the database even if a caller
forgets. It works on parsed JSON, key by key and string by string.
"""

from __future__ import annotations

import re
from typing import Any

from ..secrets import REDACTED, scrub_text

_SECRET_KEYS = re.compile(
    r"^(authorization|proxy-authorization|x-api-key|api[-_]?key|apikey|cookie|set-cookie|"
    r"password|passwd|secret|client[-_]secret|access[-_]token|refresh[-_]token|token|"
    r"session|sessionid|x-goog-api-key)$",
    re.IGNORECASE,
)


def redact_secrets(value: Any) -> Any:
    """A copy of `value` with secret-named keys and secret-looking strings replaced."""
    if isinstance(value, dict):
        return {
            key: REDACTED if _SECRET_KEYS.match(str(key)) else redact_secrets(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redact_secrets(item) for item in value]
    if isinstance(value, str):
        return scrub_text(value)
    return value
