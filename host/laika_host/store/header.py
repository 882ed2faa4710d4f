"""What the file's own first bytes say (SQLite has no pragma for them): a format that makes
SQLite open the file read-only, and a -wal beside a file that was last written without one.
The bytes are read by `held_files.claim`, the only place that may open the file itself.

A backup made by `laika db backup` is a standalone file in rollback-journal mode (header
bytes 18 and 19 are 1). Restored over `laika.db` while the old `laika.db-wal` is still there,
SQLite would replay that -wal, another state's pages, into it: the restored copy would mix
with the file it replaced and, at the first checkpoint, be overwritten for good. A file whose
header says rollback journal never has a -wal of its own, so such a -wal is refused.
"""

from __future__ import annotations

from pathlib import Path

from .errors import StoreCorruptError
from .held_files import Header
from .sqlite_errors import damaged_error

_WRITE_VERSION = 18  # offsets in the header
_READ_VERSION = 19
_ROLLBACK_JOURNAL = 1  # both versions in a file not in WAL mode
_WAL_HEADER_BYTES = 32  # a -wal no longer than its header holds no page


def refuse_read_only_format(path: Path, header: bytes) -> None:
    """Header byte 18, the write version, is 1 or 2 in every file SQLite writes; above 2
    SQLite opens the file read-only, so reads work and the first write fails as if the disk
    were read-only."""
    if len(header) > _WRITE_VERSION and header[_WRITE_VERSION] > 2:
        raise damaged_error(
            path,
            f"its header's file format write version is {header[_WRITE_VERSION]} (SQLite "
            "writes 1 or 2), so SQLite would only read it",
        )


def refuse_foreign_wal(path: Path, claimed: Header) -> None:
    """A non-empty -wal beside a file in rollback-journal mode belongs to another file.

    Judged only on a header read for this claim: while a connection of this process holds
    the file, the -wal beside it is the one that connection uses (a new file switched to WAL
    after its header was read), and the file was judged when it was first claimed."""
    if not claimed.fresh:
        return
    header = claimed.data
    wal = path.with_name(path.name + "-wal")
    try:
        wal_bytes = wal.stat().st_size
    except OSError:
        return
    if wal_bytes <= _WAL_HEADER_BYTES or len(header) <= _READ_VERSION:
        return
    if header[_WRITE_VERSION] == header[_READ_VERSION] == _ROLLBACK_JOURNAL:
        shm = path.with_name(path.name + "-shm")
        raise StoreCorruptError(
            f"{wal} does not belong to {path}: the database says it was last written "
            "without a -wal (a backup restored over it?), and SQLite would replay the other "
            f"file's changes into it. Nothing was changed. Stop the browser and any laika "
            f"command, move the -wal aside (mv '{wal}' '{wal}.old'; rm -f '{shm}'), and retry."
        )
