"""The store's last line of redaction: every row is redacted as it is written.

Callers redact on purpose too (capture scrubs pages, audit digests context bodies); this pass
makes sure no write path can forget. Columns are told apart by name: URLs (`url`, `*_url`),
JSON (`*_json`), identifiers and fixed vocabularies (left alone) and text (everything else).
"""

from __future__ import annotations

import json
from typing import Any

from ..redact import pinned, redact_text, redact_url, redact_value, redaction_stamp

# Columns that hold ids, hashes, dates, enums or numbers: nothing a page or a model wrote.
_PLAIN = frozenset(
    {"id", "kind", "role", "status", "capture_status", "content_hash", "dedupe_key", "type"}
    | {"published", "signals", "created_at", "updated_at", "added_at", "captured_at"}
    | {"redacted_with"}
)


def redact_row(columns: dict[str, Any]) -> dict[str, Any]:
    """`columns` (name -> value about to be written) with every secret replaced."""
    return {name: redact_column(name, value) for name, value in columns.items()}


@pinned  # the stamp names the very extra names the redaction read
def redact_stamped_row(columns: dict[str, Any]) -> dict[str, Any]:
    """`redact_row`, plus `redacted_with`: the redaction the row had (`redaction_stamp`), so
    that its text is not redacted again on its way to a model while the stamp is current."""
    return {**redact_row(columns), "redacted_with": redaction_stamp()}


def redact_column(name: str, value: Any) -> Any:
    if not isinstance(value, str) or name in _PLAIN or name.endswith("_id"):
        return value
    if name == "url" or name.endswith("_url"):
        return redact_url(value)
    if name.endswith("_json"):
        parsed = json.loads(value)
        redacted = redact_value(parsed)
        return value if redacted == parsed else json.dumps(redacted)
    return redact_text(value)
