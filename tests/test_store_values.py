"""Any value in any column: a damaged row reads back or is reported as damage naming the file.

SQLite checks pages, not what Laika stored in them: damage (or a tool) can leave JSON that
does not parse, a status no CHECK allows, text where a time belongs, a number too large for
a date. Every read and every write that reads a row must then either work or raise a
`StoreError` (a `StoreCorruptError` names the file); a `ValidationError`, `TypeError` or a
message without the path was what random byte damage found before (issue 14, item 3).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from laika_host.capture import capture_html
from laika_host.store import Store, StoreCorruptError, StoreError, open_store
from laika_host.store._db import Database
from laika_host.store.migrations import migrate
from laika_host.store.runs import RunLinks

T = TypeVar("T")


def _page(body: str) -> object:
    html = f"<html><head><title>Tides</title></head><body><article><h1>Tides</h1><p>{body}</p>"
    return capture_html((html + "</article></body></html>").encode(), "https://t.test/tides")


@pytest.fixture(scope="module")
def full_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A row in every table a command reads: collections, sources (a note, a page captured
    twice, so a version), a queued job, chat, an artifact, a run."""
    db = tmp_path_factory.mktemp("full") / "laika.db"

    async def fill() -> None:
        async with open_store(db) as store:
            note = await store.sources.add_note("Coast", "# Tides\n\nThe moon pulls the sea.")
            coast = note.source.collection_id
            await store.sources.save_capture(coast, _page("Tides rise twice a day."))  # type: ignore[arg-type]
            await store.sources.save_capture(coast, _page("Tides rise and fall."))  # type: ignore[arg-type]
            later = await store.sources.add_url("Coast", "https://t.test/later")
            await store.jobs.queue(later.source.id)
            event = await store.chat.append(coast, "assistant", "tides", citations=[{"a": 1}])
            art = await store.artifacts.create(coast, "brief", "Tide brief", dedupe_key="k")
            await store.artifacts.update_status(art.id, "completed", content_markdown="tides")
            await store.runs.append("chat", links=RunLinks(chat_event_id=event.id), request={})

    asyncio.run(fill())
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


def _laika_columns() -> list[tuple[str, str]]:
    """(table, column) of every ordinary table Laika reads rows from, in today's schema."""

    async def read() -> list[tuple[str, str]]:
        database = await Database.open(Path(":memory:"))
        try:
            await migrate(database)
            rows = await database.fetch_all(
                "SELECT m.name, c.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c "
                "WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%' AND m.name NOT "
                "LIKE '%fts%' AND m.name NOT IN ('_migrations', 'meta') ORDER BY 1, 2"
            )
        finally:
            await database.close()
        return [(str(row[0]), str(row[1])) for row in rows]

    return asyncio.run(read())


COLUMNS = _laika_columns()
VALUES = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["{", "[1,", "null", "{}", "[]", '"x"', "capt\x00red", "url", "queued"]),
    st.binary(max_size=30),
)


async def _every_read_and_a_write(store: Store) -> list[str]:
    """What commands and the host do with the rows; each call may work or fail clearly. The
    messages of the damage reported."""
    reported: list[str] = []
    coast = await _step(store.collections.find("Coast"), reported)
    collection_id = coast.id if coast else "col_x"
    sources = await _step(store.sources.list(), reported)
    calls: list[Awaitable[object]] = [
        store.collections.list(),
        store.search.query("tides"),
        store.jobs.list(),
        store.jobs.counts(),
        store.chat.list(collection_id),
        store.artifacts.list(collection_id),
        store.runs.list(),
        store.sources.bodies(collection_id),
        store.sources.lookup("https://t.test/tides"),
        store.sources.save_capture(collection_id, _page("Tides rise, fall, rise."), force=True),  # type: ignore[arg-type]
        store.jobs.claim(),
        store.collections.create("Fresh"),
    ]
    for source in sources or []:
        calls += [store.sources.get(source.id), store.sources.versions(source.id)]
    for call in calls:
        await _step(call, reported)
    return reported


async def _step(call: Awaitable[T], reported: list[str]) -> T | None:
    try:
        return await call
    except StoreCorruptError as error:
        reported.append(str(error))
    except StoreError:  # e.g. not found: the row's id itself was overwritten
        pass
    return None


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(column=st.sampled_from(COLUMNS), value=VALUES)
@example(column=("sources", "capture_status"), value="capt\x00red")  # found by byte damage
@example(column=("sources", "signals"), value="\x00\x00\x00")  # ... as was this
@example(column=("sources", "capture_version"), value=2**63 - 1)  # plus one would overflow
@example(column=("capture_jobs", "attempt_count"), value=2**63 - 1)  # the same for a counter
@example(column=("capture_jobs", "max_attempts"), value=2**63 - 1)
def test_any_value_in_any_column_reads_back_or_is_reported_naming_the_file(
    tmp_path: Path, full_db: Path, column: tuple[str, str], value: object
) -> None:
    db = tmp_path / "laika.db"
    for old in tmp_path.glob("laika.db*"):
        old.unlink()
    db.write_bytes(full_db.read_bytes())
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")  # as damage would
        try:
            connection.execute(f'UPDATE "{column[0]}" SET "{column[1]}" = ?', (value,))
        except sqlite3.Error:  # NOT NULL, UNIQUE, a foreign key: SQLite refuses, no damage
            assume(False)

    async def main() -> list[str]:
        async with open_store(db) as store:
            return await _every_read_and_a_write(store)

    for message in asyncio.run(main()):
        assert message.startswith(f"{db} is a damaged Laika database: "), message
        assert "restore it from a backup" in message.lower(), message


def _claim_with_attempts(db: Path, attempts: int) -> None:
    """Put `attempts` in the queued job, breaking its CHECK as damage would, then claim it:
    the claim's UPDATE adds 1."""
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        connection.execute("UPDATE capture_jobs SET attempt_count = ?", (attempts,))

    async def main() -> None:
        async with open_store(db) as store:
            await store.jobs.claim()

    asyncio.run(main())


def test_a_write_breaking_a_rule_because_a_stored_value_does_is_damage(
    tmp_path: Path, full_db: Path
) -> None:
    db = tmp_path / "laika.db"
    db.write_bytes(full_db.read_bytes())
    with pytest.raises(StoreCorruptError) as refused:
        _claim_with_attempts(db, -2)
    message = str(refused.value)
    assert message.startswith(f"{db} is a damaged Laika database: a write hit CHECK constraint")
    assert "check finds: CHECK constraint failed in capture_jobs" in message


def test_a_write_breaking_a_rule_in_a_whole_file_stays_a_bug(tmp_path: Path, full_db: Path) -> None:
    """quick_check finds nothing: the write itself was wrong, and says so as it is."""
    db = tmp_path / "laika.db"
    db.write_bytes(full_db.read_bytes())

    async def main() -> None:
        async with open_store(db) as store, store.db.transaction() as connection:
            await connection.execute("UPDATE capture_jobs SET attempt_count = -1")

    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        asyncio.run(main())
