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


class AddressRefusedError(CaptureError):
    """A fetch refused before it connected: the URL, a redirect or what its name resolves to
    is a loopback, private, link-local, ... address (`laika_host.addresses`), or a redirect
    leads out of http(s). Kind `private_address` (or `bad_redirect`); the details name the
    address and its kind, so a client can offer the way the message gives."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "private_address",
        address: str | None = None,
        address_kind: str | None = None,
    ) -> None:
        super().__init__(kind, message)
        self.address = address
        self.address_kind = address_kind

    def error_details(self) -> dict[str, Any]:
        details = super().error_details()
        if self.address is not None:
            details["address"] = self.address
        if self.address_kind is not None:
            details["address_kind"] = self.address_kind
        return details
