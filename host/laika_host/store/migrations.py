"""Numbered schema migrations, recorded in `_migrations` and mirrored in `PRAGMA user_version`.

Add a migration by appending a function to `MIGRATIONS`; never edit one that has shipped.
Opening an older file applies the missing ones (in one transaction each); a file whose
`user_version` is higher than `len(MIGRATIONS)` was written by a newer Laika and is refused.
Whether a file is Laika's at all is decided before any of this runs (`file_check`); each
migration's own transaction checks again that the file is where its header and its record say
it is, so no schema is ever created or changed inside a file that does not agree.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import aiosqlite

from ._db import Database
from .errors import SchemaTooNewError
from .ids import now_ms
from .schema_artifact_runs import SCHEMA_ARTIFACT_RUNS
from .schema_passages import SCHEMA_PASSAGES
from .schema_rule_origin import SCHEMA_RULE_ORIGIN
from .schema_tool_calls import SCHEMA_TOOL_CALLS
from .schema_v1 import SCHEMA_V1
from .schema_v2 import SCHEMA_V2
from .sqlite_errors import damaged_error
from .titles import title_key

Migration = Callable[[aiosqlite.Connection], Awaitable[None]]
LAIKA_APPLICATION_ID = 0x4C41494B  # "LAIK": marks the file as Laika's in the SQLite header
RECORD_LIMIT = 1000  # rows of `_migrations` read: a damaged or foreign one may hold millions


async def m001_initial(connection: aiosqlite.Connection) -> None:
    """Schema v1: collections, sources, capture jobs, chat, artifacts, LLM runs, FTS5."""
    for statement in _statements(SCHEMA_V1):
        await connection.execute(statement)


async def m002_source_versions(connection: aiosqlite.Connection) -> None:
    """Schema v2: replaced captures keep their Markdown; jobs record kept/stored outcomes."""
    for statement in _statements(SCHEMA_V2):
        await connection.execute(statement)


async def m003_application_id(connection: aiosqlite.Connection) -> None:
    """The header names Laika as the file's owner (`file laika.db` shows it too), so a file
    is known to be ours even if a tool dropped `_migrations`."""
    await connection.execute(f"PRAGMA application_id = {LAIKA_APPLICATION_ID}")


async def m004_title_keys(connection: aiosqlite.Connection) -> None:
    """Collection titles are unique by `title_key` (Unicode caseless, computed in Python),
    not by SQLite's NOCASE, which stops at NUL and folds only ASCII. Titles an older Laika
    let in twice both stay: the later one's key gets a NUL and its id, which no title given
    now can have (NUL is refused), so it is found by id or exact title."""
    await connection.execute(
        "ALTER TABLE collections ADD COLUMN title_key TEXT NOT NULL DEFAULT ''"
    )
    cursor = await connection.execute("SELECT id, title FROM collections ORDER BY created_at, id")
    taken: set[str] = set()
    for collection_id, title in await cursor.fetchall():
        key = title_key(title)
        key = f"{key}\x00{collection_id}" if key in taken else key
        taken.add(key)
        await connection.execute(
            "UPDATE collections SET title_key = ? WHERE id = ?", (key, collection_id)
        )
    await connection.execute("DROP INDEX collections_by_title")
    await connection.execute("CREATE UNIQUE INDEX collections_by_key ON collections (title_key)")


async def m005_artifact_runs(connection: aiosqlite.Connection) -> None:
    """Artifacts keep their items, source hashes, provider, progress, warnings and owner
    (transform runs: resumable, stale-aware, never stuck `running`)."""
    for statement in _statements(SCHEMA_ARTIFACT_RUNS):
        await connection.execute(statement)


async def m006_tool_calls(connection: aiosqlite.Connection) -> None:
    """The Policy Gate's audit trail (every proposed tool call, its decision and result) and
    the decisions a user asked to remember."""
    for statement in _statements(SCHEMA_TOOL_CALLS):
        await connection.execute(statement)


async def m007_rule_origin(connection: aiosqlite.Connection) -> None:
    """A tool call may come from one of the user's event rules (origin `rule`)."""
    for statement in _statements(SCHEMA_RULE_ORIGIN):
        await connection.execute(statement)


async def m008_passages(connection: aiosqlite.Connection) -> None:
    """Passages for retrieval (issue #26). Every stored source is queued here; it is cut and
    indexed in batches, with progress, by the first search (`PassageIndex.catch_up`), not in
    this transaction: a large store would hold the write lock for minutes."""
    for statement in _statements(SCHEMA_PASSAGES):
        await connection.execute(statement)


async def m009_redaction_stamp(connection: aiosqlite.Connection) -> None:
    """Each source row says which redaction it had (`redaction_stamp`), so text redacted as
    it was stored is not redacted again on every ask (issue #26). Rows written before have
    none, and are redacted on their way to a model as before."""
    await connection.execute("ALTER TABLE sources ADD COLUMN redacted_with TEXT")


async def m010_sources_by_status(connection: aiosqlite.Connection) -> None:
    """Counting a collection's captured sources (every ask states how many were not sent)
    read each row's first page: 31 ms at 10,000 sources, linear in the collection. This
    index answers it alone."""
    await connection.execute(
        "CREATE INDEX IF NOT EXISTS sources_by_status ON sources (collection_id, capture_status)"
    )


MIGRATIONS: list[Migration] = [
    m001_initial,
    m002_source_versions,
    m003_application_id,
    m004_title_keys,
    m005_artifact_runs,
    m006_tool_calls,
    m007_rule_origin,
    m008_passages,
    m009_redaction_stamp,
    m010_sources_by_status,
]


def migration_names() -> list[str]:
    """What `_migrations` holds once every migration ran, in order."""
    return [migration.__name__ for migration in MIGRATIONS]


def application_id_at(version: int) -> int:
    """The header's application_id of a whole Laika file at `version` (m003 sets it)."""
    return LAIKA_APPLICATION_ID if m003_application_id in MIGRATIONS[:version] else 0


def is_newer_record(version: int, record: Sequence[str]) -> bool:
    """A newer Laika's file: all our migrations recorded, more after them, and a header that
    counts them all (a newer Laika writes its record and the version in one transaction)."""
    known = migration_names()
    return version > len(known) and len(record) == version and set(known) <= set(record)


def record_problem(version: int, record: Sequence[str]) -> str | None:
    """Why the header's schema version and the migration record disagree, if they do.

    Both are written in the transaction that applies a migration, so they differ only when
    the file was damaged; migrating such a file would create tables over the ones it holds."""
    if sorted(record) != sorted(migration_names()[: len(record)]):
        return f"its record of migrations (_migrations) is not Laika's ({_shown(record)})"
    if version != len(record):
        return (
            f"its header says schema version {version}, but its record of migrations "
            f"(_migrations) lists {len(record)}"
        )
    return None


def new_file_problem(objects: int, pages: int, free: int) -> str | None:
    """Why a file at schema version 0 is not new: a new one has no schema object, and no page
    of data besides the first (a dropped table's pages are on the freelist)."""
    if objects:
        return "it holds tables, but its header says schema version 0"
    if pages - free > 1:
        return (
            f"it lists no tables, yet {pages - free - 1} of its pages hold data (the page "
            "that lists its tables is damaged)"
        )
    return None


def _shown(names: Sequence[str]) -> str:
    """A few recorded names, escaped and short: they are whatever the damaged file holds."""
    listed = ", ".join(repr(name[:40]) for name in sorted(names)[:5])
    more = len(names) - 5
    return (f"{listed} and {more} more" if more > 0 else listed) or "empty"


def _statements(script: str) -> list[str]:
    """Split a script into statements (triggers hold `;` inside BEGIN ... END)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if current.strip() and sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements


async def schema_version(database: Database) -> int:
    row = await database.fetch_one("PRAGMA user_version")
    return int(row[0]) if row else 0


async def refuse_newer(database: Database) -> None:
    """Refuse a file written by a newer Laika; it only reads, so run it before anything
    that writes to the file (even `PRAGMA journal_mode`)."""
    await _refuse_newer(database, await schema_version(database))


async def migrate(database: Database, *, upto: int | None = None) -> list[str]:
    """Bring the file up to date (or to version `upto`); returns the names of the migrations
    applied now."""
    applied: list[str] = []
    await refuse_newer(database)
    for number, migration in enumerate(MIGRATIONS[:upto], start=1):
        async with database.transaction() as connection:
            current = await _version_in(connection)
            await _refuse_newer(database, current)
            if current >= number:
                continue  # another process got here first
            await _refuse_unrecorded(connection, database.path, current)
            await connection.execute(
                "CREATE TABLE IF NOT EXISTS _migrations "
                "(name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)"
            )
            await migration(connection)
            await connection.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                (migration.__name__, now_ms()),
            )
            await connection.execute(f"PRAGMA user_version = {number}")
            applied.append(migration.__name__)
    return applied


async def _refuse_unrecorded(connection: aiosqlite.Connection, path: Path, current: int) -> None:
    """The last guard before a migration writes, in its own transaction: a file at version 0
    must hold nothing, and one past it must have the record its header claims."""
    if current == 0:
        counts = [
            await _count(connection, sql)
            for sql in (
                "SELECT count(*) FROM sqlite_master",
                "PRAGMA page_count",
                "PRAGMA freelist_count",
            )
        ]
        if (problem := new_file_problem(*counts)) is not None:
            raise damaged_error(path, problem)
        return
    cursor = await connection.execute(
        "SELECT name FROM pragma_table_info('_migrations') WHERE name = 'name'"
    )
    if await cursor.fetchone() is None:
        raise damaged_error(path, "its record of migrations (table _migrations) is missing")
    cursor = await connection.execute(f"SELECT name FROM _migrations LIMIT {RECORD_LIMIT}")
    problem = record_problem(current, [str(row[0]) for row in await cursor.fetchall()])
    if problem is not None:
        raise damaged_error(path, problem)


async def _count(connection: aiosqlite.Connection, sql: str) -> int:
    cursor = await connection.execute(sql)
    row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def _version_in(connection: aiosqlite.Connection) -> int:
    cursor = await connection.execute("PRAGMA user_version")
    row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def _refuse_newer(database: Database, version: int) -> None:
    if version > len(MIGRATIONS):
        raise too_new_error(database.path, version)


def too_new_error(path: Path, version: int) -> SchemaTooNewError:
    return SchemaTooNewError(
        f"{path} has schema version {version}, but this Laika knows only up to "
        f"{len(MIGRATIONS)}: it was written by a newer Laika. Upgrade laika-host "
        "(pip install -U laika-host), or set LAIKA_HOME to use another data directory. "
        "The file was not changed."
    )
