"""`laika db check`, `laika db backup`, a lock held by another program, and doctor's store
check (issue 14, item 3). Real files, real subprocesses: a concurrent writer process, a
foreign process holding SQLite's exclusive lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings

from laika_host.cli import main
from laika_host.store import open_store
from test_store_damage import DAMAGE, HEADER_FIELDS, Damage, Healthy, make_healthy

from native_client import Client, HostProcess
from support import run_laika


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "LAIKA_HOME": str(home), **extra}


def _fill(db: Path, notes: int = 20) -> None:
    async def fill() -> None:
        async with open_store(db) as store:
            for i in range(notes):
                await store.sources.add_note("Coast", f"# Note {i}\n\n" + f"tide{i} " * 800)

    asyncio.run(fill())


def _count(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
        return int(connection.execute("SELECT count(*) FROM sources").fetchone()[0])


@pytest.fixture(scope="module")
def healthy_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("healthy") / "laika.db"
    _fill(db)
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


# --- laika db check ------------------------------------------------------------------------


@pytest.mark.slow  # > 3 s with the cores busy
def test_check_says_ok_for_a_healthy_store_and_for_none_yet(home: Path, healthy_db: Path) -> None:
    missing = run_laika("db", "check", env=_env(home))
    assert missing.returncode == 0
    assert "no database" in missing.stdout
    assert not (home / "laika.db").exists()  # checking does not create it
    (home / "laika.db").write_bytes(healthy_db.read_bytes())
    for args in (["db", "check"], ["db", "check", "--full"]):
        done = run_laika(*args, env=_env(home))
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"ok: {home / 'laika.db'}")
    as_json = json.loads(run_laika("db", "check", "--full", "--json", env=_env(home)).stdout)
    assert as_json == {
        "path": str(home / "laika.db"),
        "exists": True,
        "check": "integrity_check",
        "ok": True,
        "problems": [],
    }


@pytest.mark.slow  # > 3 s with the cores busy
def test_check_finds_a_damaged_page_that_commands_do_not_notice(
    home: Path, healthy_db: Path
) -> None:
    data = bytearray(healthy_db.read_bytes())
    page = 8192
    data[4 * page : 5 * page] = bytes(page)  # an interior page zeroed
    db = home / "laika.db"
    db.write_bytes(bytes(data))
    done = run_laika("db", "check", env=_env(home))
    assert done.returncode == 1
    assert f"{db} is not ok (quick_check)" in done.stderr
    assert "Page 5" in done.stderr
    assert "*** in database" not in done.stderr
    assert "Back up and restore" in done.stderr
    assert db.read_bytes() == bytes(data)


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Healthy:
    return make_healthy(tmp_path_factory.mktemp("healthy"))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(damage=DAMAGE)
# the header's page count zeroed: FTS5's check, an INSERT, committed and SQLite rewrote it
@example(damage=Damage(kind="header", where=0.0, fill="zeros", field=HEADER_FIELDS.index((28, 4))))
def test_check_reads_only_and_never_fails_with_a_traceback(
    tmp_path: Path, healthy: Healthy, damage: Damage
) -> None:
    db = tmp_path / "checked.db"
    for old in tmp_path.glob("checked.db*"):
        old.unlink()
    files = damage.apply(healthy)
    for name, data in files.items():
        (tmp_path / name.replace("laika.db", "checked.db")).write_bytes(data)
    result = CliRunner().invoke(main, ["db", "check", "--full", str(db)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("a traceback") from result.exception
    assert result.exit_code in (0, 1)
    if result.exit_code == 1:
        assert str(db) in result.stderr
    if "laika.db-wal" not in files:  # (closing the last connection checkpoints a -wal: SQLite's)
        contents = files["laika.db"]
        assert hashlib.sha256(db.read_bytes()).digest() == hashlib.sha256(contents).digest()


# --- laika db backup -----------------------------------------------------------------------


@pytest.mark.slow  # > 3 s with the cores busy
def test_backup_is_private_standalone_and_refuses_to_overwrite(
    home: Path, healthy_db: Path, tmp_path: Path
) -> None:
    (home / "laika.db").write_bytes(healthy_db.read_bytes())
    target = tmp_path / "keep.db"
    done = run_laika("db", "backup", str(target), env=_env(home))
    assert done.returncode == 0, done.stderr
    assert f"to {target}" in done.stdout
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not target.with_name("keep.db-wal").exists()
    assert _count(target) == _count(home / "laika.db")
    assert run_laika("db", "check", "--full", str(target), env=_env(home)).returncode == 0
    before = target.read_bytes()
    refused = run_laika("db", "backup", str(target), env=_env(home))
    assert refused.returncode == 1
    assert "--force" in refused.stderr
    assert target.read_bytes() == before
    assert run_laika("db", "backup", str(target), "--force", env=_env(home)).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "keep.db"]  # no leftovers


def test_backup_of_a_broken_store_fails_clearly_and_writes_nothing(
    home: Path, tmp_path: Path
) -> None:
    (home / "laika.db").write_bytes(b"shopping list\n" * 100)
    target = tmp_path / "keep.db"
    done = run_laika("db", "backup", str(target), env=_env(home))
    assert done.returncode == 1
    assert str(home / "laika.db") in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    nothing = run_laika("db", "backup", str(target), env=_env(tmp_path / "empty"))
    assert nothing.returncode == 1
    assert "nothing to back up" in nothing.stderr


WRITER = """
import asyncio, sys
from pathlib import Path
from laika_host.store import open_store

async def main():
    async with open_store(Path(sys.argv[1])) as store:
        i = 0
        while True:  # until killed: a note of ~16 KB per short write transaction
            await store.sources.add_note("Busy", f"# Busy {i}\\n\\n" + f"word{i} " * 2000)
            i += 1

asyncio.run(main())
"""


@pytest.mark.slow  # > 3 s with the cores busy
def test_backups_taken_while_another_process_writes_are_whole(home: Path, tmp_path: Path) -> None:
    db = home / "laika.db"
    _fill(db, notes=5)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], stderr=subprocess.PIPE)
    counts = []
    try:
        while _count(db) < 20:  # the writer is under way
            assert writer.poll() is None, writer.stderr
            time.sleep(0.05)
        for i in range(3):
            target = tmp_path / f"backup{i}.db"
            done = run_laika("db", "backup", str(target), env=_env(home))
            assert done.returncode == 0, done.stderr
            check = run_laika("db", "check", "--full", str(target), env=_env(home))
            assert check.returncode == 0, check.stderr
            counts.append(_count(target))
        assert writer.poll() is None  # it kept writing all along, undisturbed
    finally:
        writer.kill()
        writer.wait()
    assert counts == sorted(counts)
    assert counts[0] >= 20
    assert counts[-1] > counts[0]  # the writer went on between backups
    assert counts[-1] <= _count(db)


@pytest.mark.slow  # > 3 s with the cores busy
def test_restore_as_the_readme_says(home: Path, tmp_path: Path) -> None:
    db = home / "laika.db"
    _fill(db, notes=3)
    backup = tmp_path / "keep.db"
    assert run_laika("db", "backup", str(backup), env=_env(home)).returncode == 0
    _fill(db, notes=2)  # later work, then the store breaks
    db.write_bytes(db.read_bytes()[:5000])
    # stop the browser/host, copy the backup over laika.db, remove -wal/-shm, check
    db.write_bytes(backup.read_bytes())
    for suffix in ("-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    assert run_laika("db", "check", env=_env(home)).returncode == 0
    listed = run_laika("sources", "list", "--json", env=_env(home))
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)["sources"]) == 3


# --- a lock held by another program ----------------------------------------------------------


@contextlib.contextmanager
def _foreign_lock(db: Path) -> Iterator[int]:
    """A plain Python sqlite3 process holding the file in exclusive locking mode."""
    script = (
        "import sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA locking_mode=EXCLUSIVE')\n"
        "c.execute('BEGIN EXCLUSIVE')\n"
        "c.execute('SELECT count(*) FROM sqlite_master').fetchone()\n"
        "print('locked', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow  # > 3 s with the cores busy
def test_a_foreign_lock_is_one_message_naming_the_holder(home: Path, healthy_db: Path) -> None:
    db = home / "laika.db"
    db.write_bytes(healthy_db.read_bytes())
    env = _env(home, LAIKA_LOCK_WAIT_SECONDS="1")
    with _foreign_lock(db) as pid:
        for command in (["sources", "list"], ["ask", "why tides?"], ["db", "check"]):
            done = run_laika(*command, env=env)
            assert done.returncode == 1, (command, done.stdout)
            assert "Traceback" not in done.stderr
            assert str(db) in done.stderr
            assert "locked" in done.stderr
            assert f"pid {pid} (python" in done.stderr
            assert "Close the program" in done.stderr
        host = HostProcess(home, env={"LAIKA_LOCK_WAIT_SECONDS": "1"})
        try:
            reply = Client(host).call("sources.list", {})
            assert reply["error"]["code"] == "unavailable", reply
            assert f"pid {pid}" in reply["error"]["message"]
        finally:
            host.kill()
    assert run_laika("sources", "list", env=env).returncode == 0  # released: all is well


# --- laika doctor ------------------------------------------------------------------------------


def test_doctor_reports_the_store_check(home: Path, healthy_db: Path) -> None:
    env = _env(home, HOME=str(home))
    (home / "laika.db").write_bytes(healthy_db.read_bytes())
    found = json.loads(run_laika("doctor", "--json", "--no-ping", env=env).stdout)
    assert found["data"]["ok"]
    (home / "laika.db").write_bytes(b"not a database\n" * 100)
    done = run_laika("doctor", "--no-ping", env=env)
    assert done.returncode == 1
    assert "FAIL  database quick_check" in done.stdout
    assert "problems with: data" in done.stdout
