"""`Store`: the open database and its repositories."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from ..paths import data_dir, ensure_private_dir, tighten_file
from ._db import Database
from .artifact_runs import ArtifactRuns
from .artifacts import Artifacts
from .chat import Chat
from .collections import Collections
from .file_check import check_file
from .jobs import Jobs
from .migrations import migrate, schema_version
from .passage_index import PassageIndex
from .runs import Runs
from .search import Search
from .sources import Sources
from .tool_calls import ToolCalls
from .tool_rules import ToolRules

DB_FILE_NAME = "laika.db"


def default_db_path() -> Path:
    return data_dir() / DB_FILE_NAME


class Store:
    def __init__(self, database: Database, *, retry_base_ms: int | None = None) -> None:
        self.db = database
        self.collections = Collections(database)
        self.sources = Sources(database, self.collections)
        self.jobs = (
            Jobs(database) if retry_base_ms is None else Jobs(database, retry_base_ms=retry_base_ms)
        )
        self.chat = Chat(database)
        self.artifacts = Artifacts(database)
        self.artifact_runs = ArtifactRuns(database)
        self.runs = Runs(database)
        self.search = Search(database)
        self.passages = PassageIndex(database)
        self.tool_calls = ToolCalls(database)
        self.tool_rules = ToolRules(database)

    @property
    def path(self) -> Path:
        return self.db.path

    async def schema_version(self) -> int:
        return await schema_version(self.db)

    async def integrity_check(self) -> list[str]:
        """SQLite's integrity check plus the FTS indexes; `["ok"]` when all is well."""
        rows = await self.db.fetch_all("PRAGMA integrity_check")
        problems = [str(row[0]) for row in rows]
        for table in ("sources_fts", "artifacts_fts", "passages_fts"):
            try:
                await self.db.connection.execute(
                    f"INSERT INTO {table} ({table}) VALUES ('integrity-check')"
                )
            except Exception as error:
                problems.append(f"{table}: {error}")
        return problems if problems != ["ok"] else ["ok"]

    async def close(self) -> None:
        await self.db.close()


@asynccontextmanager
async def open_store(
    path: Path | None = None,
    *,
    write_deadline: float | None = None,
    recover_jobs: bool = True,
    retry_base_ms: int | None = None,
) -> AsyncIterator[Store]:
    """Open (creating and migrating as needed) the database; jobs left by dead processes
    go back to the queue, and artifacts they were making are failed with the reason.
    Another program's file, a damaged one or one from a newer Laika
    is refused before anything writes to it."""
    path = path or default_db_path()
    ensure_private_dir(path.parent)
    database = await Database.open(path, write_deadline=write_deadline)
    try:
        await check_file(database)  # reads only: a foreign, damaged or newer file stays as is
        for own in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            tighten_file(own)  # left open to others by an older Laika
        await database.prepare_file()
        await migrate(database)
        store = Store(database, retry_base_ms=retry_base_ms)
        if recover_jobs:
            await store.jobs.recover()
            await store.artifact_runs.recover()  # runs a dead process left: failed, with why
        yield store
    finally:
        await database.close()
