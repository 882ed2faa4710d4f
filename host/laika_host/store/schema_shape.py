"""The shape of a Laika file's schema (its tables, columns, indexes, triggers, views) and
what a file lacks compared with the shape its schema version must have.

The expected shape is not written down a second time: it is read from an in-memory database
built by the same migrations with the same SQLite, once per process and version, so it
cannot drift from the schema. Extra objects are allowed (a user's own index does no harm);
a missing one means the file was damaged or changed by another tool, and a statement that
needs it would fail or, worse, silently skip work (a dropped FTS trigger stops indexing).
"""

from __future__ import annotations

from pathlib import Path

from . import migrations
from ._db import Database

Shape = frozenset[tuple[str, str]]
_MAX_SHOWN = 6
_ORDER = {"table": 0, "column": 1, "view": 2, "index": 3, "trigger": 4}
_expected: dict[tuple[object, ...], Shape] = {}


async def read_shape(database: Database) -> Shape:
    """Every schema object as (kind, name), and every column of an ordinary table as
    ("column", "table.column"). A virtual table's columns are left out: reading them makes
    its module open the table, which fails on the very shadow table we want to name."""
    objects = await database.fetch_all("SELECT type, name FROM sqlite_master")
    columns = await database.fetch_all(
        "SELECT m.name, c.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c "
        "WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL TABLE%'"
    )
    return frozenset(
        [(str(kind), str(name)) for kind, name in objects]
        + [("column", f"{table}.{column}") for table, column in columns]
    )


async def expected_shape(version: int) -> Shape:
    """The shape a file at `version` has when nothing happened to it (cached per process)."""
    steps = tuple(migrations.MIGRATIONS[:version])
    if steps not in _expected:
        database = await Database.open(Path(":memory:"))
        try:
            await migrations.migrate(database, upto=version)
            _expected[steps] = await read_shape(database)
        finally:
            await database.close()
    return _expected[steps]


def missing_parts(expected: Shape, found: Shape) -> list[str]:
    """What `found` lacks, in words; a missing table's columns and automatic indexes are
    not listed again."""
    gone = expected - found
    gone_tables = {name for kind, name in gone if kind == "table"}
    return [
        f"{kind} {name} is missing"
        for kind, name in sorted(gone, key=lambda part: (_ORDER.get(part[0], 9), part[1]))
        if _table_of(kind, name) not in gone_tables
    ]


def _table_of(kind: str, name: str) -> str | None:
    """The table a column or a constraint's automatic index belongs to (said with it)."""
    if kind == "column":
        return name.split(".", 1)[0]
    if kind == "index" and name.startswith("sqlite_autoindex_"):
        return name.removeprefix("sqlite_autoindex_").rsplit("_", 1)[0]
    return None


def describe(parts: list[str]) -> str:
    """`parts` as one short phrase for an error message."""
    shown = ", ".join(parts[:_MAX_SHOWN])
    more = len(parts) - _MAX_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown
