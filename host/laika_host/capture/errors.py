"""The one error capture raises: it names the problem and what to do."""

from __future__ import annotations

from typing import Any

from ..errors import UnreadableError


class CaptureError(UnreadableError, ValueError):
    """Input that cannot be captured (empty, binary, not HTML). `kind` is a stable code.
    Still a ValueError, as callers written before the one hierarchy catch it so."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind

    def error_details(self) -> dict[str, Any]:
        return {"capture_error": self.kind}
