"""No code of the package opens the database file, its -wal or its -shm while this process
holds a connection to it (closing that descriptor would drop SQLite's locks: `held_files`).

`store_file_guard` watches every test of the suite; here each operation a user has runs while
another connection of the same process holds the file, as the host's does over its whole
life: capture, ask, search, backup, check, a migration, and the host's own handlers. The
guard's first test shows it sees such an open, so its silence elsewhere means something.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import store_file_guard
from laika_host.cli import main
from laika_host.store import open_store
from laika_host.store.held_files import claim
from laika_host.store.store import default_db_path

from native_client import ARTICLE, serve_in_process

pytestmark = pytest.mark.skipif(not store_file_guard.FD_DIR.is_dir(), reason="needs /proc")


@contextmanager
def held_elsewhere(db: Path) -> Iterator[None]:
    """An open store in another thread of this process (as the host's long-lived one)."""
    opened, done = threading.Event(), threading.Event()
    failed: list[BaseException] = []

    async def hold() -> None:
        async with open_store(db) as store:
            await store.collections.list()
            opened.set()
            while not done.is_set():
                await asyncio.sleep(0.01)

    def run() -> None:
        try:
            asyncio.run(hold())
        except BaseException as error:  # reported below
            failed.append(error)
            opened.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert opened.wait(60), "the store never opened"
    assert not failed, failed
    try:
        yield
    finally:
        done.set()
        thread.join(60)


def _violations_of(work: Callable[[], Any]) -> list[str]:
    store_file_guard.take_violations()
    work()
    return store_file_guard.take_violations()


def test_the_guard_sees_package_code_open_a_held_file(tmp_path: Path) -> None:
    """What the old header read did: open the file while a connection is open."""
    db = tmp_path / "laika.db"

    async def read_header_beside_a_connection() -> None:
        async with open_store(db):
            first = claim(db)  # the file is held: no read ...
            first.release()
            from laika_host.store import held_files

            held_files._read_header(db)  # ... and a read anyway is what the guard must see

    found = _violations_of(lambda: asyncio.run(read_header_beside_a_connection()))
    assert found
    assert str(db.resolve()) in found[0], found


def test_every_cli_operation_leaves_sqlite_the_only_opener(tmp_path: Path) -> None:
    page = tmp_path / "tides.html"
    page.write_text(ARTICLE, encoding="utf-8")
    runner = CliRunner()
    db = default_db_path()
    assert runner.invoke(main, ["collections", "create", "Inbox"]).exit_code == 0
    commands = [
        ["capture", str(page), "--url", "https://tides.test/a"],
        ["ask", "What moves the tides?", "--json"],
        ["search", "tides"],
        ["sources", "list"],
        ["db", "backup", str(tmp_path / "copy.db")],
        ["db", "check", "--full"],
        ["jobs", "list"],
    ]
    with held_elsewhere(db):
        for args in commands:
            found: list[str] = []

            def invoke(args: list[str] = args) -> None:
                result = runner.invoke(main, args, catch_exceptions=False)
                assert result.exit_code == 0, (args, result.output)

            found = _violations_of(invoke)
            assert not found, (args, found)


def test_a_migration_beside_a_held_connection_opens_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from laika_host.store import migrations

    db = tmp_path / "laika.db"
    shipped = list(migrations.MIGRATIONS)
    monkeypatch.setattr(migrations, "MIGRATIONS", shipped[:1])  # a v1 file

    async def open_once() -> None:
        async with open_store(db):
            pass

    asyncio.run(open_once())
    monkeypatch.setattr(migrations, "MIGRATIONS", shipped)

    async def migrate_beside_another() -> None:
        async with open_store(db) as first, open_store(db) as second:
            assert await first.schema_version() == await second.schema_version() == len(shipped)

    assert not _violations_of(lambda: asyncio.run(migrate_beside_another()))


def test_the_hosts_handlers_beside_a_held_connection_open_nothing() -> None:
    db = default_db_path()
    requests = [
        {
            "id": "1",
            "type": "sources.save_page",
            "payload": {"url": "https://t.test/a", "html": ARTICLE},
        },
        {"id": "2", "type": "collections.list", "payload": {}},
        {"id": "3", "type": "sources.list", "payload": {}},
        {"id": "4", "type": "search.query", "payload": {"query": "tides"}},
        {"id": "5", "type": "chat.ask", "payload": {"question": "What moves the tides?"}},
    ]

    async def prepare() -> None:
        async with open_store(db):
            pass

    asyncio.run(prepare())
    with held_elsewhere(db):
        messages: list[dict[str, Any]] = []
        found = _violations_of(lambda: messages.extend(asyncio.run(serve_in_process(requests))))
    assert not found, found
    finals = {m["id"]: m for m in messages if m.get("type") in ("reply", "error") or "ok" in m}
    assert {"1", "2", "3"} <= set(finals), messages


# --- held_files: the header is read only when no connection of this process holds the file


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["claim", "release", "replace", "create"]),
                                st.integers(0, 2), st.integers(0, 5)), max_size=40))  # fmt: skip
def test_a_header_is_read_only_while_no_claim_holds_its_file(
    steps: list[tuple[str, int, int]],
) -> None:
    """Any sequence of claims, releases and files created or moved over the path: each read
    happens while no live claim holds that very file (inode), and a claim of a held file
    gets the bytes read when it was first claimed."""
    from laika_host.store import held_files

    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / f"db{index}" for index in range(3)]
        live: list[held_files.Claim] = []
        reads: list[tuple[int, int]] = []
        real_read = held_files._read_header

        def recording_read(path: Path) -> bytes:
            status = os.stat(path)
            reads.append((status.st_dev, status.st_ino))
            return real_read(path)

        held_files._read_header = recording_read  # type: ignore[assignment]
        try:
            for action, which, pick in steps:
                path = paths[which]
                if action == "claim":
                    before = len(reads)
                    made = held_files.claim(path)
                    made.settle()
                    if len(reads) > before:  # a read: no other live claim held this inode
                        key = reads[-1]
                        assert all(c._key != key for c in live), (action, which)
                    live.append(made)
                elif action == "release" and live:
                    live.pop(pick % len(live)).release()
                elif action == "replace":  # a file moved over the path (a restore)
                    fresh = path.with_name(path.name + ".new")
                    fresh.write_bytes(bytes([pick]) * 32)
                    os.replace(fresh, path)
                elif action == "create" and not path.exists():
                    path.write_bytes(bytes([pick]) * 32)
        finally:
            held_files._read_header = real_read  # type: ignore[assignment]
            for made in live:
                made.release()
        assert not held_files._held
        assert not held_files._pending


def test_threads_opening_one_store_at_once_never_read_beside_a_connection(tmp_path: Path) -> None:
    db = tmp_path / "laika.db"

    async def open_close(rounds: int) -> None:
        for _ in range(rounds):
            async with open_store(db) as store:
                await store.collections.list()

    def worker() -> None:
        asyncio.run(open_close(15))

    asyncio.run(open_close(1))
    store_file_guard.take_violations()
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not store_file_guard.take_violations()


def test_a_closed_connection_whose_cursor_lives_on_lets_go_of_its_file(tmp_path: Path) -> None:
    """sqlite3's `close` left the file open while a statement of the connection lived on (a
    cursor an exception's traceback keeps), after its claim was released: the next open read
    the header beside it. `HeldConnection.close` closes its cursors first."""
    from laika_host.store import held_files
    from laika_host.store._db import Database

    db = tmp_path / "laika.db"

    async def leave_a_cursor() -> object:
        async with open_store(db) as store:
            await store.collections.create("Coast")
        database = await Database.open(db)
        cursor = await database.connection.execute("SELECT * FROM sqlite_master")
        await cursor.fetchone()
        await database.close()
        return cursor

    async def open_again() -> None:
        async with open_store(db) as store:
            await store.collections.list()

    cursor = asyncio.run(leave_a_cursor())
    assert not store_file_guard._held_descriptors({str(db)}), "the file is still open"
    assert (db.stat().st_dev, db.stat().st_ino) not in held_files._held
    assert _violations_of(lambda: asyncio.run(open_again())) == []
    del cursor
