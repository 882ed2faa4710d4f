"""Is the file at Laika's path Laika's, new, or not ours? Decided by reading only, before
anything writes to it.

Another program's SQLite file there (a copied browser profile database, a tool's cache) must
not get Laika's tables or even a switch to WAL, and a Laika file that lost part of its schema
must not be migrated or written half-way, nor one whose header and migration record tell
two different versions. All are refused with what to do, and the file keeps every byte. A
file is new only when it holds no schema object and no page of data at all.
"""

from __future__ import annotations

from pathlib import Path

from . import migrations
from ._db import Database
from .header import refuse_read_only_format
from .migrations import LAIKA_APPLICATION_ID, too_new_error
from .schema_shape import describe, expected_shape, missing_parts, read_shape
from .sqlite_errors import damaged_error, foreign_error

_NAMES_SHOWN = 5
_NAME_CHARS = 60  # a name is the other program's text: shown short, escaped by repr


async def check_file(database: Database) -> None:
    """Return if the file is new or a whole Laika file this Laika can migrate; raise
    `StoreCorruptError` (foreign or damaged) or `SchemaTooNewError` otherwise."""
    async with database.snapshot():  # one state of the file, whatever others commit
        owner = await _pragma(database, "application_id")
        version = await _pragma(database, "user_version")
        objects = await database.fetch_all("SELECT type, name FROM sqlite_master ORDER BY name")
        if not objects and version == 0 and owner in (0, LAIKA_APPLICATION_ID):
            await _refuse_hidden_data(database)
            refuse_read_only_format(database.path, database.header.data)
            return  # new: nothing in it to keep
        names = [str(row[1]) for row in objects if row[0] in ("table", "view")]
        record = await _migration_record(database)
        if not _is_laikas(owner, version, record):
            raise foreign_error(database.path, _foreign_problem(owner, version, names))
        refuse_read_only_format(database.path, database.header.data)
        _refuse_disagreeing(database.path, owner, version, record)
        missing = missing_parts(await expected_shape(version), await read_shape(database))
        if missing:
            raise damaged_error(database.path, describe(missing))


async def _refuse_hidden_data(database: Database) -> None:
    """A file that lists no tables is new only if no page of it holds data: damage to the
    page that lists the tables must not make Laika create its schema over the rows."""
    pages = await _pragma(database, "page_count")
    free = await _pragma(database, "freelist_count")
    if (problem := migrations.new_file_problem(0, pages, free)) is not None:
        raise damaged_error(database.path, problem)


async def _migration_record(database: Database) -> list[str] | None:
    """The names in `_migrations (name, applied_at)`, or None without such a table."""
    rows = await database.fetch_all("SELECT name FROM pragma_table_info('_migrations')")
    if not {"name", "applied_at"} <= {str(row[0]) for row in rows}:
        return None
    limit = migrations.RECORD_LIMIT
    return [
        str(row[0])
        for row in await database.fetch_all(f"SELECT name FROM _migrations LIMIT {limit}")
    ]


def _is_laikas(owner: int, version: int, record: list[str] | None) -> bool:
    """Laika marks its files in the header (since schema 3); older ones by their migration
    record, written in the transaction that sets the schema version. A record that holds
    Laika's first migration is Laika's even when the header was damaged."""
    if owner == LAIKA_APPLICATION_ID:
        return True
    if record is None:
        return False
    return migrations.migration_names()[0] in record or (owner == 0 and version != 0)


def _refuse_disagreeing(path: Path, owner: int, version: int, record: list[str] | None) -> None:
    """Laika's file, but are its header and its record one state? A version that is not
    what the record lists (reset, negative, lowered, raised) or a header that lost Laika's
    mark is damage: migrating by it would re-create tables or skip steps."""
    if record is None:  # the record is gone: missing_parts names it
        if version > len(migrations.MIGRATIONS):
            raise too_new_error(path, version)  # a future schema may keep no such record
        if version < 1:
            raise damaged_error(path, f"its schema version was reset to {version}")
        return
    if migrations.is_newer_record(version, record):
        raise too_new_error(path, version)
    if (problem := migrations.record_problem(version, record)) is not None:
        raise damaged_error(path, problem)
    if owner != (expected := migrations.application_id_at(version)):
        raise damaged_error(
            path,
            f"its header's application_id is {owner & 0xFFFFFFFF:#x}, where Laika writes "
            f"{expected:#x} at schema version {version}",
        )


def _foreign_problem(owner: int, version: int, names: list[str]) -> str:
    if owner not in (0, LAIKA_APPLICATION_ID):
        return f"its header names another application (application_id {owner & 0xFFFFFFFF:#x})"
    if not names:
        return f"it has no tables, but its header says schema version {version}"
    shown = ", ".join(repr(name[:_NAME_CHARS]) for name in names[:_NAMES_SHOWN])
    more = len(names) - _NAMES_SHOWN
    listed = f"{shown} and {more} more" if more > 0 else shown
    return f"it holds another program's tables ({listed}) and no record of Laika's migrations"


async def _pragma(database: Database, name: str) -> int:
    row = await database.fetch_one(f"PRAGMA {name}")
    return int(row[0]) if row else 0
