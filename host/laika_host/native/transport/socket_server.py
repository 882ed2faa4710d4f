"""The same router over a Unix domain socket, for the Safari relay.

Safari hands native messages to the extension's containing app, not to a stdio process. That
app (or any local client) connects here and speaks the same frames. The socket is created with
mode 0600 in a 0700 directory, and a peer running as another user is refused even if the
permissions were loosened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import struct
import sys
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


def prepare_socket_path(path: Path) -> None:
    """Create the private parent dir; remove a stale socket, refuse a live one or a file."""
    ensure_private_dir(path.parent)
    if not path.exists() and not path.is_symlink():
        return
    if not path.is_socket():
        raise FileExistsError(f"{path} exists and is not a socket; choose another --socket path")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        path.unlink()  # nobody listens: a leftover from a crashed server
    else:
        raise FileExistsError(f"another Laika host already serves {path}")
    finally:
        probe.close()


async def serve_socket(path: Path, *, ready: asyncio.Event | None = None) -> None:
    """Accept connections on `path` until cancelled; each is a Session on the same router."""
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
    os.chmod(path, 0o600)
    log.info("serving on %s", path)
    if ready is not None:
        ready.set()
    try:
        async with server:
            await server.serve_forever()
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
