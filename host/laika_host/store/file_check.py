"""Is the file at Laika's path Laika's, new, or not ours? Decided by reading only, before
anything writes to it.

Another program's SQLite file there (a copied browser profile database, a tool's cache) must
not get Laika's tables or even a switch to WAL, and a Laika file that lost part of its schema
must not be migrated or written half-way. Both are refused with what to do, and the file
keeps every byte. A file is new only when it holds no schema object at all.
"""

from __future__ import annotations

from . import migrations
from ._db import Database
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
        objects = await database.fetch_all(
            "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"
        )
        if not objects and version == 0 and owner in (0, LAIKA_APPLICATION_ID):
            return  # new: nothing in it to keep
        names = [str(row[1]) for row in objects]
        if not await _is_laikas(database, owner, version):
            raise foreign_error(database.path, _foreign_problem(owner, version, names))
        if version > len(migrations.MIGRATIONS):
            raise too_new_error(database.path, version)
        if version == 0:
            raise damaged_error(database.path, "its schema version was reset to 0")
        missing = missing_parts(await expected_shape(version), await read_shape(database))
        if missing:
            raise damaged_error(database.path, describe(missing))


async def _is_laikas(database: Database, owner: int, version: int) -> bool:
    """Laika marks its files in the header (since schema 3); older ones by their migration
    record (`_migrations (name, applied_at)`), written in the transaction that sets the
    schema version."""
    if owner == LAIKA_APPLICATION_ID:
        return True
    if owner != 0 or version == 0:
        return False
    rows = await database.fetch_all("SELECT name FROM pragma_table_info('_migrations')")
    return {"name", "applied_at"} <= {str(row[0]) for row in rows}


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
