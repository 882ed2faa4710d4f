"""Store errors: each names the problem and what to do about it.

Each class also derives from its category in `laika_host.errors`, which decides the native
error code and the exit status; `code` stays the store's own stable name.
"""

from __future__ import annotations

from ..errors import (
    BusyError,
    ClashError,
    InternalError,
    MissingError,
    NoSpaceError,
    RefusedError,
    UnavailableError,
)


class StoreError(InternalError):
    """Base class; `code` is a stable machine-readable name. Raised alone it is a bug (each
    subclass names its category first, which decides)."""

    code = "store_error"


class NotFoundError(MissingError, StoreError):
    code = "not_found"


class ConflictError(ClashError, StoreError):
    code = "conflict"


class InvalidInputError(RefusedError, StoreError):
    code = "invalid"


class StoreBusyError(BusyError, StoreError):
    """Other processes held the write lock for longer than we are willing to wait."""

    code = "busy"


class SchemaTooNewError(UnavailableError, StoreError):
    """The file was written by a newer Laika; we refuse to touch it."""

    code = "schema_too_new"


class StoreFullError(NoSpaceError, StoreError):
    """SQLite could not write: the disk (or the file's size limit) is full."""

    code = "storage_full"


class StoreCorruptError(UnavailableError, StoreError):
    """The file is damaged, or is not a SQLite database at all."""

    code = "corrupt"


class StoreUnavailableError(UnavailableError, StoreError):
    """The file cannot be opened, read or written (permissions, I/O error, read-only disk)."""

    code = "unavailable"
