"""Which file Laika writes into: only its own or a new one (issue 12, store findings 1 and 2).

Another program's SQLite file at `laika.db` is refused before anything writes to it (no WAL
switch, not one byte changed, no file left beside it); a Laika file with part of its schema
missing is refused as damaged, before any write too, and a file damaged while a host runs is
reported the same way. An empty or a missing file is a new store. Real files throughout.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from laika_host.store import Store, StoreCorruptError, open_store
from laika_host.store.migrations import LAIKA_APPLICATION_ID, MIGRATIONS

T = TypeVar("T")
LAIKA_TABLES = ["_migrations", "collections", "sources", "meta", "capture_jobs"]


def run(db: Path, work: Callable[[Store], Awaitable[T]]) -> T:
    async def main() -> T:
        async with open_store(db) as store:
            return await work(store)

    return asyncio.run(main())


def _snapshot(directory: Path) -> dict[str, tuple[str, int]]:
    """Every file in the directory (not the host's logs): its bytes' digest and its mode."""
    return {
        path.name: (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode)
        for path in sorted(directory.iterdir())
        if path.is_file()
    }


def _clear(directory: Path) -> None:
    for path in directory.iterdir():
        path.unlink()


# --- another program's file -----------------------------------------------------------------

names = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,15}", fullmatch=True),
    st.sampled_from(LAIKA_TABLES),  # a foreign file may use a name Laika uses too
    st.text(
        st.characters(exclude_characters='"\x00', exclude_categories=["Cs"]),
        min_size=1,
        max_size=12,
    ),
)


@st.composite
def foreign_schemas(draw: st.DrawFn) -> list[str]:
    """SQL that builds another program's database: tables, maybe rows, an index, a view."""
    tables = draw(st.lists(names, min_size=1, max_size=4, unique_by=str.lower))
    assume(not any(name.lower().startswith("sqlite_") for name in tables))
    statements = []
    for table in tables:
        columns = draw(st.lists(names, min_size=1, max_size=4, unique_by=str.lower))
        quoted = ", ".join(f'"{column}"' for column in columns)
        statements.append(f'CREATE TABLE "{table}" ({quoted})')
        for _ in range(draw(st.integers(0, 3))):
            values = ", ".join(str(draw(st.integers(-5, 5))) for _ in columns)
            statements.append(f'INSERT INTO "{table}" VALUES ({values})')
        if draw(st.booleans()):
            statements.append(f'CREATE INDEX "{table}_ix" ON "{table}" ("{columns[0]}")')
    if draw(st.booleans()):
        statements.append(f'CREATE VIEW "{tables[0]}_view" AS SELECT * FROM "{tables[0]}"')
    return statements


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    schema=foreign_schemas(),
    user_version=st.one_of(st.just(0), st.integers(0, 2**31 - 1)),
    application_id=st.one_of(st.just(0), st.integers(-(2**31), 2**31 - 1)),
    journal=st.sampled_from(["delete", "wal", "truncate"]),
)
def test_another_programs_file_is_refused_and_left_byte_for_byte_unchanged(
    tmp_path: Path, schema: list[str], user_version: int, application_id: int, journal: str
) -> None:
    _clear(tmp_path)
    db = tmp_path / "laika.db"
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute(f"PRAGMA journal_mode = {journal}")
        for statement in schema:
            connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {user_version}")
        connection.execute(f"PRAGMA application_id = {application_id}")
        connection.commit()
    db.chmod(0o644)  # another program's file keeps its mode too
    before = _snapshot(tmp_path)
    with pytest.raises(StoreCorruptError) as refused:
        run(db, lambda store: store.collections.list())
    message = str(refused.value)
    assert str(db) in message
    assert "not a Laika database" in message or "damaged Laika database" in message
    assert "was not changed" in message
    assert "LAIKA_HOME" in message or "backup" in message  # ... and what to do
    assert _snapshot(tmp_path) == before


@pytest.mark.slow  # > 3 s with the cores busy
def test_the_reviewers_places_file_is_refused_by_the_host_and_the_cli(tmp_path: Path) -> None:
    from native_client import Client, HostProcess
    from support import run_laika

    home = tmp_path / "home"
    home.mkdir()
    db = home / "laika.db"
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
        connection.execute("INSERT INTO moz_places (url) VALUES ('https://a.example/')")
        connection.commit()
    before = _snapshot(home)
    host = HostProcess(home)
    client = Client(host)
    try:
        for type_, payload in [("collections.list", {}), ("collections.create", {"title": "x"})]:
            reply = client.call(type_, payload)
            assert reply["error"]["code"] == "unavailable", reply
            assert str(db) in reply["error"]["message"]
            assert "moz_places" in reply["error"]["message"]
        assert client.call("host.ping")["ok"]
    finally:
        host.close()
    done = run_laika("collections", "list", env={**os.environ, "LAIKA_HOME": str(home)})
    assert done.returncode == 1
    assert "not a Laika database" in done.stderr
    assert "Traceback" not in done.stderr
    assert _snapshot(home) == before


@pytest.mark.parametrize("version", [0, 1, len(MIGRATIONS)])
def test_a_file_with_laikas_mark_but_not_its_schema_is_refused_as_damaged(
    tmp_path: Path, version: int
) -> None:
    db = tmp_path / "laika.db"
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.execute(f"PRAGMA application_id = {LAIKA_APPLICATION_ID}")
        connection.execute(f"PRAGMA user_version = {version}")
        connection.commit()
    before = _snapshot(tmp_path)
    with pytest.raises(StoreCorruptError, match=rf"{db} is a damaged Laika database: "):
        run(db, lambda store: store.collections.list())
    assert _snapshot(tmp_path) == before


# --- a new file -----------------------------------------------------------------------------


@pytest.mark.parametrize("state", ["missing", "empty", "empty sqlite with a header"])
def test_a_missing_or_empty_file_becomes_a_new_store(tmp_path: Path, state: str) -> None:
    db = tmp_path / "laika.db"
    if state == "empty":
        db.write_bytes(b"")
    elif state == "empty sqlite with a header":
        with contextlib.closing(sqlite3.connect(db)) as connection:
            connection.execute("CREATE TABLE t (x)")
            connection.execute("DROP TABLE t")  # a header and pages, but no schema object
            connection.commit()

    async def work(store: Store) -> tuple[int, str]:
        await store.collections.create("First")
        return await store.schema_version(), (await store.collections.get("first")).title

    assert run(db, work) == (len(MIGRATIONS), "First")
    assert run(db, lambda store: store.schema_version()) == len(MIGRATIONS)  # reopens as its own


# --- a damaged Laika file -------------------------------------------------------------------


@pytest.fixture(scope="module")
def laika_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkpointed Laika file with a little of everything in it."""
    db = tmp_path_factory.mktemp("whole") / "laika.db"

    async def fill(store: Store) -> None:
        await store.sources.add_note("Coast", "# Tides\n\nlow tide twice a day")
        await store.collections.create("Reading")

    run(db, fill)
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


def _schema_of(db: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(type, name) of every droppable schema object, and (table, column) of every column."""
    with contextlib.closing(sqlite3.connect(db)) as connection:
        objects = connection.execute(
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
        columns = connection.execute(
            "SELECT m.name, c.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c "
            "WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY 1, 2"
        ).fetchall()
    return objects, columns


@st.composite
def damages(draw: st.DrawFn, db: Path) -> tuple[str, str]:
    """One thing a tool could do to the file, and the name the refusal must mention."""
    objects, columns = _schema_of(db)
    kind = draw(st.sampled_from(["drop", "rename", "drop column"]))
    if kind == "drop column":
        table, column = draw(st.sampled_from(columns))
        return f'ALTER TABLE "{table}" DROP COLUMN "{column}"', f"{table}.{column}"
    type_, name = draw(st.sampled_from(objects))
    if kind == "rename" and type_ == "table":
        return f'ALTER TABLE "{name}" RENAME TO "{name}_old"', name
    return f'DROP {type_.upper()} "{name}"', name


@pytest.mark.slow  # > 3 s with the cores busy
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_laika_file_missing_part_of_its_schema_is_refused_as_damaged_and_unchanged(
    tmp_path: Path, laika_file: Path, data: st.DataObject
) -> None:
    _clear(tmp_path)
    db = tmp_path / "laika.db"
    db.write_bytes(laika_file.read_bytes())
    statement, named = data.draw(damages(laika_file), label="damage")
    with contextlib.closing(sqlite3.connect(db)) as connection:
        try:
            connection.execute(statement)
        except sqlite3.Error:  # SQLite refuses it (a column in an index, a key): no damage
            assume(False)
        connection.commit()
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = _snapshot(tmp_path)
    with pytest.raises(StoreCorruptError) as refused:
        run(db, lambda store: store.collections.list())
    message = str(refused.value)
    assert f"{db} is a damaged Laika database" in message
    assert named in message
    assert "was not changed" in message
    assert "backup" in message
    assert _snapshot(tmp_path) == before


@pytest.mark.slow  # > 3 s with the cores busy
def test_the_host_and_the_cli_report_a_renamed_table_as_unavailable(tmp_path: Path) -> None:
    """The reviewer's case: `collections` renamed by a tool, before or while a host runs."""
    from native_client import Client, HostProcess
    from support import run_laika

    home = tmp_path / "home"
    home.mkdir()
    db = home / "laika.db"
    host = HostProcess(home)
    client = Client(host)

    def rename(old: str, new: str) -> None:
        with contextlib.closing(sqlite3.connect(db)) as connection:
            connection.execute(f"ALTER TABLE {old} RENAME TO {new}")
            connection.commit()

    try:
        assert client.call("collections.create", {"title": "Coast"})["ok"]
        rename("collections", "collections_old")  # while the host has the file open
        for type_, payload in [
            ("collections.list", {}),
            ("collections.create", {"title": "Reading"}),
            ("sources.save_page", {"url": "https://t.test/a", "html": "<p>tide</p>"}),
        ]:
            reply = client.call(type_, payload)
            assert reply["error"]["code"] == "unavailable", reply
            assert f"{db} is a damaged Laika database" in reply["error"]["message"]
            assert "collections" in reply["error"]["message"]
        assert client.call("host.ping")["ok"]
        rename("collections_old", "collections")  # put back: nothing was lost
        listed = client.call("collections.list")["result"]["collections"]
        assert [c["title"] for c in listed] == ["Coast"]
        rename("collections", "collections_old")
    finally:
        host.close()
    host = HostProcess(home)  # a new host opening the damaged file
    client = Client(host)
    try:
        reply = client.call("collections.list")
        assert reply["error"]["code"] == "unavailable", reply
        assert "table collections is missing" in reply["error"]["message"]
    finally:
        host.close()
    done = run_laika("collections", "list", env={**os.environ, "LAIKA_HOME": str(home)})
    assert done.returncode == 1
    assert "damaged Laika database: table collections is missing" in done.stderr
    assert "Traceback" not in done.stderr


# --- a Laika file whose header and migration record disagree --------------------------------


def _with_header(laika_file: Path, db: Path, **fields: int) -> bytes:
    """`laika_file`'s bytes with big-endian 4-byte header fields replaced (offset: value)."""
    data = bytearray(laika_file.read_bytes())
    offsets = {"user_version": 60, "application_id": 68}
    for name, value in fields.items():
        data[offsets[name] : offsets[name] + 4] = value.to_bytes(4, "big", signed=True)
    db.write_bytes(bytes(data))
    return bytes(data)


INT32 = st.integers(-(2**31), 2**31 - 1)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(version=INT32.filter(lambda version: version != len(MIGRATIONS)))
def test_a_schema_version_its_record_does_not_list_is_damage_never_migrated(
    tmp_path: Path, laika_file: Path, version: int
) -> None:
    """The header's version reset, negative, lowered or raised while `_migrations` lists
    every migration: migrating by it would create `meta` again (the traceback a random
    damage found) or skip steps; a raised one is not a newer Laika's, whose record grows."""
    _clear(tmp_path)
    db = tmp_path / "laika.db"
    _with_header(laika_file, db, user_version=version)
    before = _snapshot(tmp_path)
    with pytest.raises(StoreCorruptError) as refused:
        run(db, lambda store: store.collections.list())
    message = str(refused.value)
    assert f"{db} is a damaged Laika database: its header says schema version {version}" in message
    assert f"lists {len(MIGRATIONS)}" in message
    assert _snapshot(tmp_path) == before


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(owner=INT32.filter(lambda owner: owner != LAIKA_APPLICATION_ID))
def test_a_laika_file_whose_header_lost_its_mark_is_damaged_not_foreign(
    tmp_path: Path, laika_file: Path, owner: int
) -> None:
    _clear(tmp_path)
    db = tmp_path / "laika.db"
    _with_header(laika_file, db, application_id=owner)
    before = _snapshot(tmp_path)
    with pytest.raises(StoreCorruptError) as refused:
        run(db, lambda store: store.collections.list())
    assert f"{db} is a damaged Laika database: its header's application_id" in str(refused.value)
    assert _snapshot(tmp_path) == before


def test_a_file_whose_table_list_reads_empty_while_its_pages_hold_data_is_not_new(
    tmp_path: Path, laika_file: Path
) -> None:
    """Page 1 (the list of tables) damaged to an empty leaf, header version and mark zeroed:
    the file looks new, but creating the schema would bury every row it holds."""
    db = tmp_path / "laika.db"
    data = bytearray(_with_header(laika_file, db, user_version=0, application_id=0))
    data[100] = 0x0D  # a leaf page ...
    data[103:105] = b"\0\0"  # ... with no cells
    db.write_bytes(bytes(data))
    with pytest.raises(StoreCorruptError, match=rf"{db} is a damaged .*lists no tables, yet \d+"):
        run(db, lambda store: store.collections.list())
    assert db.read_bytes() == bytes(data)


@pytest.mark.parametrize("version", [0, -1, 2])
def test_a_migration_never_runs_where_the_file_disagrees_even_past_the_check(
    tmp_path: Path, laika_file: Path, version: int
) -> None:
    """The guard inside each migration's own transaction, called here without `check_file`
    before it (as a race with another tool could leave it): refused, nothing written."""
    from laika_host.store._db import Database
    from laika_host.store.migrations import migrate

    db = tmp_path / "laika.db"
    before = _with_header(laika_file, db, user_version=version)

    async def main() -> None:
        database = await Database.open(db)
        try:
            await migrate(database)
        finally:
            await database.close()

    with pytest.raises(StoreCorruptError, match=rf"{db} is a damaged Laika database: "):
        asyncio.run(main())
    assert db.read_bytes() == before


@pytest.mark.parametrize("write_version", [3, 255])
def test_a_header_that_makes_sqlite_read_only_is_damage_not_a_read_only_disk(
    tmp_path: Path, laika_file: Path, write_version: int
) -> None:
    """Reads would work and the first write fail with "attempt to write a readonly database",
    which the user would take for a disk or permission problem."""
    db = tmp_path / "laika.db"
    data = bytearray(laika_file.read_bytes())
    data[18] = write_version
    db.write_bytes(bytes(data))
    with pytest.raises(StoreCorruptError, match=rf"{db} is a damaged .*write version is"):
        run(db, lambda store: store.collections.create("Fresh"))
    assert db.read_bytes() == bytes(data)
