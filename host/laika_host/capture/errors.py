"""The one error capture raises: it names the problem and what to do."""

from __future__ import annotations


class CaptureError(ValueError):
    """Input that cannot be captured (empty, binary, not HTML). `kind` is a stable code."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
