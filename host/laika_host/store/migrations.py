"""Numbered schema migrations, recorded in `_migrations` and mirrored in `PRAGMA user_version`.

Add a migration by appending a function to `MIGRATIONS`; never edit one that has shipped.
Opening an older file applies the missing ones (in one transaction each); a file whose
`user_version` is higher than `len(MIGRATIONS)` was written by a newer Laika and is refused.
Whether a file is Laika's at all is decided before any of this runs (`file_check`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiosqlite

from ._db import Database
from .errors import SchemaTooNewError
from .ids import now_ms
from .schema_artifact_runs import SCHEMA_ARTIFACT_RUNS
from .schema_v1 import SCHEMA_V1
from .schema_v2 import SCHEMA_V2
from .titles import title_key

Migration = Callable[[aiosqlite.Connection], Awaitable[None]]
LAIKA_APPLICATION_ID = 0x4C41494B  # "LAIK": marks the file as Laika's in the SQLite header


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


MIGRATIONS: list[Migration] = [
    m001_initial,
    m002_source_versions,
    m003_application_id,
    m004_title_keys,
    m005_artifact_runs,
]


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
