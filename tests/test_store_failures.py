"""Bad state of the database file gets its own error, never `internal` (issue 12, finding 15).

A file from a newer Laika is refused before anything writes to it (not even the switch to WAL);
a full disk is `StoreFullError` / native `storage_full`; a damaged or foreign file is
`StoreCorruptError` / native `unavailable`. Each message names the file and what to do, and
nothing already saved is lost. Real files throughout (a real tmpfs for the full disk where
this machine lets us mount one).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.store import (
    SchemaTooNewError,
    Store,
    StoreCorruptError,
    StoreFullError,
    open_store,
)
from laika_host.store.migrations import LAIKA_APPLICATION_ID, MIGRATIONS

from native_client import ARTICLE, Client, HostProcess
from support import run_laika

T = TypeVar("T")


def run(db: Path, work: Callable[[Store], Awaitable[T]]) -> T:
    async def main() -> T:
        async with open_store(db) as store:
            return await work(store)

    return asyncio.run(main())


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- a file from a newer Laika ------------------------------------------------------------


@pytest.mark.parametrize("version", [len(MIGRATIONS) + 1, 99])
@pytest.mark.parametrize("made_by", ["a newer Laika's migration", "a future schema"])
def test_a_newer_file_in_rollback_journal_mode_is_refused_before_any_write(
    tmp_path: Path, version: int, made_by: str
) -> None:
    db = tmp_path / "laika.db"
    if made_by == "a newer Laika's migration":
        run(db, lambda store: store.collections.create("Mine"))
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA journal_mode = delete")
        if made_by == "a future schema":  # nothing of today's schema, only Laika's mark
            connection.execute("CREATE TABLE future (x)")
            connection.execute(f"PRAGMA application_id = {LAIKA_APPLICATION_ID}")
        else:  # the newer Laika records its migrations in the transaction that sets the version
            for number in range(len(MIGRATIONS) + 1, version + 1):
                connection.execute("INSERT INTO _migrations VALUES (?, 0)", (f"m{number:03d}_x",))
        connection.execute(f"PRAGMA user_version = {version}")
        connection.commit()
    before = _digest(db)
    with pytest.raises(SchemaTooNewError, match=rf"schema version {version}.*not changed"):
        run(db, lambda store: store.collections.list())
    assert _digest(db) == before
    assert db.read_bytes()[18:20] == b"\x01\x01"  # the header still says rollback journal
    assert not db.with_name("laika.db-wal").exists()


# --- a damaged file ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def healthy_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bytes of a checkpointed store holding notes large enough to span many pages."""
    db = tmp_path_factory.mktemp("healthy") / "laika.db"

    async def fill(store: Store) -> None:
        for i in range(12):
            await store.sources.add_note("Coast", f"# Note {i}\n\n" + f"tide{i} " * 600)

    run(db, fill)
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


async def _read_and_write(store: Store) -> None:
    await store.sources.list()
    await store.search.query("tide3")
    await store.sources.add_note("Coast", "one more")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_truncated_or_foreign_file_is_reported_as_damaged(
    tmp_path: Path, healthy_db: Path, data: st.DataObject
) -> None:
    healthy = healthy_db.read_bytes()
    contents = data.draw(
        st.one_of(
            st.integers(1, len(healthy) - 1).map(lambda cut: healthy[:cut]),
            st.binary(min_size=1, max_size=20_000),
            st.binary(min_size=1, max_size=20_000).map(lambda tail: b"SQLite format 3\0" + tail),
        ),
        label="laika.db",
    )
    db = tmp_path / "laika.db"
    for stale in tmp_path.glob("laika.db*"):
        stale.unlink()
    db.write_bytes(contents)
    message = None
    try:
        run(db, _read_and_write)  # a cut after the last page in use may still work
    except StoreCorruptError as error:  # anything else (a bare sqlite3 error) fails the test
        message = str(error)
    if message is not None:
        assert "damaged" in message
        assert "restore" in message  # ... and what to do about it
        assert str(db) in message or "laika.db" in message


def test_a_garbage_file_is_refused_unchanged_with_the_file_named(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"
    db.write_bytes(b"this is a shopping list, not a database\n" * 300)
    before = _digest(db)
    with pytest.raises(StoreCorruptError, match=rf"{db}.*not a Laika database.*mv "):
        run(db, lambda store: store.collections.list())
    assert _digest(db) == before


# --- a full disk --------------------------------------------------------------------------


def test_a_full_database_is_storage_full_and_keeps_what_was_saved(tmp_path: Path) -> None:
    """SQLite's `max_page_count` makes the file full at a set size: the same SQLITE_FULL a
    full disk gives."""
    db = tmp_path / "laika.db"

    async def work(store: Store) -> tuple[list[str], str]:
        saved = [(await store.sources.add_note("Coast", "# Kept\n\nlow tide")).source.id]
        row = await store.db.fetch_one("PRAGMA page_count")
        assert row is not None
        await store.db.connection.execute(f"PRAGMA max_page_count = {row[0] + 8}")
        message = await _add_notes_until_full(store, saved)
        assert not store.db.connection.in_transaction
        await store.db.connection.execute("PRAGMA max_page_count = 1073741823")  # space freed
        saved.append((await store.sources.add_note("Coast", "after")).source.id)
        found = [s.id for s in await store.sources.list("Coast", limit=1000)]
        assert sorted(found) == sorted(saved)  # nothing saved before was lost
        return saved, message

    saved, message = run(db, work)
    assert len(saved) >= 2
    assert str(db) in message
    assert "full" in message
    assert "free some space" in message.lower()


async def _add_notes_until_full(store: Store, saved: list[str]) -> str:
    for i in range(100):
        try:
            note = await store.sources.add_note("Coast", f"# N{i}\n\n" + f"surge{i} " * 4000)
        except StoreFullError as error:
            return str(error)
        saved.append(note.source.id)
    pytest.fail("100 large notes fit in a file limited to 8 more pages")


@contextlib.contextmanager
def tiny_tmpfs(path: Path, size: str = "2m") -> Iterator[Path]:
    """A real small filesystem that fills up; skipped where this user cannot mount one."""
    path.mkdir()
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("no mount command to make a tiny tmpfs")
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill_disk(directory: Path) -> Path:
    """Fill the filesystem to the last byte with one file."""
    filler = directory / "filler"
    with contextlib.suppress(OSError), filler.open("wb", buffering=0) as out:
        while True:
            out.write(b"\0" * 4096)
    return filler


@pytest.mark.slow  # > 3 s with the cores busy
def test_the_host_answers_storage_full_on_a_full_disk_and_keeps_serving(tmp_path: Path) -> None:
    with tiny_tmpfs(tmp_path / "disk") as home:
        host = HostProcess(home)
        client = Client(host)
        try:
            first = client.call("sources.save_page", {"url": "https://t.test/a", "html": ARTICLE})
            assert first["ok"], first
            filler = fill_disk(home)
            big = ARTICLE.replace("Sailors", "Sailors " + "read the tide tables. " * 20_000)
            full = client.call("sources.save_page", {"url": "https://t.test/b", "html": big})
            assert full["error"]["code"] == "storage_full", full
            assert "laika.db" in full["error"]["message"]
            assert "free some space" in full["error"]["message"].lower()
            assert client.call("host.ping")["ok"]
            filler.unlink()
            again = client.call("sources.save_page", {"url": "https://t.test/b", "html": big})
            assert again["ok"], again
            listed = client.call("sources.list", {})["result"]["sources"]
            assert {s["url"] for s in listed} == {"https://t.test/a", "https://t.test/b"}
        finally:
            host.kill()


@pytest.mark.slow  # > 3 s with the cores busy
def test_the_host_and_the_cli_report_a_damaged_file_as_unavailable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "laika.db").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 5000)
    host = HostProcess(home)
    client = Client(host)
    try:
        listed = client.call("sources.list", {})
        assert listed["error"]["code"] == "unavailable", listed
        assert str(home / "laika.db") in listed["error"]["message"]
        assert client.call("host.ping")["ok"]
    finally:
        host.kill()
    done = run_laika("sources", "list", env={**os.environ, "LAIKA_HOME": str(home)})
    assert done.returncode == 1
    assert "not a Laika database" in done.stderr
    assert "Traceback" not in done.stderr
