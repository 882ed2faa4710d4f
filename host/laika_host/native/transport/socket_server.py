"""The same router over a Unix domain socket, for the Safari relay.

Safari hands native messages to the extension's containing app, not to a stdio process. That
app (or any local client) connects here and speaks the same frames. The socket is created with
mode 0600 in a 0700 directory, and a peer running as another user is refused even if the
permissions were loosened.

The socket file is the server's for as long as it runs, and only then. A lock next to it
(`<socket>.lock`, held for the server's life) makes one server per path: a second is refused,
and a socket file nobody holds the lock for is a leftover, removed at start. SIGTERM, SIGINT
and SIGHUP stop the server as a normal exit does: it removes the socket it bound (the same
file: device and inode), never one that replaced it (another server's), then releases the
lock. Only SIGKILL leaves the file; the next start removes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import struct
import sys
from collections.abc import Iterator
from pathlib import Path

from ...paths import ensure_private_dir
from ..handlers.routes import default_router, default_watchers
from .session import Caller, Session, SessionOptions
from .stdio import StreamSink

log = logging.getLogger("laika.socket")


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end, where the platform tells us."""
    if hasattr(socket, "SO_PEERCRED"):  # Linux: struct ucred {pid, uid, gid}
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return int(struct.unpack("3i", raw)[1])
    if sys.platform == "darwin":  # LOCAL_PEERCRED: struct xucred {version, uid, ...}
        raw = sock.getsockopt(0, 0x001, struct.calcsize("Ii"))
        return int(struct.unpack("Ii", raw[: struct.calcsize("Ii")])[1])
    return None


STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name)
)
"""Signals that stop the server cleanly (its socket removed)."""
Identity = tuple[int, int]


def identity(path: Path) -> Identity | None:
    """The socket file at `path` as (device, inode), or None when there is none."""
    try:
        status = path.lstat()
    except FileNotFoundError:
        return None
    return (status.st_dev, status.st_ino) if path.is_socket() else None


def remove_if_ours(path: Path, ours: Identity | None) -> bool:
    """Remove the socket at `path` if it is still the file this server bound; leave any
    other (another server's, bound after ours was removed)."""
    if ours is None or identity(path) != ours:
        log.info("left %s: it is not the socket this server bound", path)
        return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return True


@contextlib.contextmanager
def serving_lock(path: Path) -> Iterator[None]:
    """Hold `<path>.lock` while serving: one server per socket path (FileExistsError when
    another holds it); without `fcntl` (not Unix) there is no lock, only the probe."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - the socket server runs on Unix
        yield
        return
    ensure_private_dir(path.parent)
    lock = path.with_name(path.name + ".lock")
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FileExistsError(f"another Laika host already serves {path}") from None
        yield
    finally:
        os.close(descriptor)  # releases the lock


def prepare_socket_path(path: Path) -> None:
    """Create the private parent dir; remove a stale socket, refuse a live one or a file."""
    ensure_private_dir(path.parent)
    if not path.exists() and not path.is_symlink():
        return
    if not path.is_socket():
        raise FileExistsError(f"{path} exists and is not a socket; choose another socket path")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        path.unlink()  # nobody listens: a leftover from a crashed server
    else:
        raise FileExistsError(f"another Laika host already serves {path}")
    finally:
        probe.close()


def run_socket_server(path: Path) -> None:
    """Serve on `path` until a stop signal (`STOP_SIGNALS`) or an error; the socket file is
    removed either way (see the module docstring)."""

    async def main() -> None:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        for stop in STOP_SIGNALS:
            loop.add_signal_handler(stop, _stop, task, stop)
        with contextlib.suppress(asyncio.CancelledError):
            await serve_socket(path)

    asyncio.run(main())


def _stop(task: asyncio.Task[None], stop: signal.Signals) -> None:
    log.info("stopping on %s", stop.name)
    task.cancel()


async def serve_socket(path: Path, *, ready: asyncio.Event | None = None) -> None:
    """Accept connections on `path` until cancelled; each is a Session on the same router.
    The socket this call bound is removed when it ends, however it ends."""
    with serving_lock(path):
        await _serve_locked(path, ready)


async def _serve_locked(path: Path, ready: asyncio.Event | None) -> None:
    router = default_router()
    prepare_socket_path(path)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        uid = peer_uid(sock) if sock is not None else None
        if uid is not None and uid != os.getuid():
            log.warning("refused a connection from uid %s (this host runs as %s)", uid, os.getuid())
            writer.close()
            return
        options = SessionOptions(
            "unix-socket", caller=Caller(browser="socket-client"), watchers=default_watchers()
        )
        await Session(reader, StreamSink(writer), router, options).run()

    old_umask = os.umask(0o177)  # the socket file is created 0600, with no window in between
    try:
        server = await asyncio.start_unix_server(handle, path=str(path))
    finally:
        os.umask(old_umask)
    ours = identity(path)
    try:
        os.chmod(path, 0o600)
        log.info("serving on %s", path)
        if ready is not None:
            ready.set()
        async with server:
            await server.serve_forever()
    finally:
        if remove_if_ours(path, ours):
            log.info("removed %s", path)
