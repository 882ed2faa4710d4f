"""Kept for imports that predate `laika_host.redact`, the one redaction module."""

from __future__ import annotations

from .redact import REDACTED, redact_text

scrub_text = redact_text

__all__ = ["REDACTED", "scrub_text"]
