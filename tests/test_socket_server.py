"""`laika serve --socket`: the Safari relay transport, same frames as stdio."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from laika_host.native.transport.socket_server import prepare_socket_path, serving_lock

from native_client import HEADER, frame


def _serve(path: Path, home: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(Path(sys.executable).with_name("laika")), "serve", "--socket", str(path)],
        env={**os.environ, "LAIKA_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 15
    while not path.exists():
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, "the socket never appeared"
        time.sleep(0.05)


def _recv(conn: socket.socket) -> dict[str, object]:
    header = conn.recv(HEADER.size, socket.MSG_WAITALL)
    (length,) = HEADER.unpack(header)
    body = conn.recv(length, socket.MSG_WAITALL)
    message: dict[str, object] = json.loads(body)
    return message


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    path = tmp_path / "run" / "laika.sock"
    process = _serve(path, tmp_path)
    _wait_for(path, process)
    yield path, process
    process.terminate()
    process.wait(10)


def test_ping_over_the_socket(server: tuple[Path, subprocess.Popen[bytes]]) -> None:
    path, _ = server
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(path))
        conn.sendall(frame({"id": 1, "type": "host.ping"}) + frame({"id": 2, "type": "host.info"}))
        replies = {r["id"]: r for r in (_recv(conn), _recv(conn))}
    assert replies[1]["ok"] is True
    info = replies[2]["result"]
    assert isinstance(info, dict)
    assert info["transport"] == "unix-socket"


def test_two_clients_at_once(server: tuple[Path, subprocess.Popen[bytes]]) -> None:
    path, _ = server
    with socket.socket(socket.AF_UNIX) as a, socket.socket(socket.AF_UNIX) as b:
        a.connect(str(path))
        b.connect(str(path))
        a.sendall(frame({"id": "slow", "type": "host.echo", "payload": {"delay_ms": 2000}}))
        b.sendall(frame({"id": "fast", "type": "host.ping"}))
        assert _recv(b)["id"] == "fast"
        assert _recv(a)["id"] == "slow"


def test_a_second_server_on_the_same_path_is_refused(
    server: tuple[Path, subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    path, _ = server
    second = _serve(path, tmp_path)
    _, err = second.communicate(timeout=15)
    assert second.returncode == 1
    assert b"already serves" in err
    _ping(path)  # the first one still serves, its socket untouched


def _ping(path: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(path))
        conn.sendall(frame({"id": 1, "type": "host.ping"}))
        assert _recv(conn)["ok"] is True


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_stops_the_server_and_removes_its_socket(tmp_path: Path, stop: int) -> None:
    """`laika serve` left laika.sock behind after SIGTERM (the default action killed it
    before any cleanup ran)."""
    path = tmp_path / "run" / "laika.sock"
    process = _serve(path, tmp_path)
    _wait_for(path, process)
    _ping(path)
    process.send_signal(stop)
    _, err = process.communicate(timeout=15)
    assert process.returncode == 0, err
    assert not path.exists()
    assert not path.is_symlink()
    restarted = _serve(path, tmp_path)  # and the path serves again at once
    _wait_for(path, restarted)
    _ping(path)
    restarted.terminate()
    restarted.communicate(timeout=15)
    assert not path.exists()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_socket_that_is_no_longer_ours_is_never_removed(tmp_path: Path, stop: int) -> None:
    """Someone removed our socket and another server listens at the path now: stopping
    leaves theirs alone."""
    path = tmp_path / "run" / "laika.sock"
    process = _serve(path, tmp_path)
    _wait_for(path, process)
    path.unlink()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as theirs:
        theirs.bind(str(path))
        theirs.listen()
        inode = path.stat().st_ino
        process.send_signal(stop)
        _, err = process.communicate(timeout=15)
        assert process.returncode == 0, err
        assert path.is_socket()
        assert path.stat().st_ino == inode
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(str(path))  # still theirs, still live


def test_a_stale_socket_is_replaced_and_a_regular_file_is_not(tmp_path: Path) -> None:
    stale = tmp_path / "stale.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(stale))
    listener.close()  # the file stays, nobody listens
    prepare_socket_path(stale)
    assert not stale.exists()
    regular = tmp_path / "notes.txt"
    regular.write_text("mine")
    with pytest.raises(FileExistsError, match="is not a socket"):
        prepare_socket_path(regular)
    assert regular.read_text() == "mine"


def test_one_server_per_path_even_before_its_socket_exists(tmp_path: Path) -> None:
    """Two servers starting at once on a stale socket: the lock lets one through, so the
    other can never remove the socket the first has just bound."""
    path = tmp_path / "run" / "laika.sock"
    first = serving_lock(path)
    first.__enter__()
    with pytest.raises(FileExistsError, match="already serves"), serving_lock(path):
        pass
    first.__exit__(None, None, None)
    with serving_lock(path):  # released on exit
        pass
