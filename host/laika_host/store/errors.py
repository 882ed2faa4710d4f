"""Store errors: each names the problem and what to do about it."""

from __future__ import annotations


class StoreError(Exception):
    """Base class; `code` is a stable machine-readable name."""

    code = "store_error"


class NotFoundError(StoreError):
    code = "not_found"


class ConflictError(StoreError):
    code = "conflict"


class InvalidInputError(StoreError):
    code = "invalid"


class StoreBusyError(StoreError):
    """Other processes held the write lock for longer than we are willing to wait."""

    code = "busy"


class SchemaTooNewError(StoreError):
    """The file was written by a newer Laika; we refuse to touch it."""

    code = "schema_too_new"


class StoreFullError(StoreError):
    """SQLite could not write: the disk (or the file's size limit) is full."""

    code = "storage_full"


class StoreCorruptError(StoreError):
    """The file is damaged, or is not a SQLite database at all."""

    code = "corrupt"


class StoreUnavailableError(StoreError):
    """The file cannot be opened, read or written (permissions, I/O error, read-only disk)."""

    code = "unavailable"
