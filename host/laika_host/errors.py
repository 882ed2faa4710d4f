"""The one error hierarchy: every error Laika raises on purpose derives from `LaikaError`.

Each area keeps its own classes (`StoreError`, `CaptureError`, `LlmError`, ...), and each
class also derives from one *category* below, which says what went wrong from the caller's
side: the thing named does not exist, the input cannot be read, the disk is full. The two
tables map a category, never a single class, to what the user sees: `NATIVE_CODES` to the
native protocol's error code (docs/PROTOCOL.md), `EXIT_CODES` to the `laika` command's exit
status. So a new error class needs no new mapping, and the CLI and the host cannot disagree.

When a class has two categories in its ancestry (a provider id that names none is a
`MissingError` and a refused setting), the first in its MRO decides: list it first.

Kept free of imports from the rest of the package: every area imports this module, and the
host's start-up must stay fast.
"""

from __future__ import annotations

from typing import Any, Self


class LaikaError(Exception):
    """An error whose message names the problem and what to do about it, in words every
    caller can act on: the side panel's user never typed a command, so a message names no
    command-line flag. The `laika` command's own way out (`pass --force to replace it`) goes
    in `cli_hint`, which only the CLI shows (tests/test_error_texts.py checks both)."""

    cli_hint: str | None = None

    def with_cli_hint(self, hint: str) -> Self:
        """This error with `hint` for the `laika` command (shown after the message)."""
        self.cli_hint = hint
        return self

    def error_details(self) -> dict[str, Any] | None:
        """Machine-readable facts a client may act on (sent as the native `details`)."""
        return None


class RefusedError(LaikaError):
    """A request or setting that Laika refuses as given (a bad argument, a bad setting)."""


class UnreadableError(RefusedError):
    """Content given to Laika that cannot be read: a page, a PDF, a file."""


class MalformedError(UnreadableError):
    """Input that is not a document of its format at all (not JSON): the native `bad_json`."""


class MissingError(LaikaError):
    """The thing named (a collection, a source, a provider) does not exist."""


class ClashError(LaikaError):
    """The request clashes with what exists (a title or an id in use)."""


class BusyError(LaikaError):
    """Other Laika processes held what is needed for longer than we wait; retry soon."""


class NoSpaceError(LaikaError):
    """The disk is full; nothing saved before is lost."""


class UnavailableError(LaikaError):
    """Something needed cannot be used (a damaged or foreign file, permissions, a missing
    program); the message names it and the fix."""


class ProviderFailedError(LaikaError):
    """A model provider failed (unreachable, refused the key, rate limited, ...)."""


class PolicyDeniedError(LaikaError):
    """The policy gate refused an action."""


class StoppedError(LaikaError):
    """The work was cancelled (by the user, or the host stopping); what it made is kept."""


class InternalError(LaikaError):
    """A bug or a broken installation, not the user's input."""


NATIVE_CODES: dict[type[LaikaError], str] = {
    MalformedError: "bad_json",
    UnreadableError: "bad_request",
    RefusedError: "bad_request",
    MissingError: "not_found",
    ClashError: "conflict",
    BusyError: "busy",
    NoSpaceError: "storage_full",
    UnavailableError: "unavailable",
    ProviderFailedError: "provider_error",
    PolicyDeniedError: "policy_denied",
    StoppedError: "cancelled",
    InternalError: "internal",
    LaikaError: "internal",  # a class that names no category: a bug to fix, reported as one
}
"""Category -> native error code (`laika_host.native.errors.ErrorCode` values)."""

EXIT_USAGE = 2
"""Input that cannot be read exits 2, like click's own usage errors; every other error 1."""

EXIT_CODES: dict[type[LaikaError], int] = {
    UnreadableError: EXIT_USAGE,
    LaikaError: 1,
}
"""Category -> exit status of the `laika` command."""


def category(error_type: type[LaikaError], table: dict[type[LaikaError], Any]) -> Any:
    """The entry of `table` for the first class of `error_type`'s MRO that it names."""
    for cls in error_type.__mro__:
        if cls in table:
            return table[cls]
    raise TypeError(f"{error_type.__name__} is not a LaikaError")


def native_code(error: LaikaError) -> str:
    """The native protocol error code for `error` (see docs/PROTOCOL.md, Error codes)."""
    code: str = category(type(error), NATIVE_CODES)
    return code


def exit_code(error: LaikaError) -> int:
    """The `laika` command's exit status for `error`."""
    status: int = category(type(error), EXIT_CODES)
    return status
