"""Other local users cannot read Laika's data (issue 12, finding 5).

Whoever creates the data directory first (a CLI command, the host a browser starts, the
socket server, `laika install`), and under any umask, the directory ends up 0700, every
directory in it 0700 and every file 0600 (the launcher 0700: the user must run it). A data
directory the user named that already existed keeps its mode; what we create in it is still
private. Each creator runs as a real process with a permissive umask.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from native_client import ARTICLE, HEADER, Client, HostProcess, frame
from support import laika_executable

UMASKS = [0o022, 0o000]
LAUNCHER = Path("bin") / "laika-native-host"


@contextmanager
def process_umask(mask: int) -> Iterator[None]:
    """Children started inside inherit `mask` (ours may have been tightened by earlier tests
    that opened a store in this process)."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _modes(home: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(home.stat().st_mode)}
    for path in home.rglob("*"):
        found[str(path.relative_to(home))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def assert_private(home: Path, *, home_mode: int = 0o700) -> dict[str, int]:
    modes = _modes(home)
    assert modes.pop(".") == home_mode, f"{home}: {oct(stat.S_IMODE(home.stat().st_mode))}"
    for name, mode in modes.items():
        path = home / name
        if path.is_dir() or name == str(LAUNCHER):
            assert mode == 0o700, f"{name}: {oct(mode)}"
        else:
            assert mode == 0o600, f"{name}: {oct(mode)}"
    return modes


def _fresh(tmp_path: Path, existing: bool) -> Path:
    """A data dir the user named and made 0755 already, or one nobody created yet (with a
    missing parent too)."""
    if existing:
        home = tmp_path / "mine"
        home.mkdir()
        home.chmod(0o755)
        return home
    return tmp_path / "not-yet" / "laika"


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "LAIKA_HOME": str(home), "PYTHONUTF8": "1", **extra}


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("existing", [False, True], ids=["created", "user-named"])
@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_a_cli_command_creates_private_data(tmp_path: Path, mask: int, existing: bool) -> None:
    home = _fresh(tmp_path, existing)
    for args in (["collections", "create", "Coast"], ["sources", "note", "-"]):
        done = subprocess.run(
            [laika_executable(), *args],
            input=b"# Private\n\nwhat I wrote",
            capture_output=True,
            env=_env(home),
            umask=mask,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    modes = assert_private(home, home_mode=0o755 if existing else 0o700)
    assert "laika.db" in modes
    if not existing:
        assert stat.S_IMODE(home.parent.stat().st_mode) == 0o700  # a parent we created too


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("existing", [False, True], ids=["created", "user-named"])
@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_the_host_creates_private_data(tmp_path: Path, mask: int, existing: bool) -> None:
    home = _fresh(tmp_path, existing)
    with process_umask(mask):
        host = HostProcess(home)
    client = Client(host)
    try:
        assert client.call("host.ping")["ok"]
        saved = client.call("sources.save_page", {"url": "https://t.test/a", "html": ARTICLE})
        assert saved["ok"], saved
        modes = assert_private(home, home_mode=0o755 if existing else 0o700)
        assert {"laika.db", "laika.db-wal", "laika.db-shm", "logs/host.log"} <= set(modes)
    finally:
        host.close()
    assert_private(home, home_mode=0o755 if existing else 0o700)


@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_the_socket_server_creates_private_data(tmp_path: Path, mask: int) -> None:
    home = tmp_path / "not-yet" / "laika"
    server = subprocess.Popen(
        [laika_executable(), "serve"],
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        umask=mask,
    )
    path = home / "laika.sock"
    try:
        deadline = time.monotonic() + 15
        while not path.exists():
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            assert time.monotonic() < deadline, "the socket never appeared"
            time.sleep(0.05)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(path))
            conn.sendall(frame({"id": 1, "type": "collections.create", "payload": {"title": "C"}}))
            (length,) = HEADER.unpack(conn.recv(HEADER.size, socket.MSG_WAITALL))
            assert b'"ok": true' in conn.recv(length, socket.MSG_WAITALL).replace(b'":t', b'": t')
        modes = assert_private(home)
        assert {"laika.sock", "laika.db", "logs/serve.log"} <= set(modes)
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_install_writes_a_private_launcher(tmp_path: Path, mask: int) -> None:
    home = tmp_path / "not-yet" / "laika"
    user_home = tmp_path / "user"
    user_home.mkdir()
    done = subprocess.run(
        [laika_executable(), "install", "--browser", "chrome"],
        capture_output=True,
        env=_env(home, HOME=str(user_home)),
        umask=mask,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    modes = assert_private(home)
    assert modes[str(LAUNCHER)] == 0o700
    assert os.access(home / LAUNCHER, os.X_OK)


def test_database_files_an_older_laika_left_open_become_private(tmp_path: Path) -> None:
    import asyncio
    import sqlite3

    from laika_host.store import open_store
    from laika_host.store.held_files import claim

    db = tmp_path / "laika.db"

    async def work(title: str) -> None:
        async with open_store(db) as store:
            await store.collections.create(title)

    asyncio.run(work("Inbox"))  # a Laika file, then opened to others as an older Laika left it
    db.chmod(0o644)
    with process_umask(0o022):
        counted = claim(db)  # a connection of this process: the store must not read beside it
        connection = sqlite3.connect(db)
        connection.execute("SELECT count(*) FROM collections").fetchall()  # -wal, -shm appear
        old = [db, db.with_name("laika.db-wal"), db.with_name("laika.db-shm")]
        assert all(stat.S_IMODE(path.stat().st_mode) == 0o644 for path in old)
        asyncio.run(work("Coast"))
        connection.close()
        counted.release()
    assert {path.name: stat.S_IMODE(path.stat().st_mode) for path in old if path.exists()} == {
        path.name: 0o600 for path in old if path.exists()
    }
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
