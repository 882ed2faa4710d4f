"""The stdio transport: how a browser runs the host.

Anything but frames on stdout breaks the browser's port, so the first thing the host does is
move the real stdout to a private descriptor and point descriptor 1 at stderr: a stray
`print()`, a library warning or a C extension writing to stdout ends up in stderr, never in the
frame stream.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import threading


def protect_stdout() -> int:
    """Reserve the real stdout for frames; returns its new descriptor."""
    sys.stdout.flush()
    frames_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return frames_fd


def _is_stream(fd: int) -> bool:
    """Pipes and sockets go to the event loop. Character devices do not: epoll refuses
    `/dev/null` (EPERM, raised in a callback, so the host hung with a traceback), and a
    thread or a plain write serves a device as well as a regular file."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class StreamSink:
    """Frames to an asyncio transport (pipe or socket), with back-pressure."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, frame: bytes) -> None:
        self._writer.write(frame)
        await self._writer.drain()

    async def close(self) -> None:
        try:
            self._writer.close()
            await self._writer.wait_closed()
        except (BrokenPipeError, ConnectionResetError):
            pass


class FileSink:
    """Frames to a regular file or a device (`laika host > frames.bin`, `> /dev/null`)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, frame: bytes) -> None:
        view = memoryview(frame)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    async def close(self) -> None:
        os.close(self._fd)


async def open_stdio(
    frames_fd: int, input_fd: int = 0
) -> tuple[asyncio.StreamReader, StreamSink | FileSink]:
    """A reader over stdin and a sink over the reserved stdout descriptor."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    if _is_stream(input_fd):
        pipe = os.fdopen(input_fd, "rb", buffering=0, closefd=False)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    else:
        _feed_from_thread(loop, reader, input_fd)
    if not _is_stream(frames_fd):
        return reader, FileSink(frames_fd)
    out = os.fdopen(frames_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), out
    )
    return reader, StreamSink(asyncio.StreamWriter(transport, protocol, None, loop))


def _feed_from_thread(
    loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, fd: int
) -> None:
    """Regular files and devices cannot be watched by the event loop; read them on a thread."""

    def pump() -> None:
        while data := os.read(fd, 1 << 16):
            loop.call_soon_threadsafe(reader.feed_data, data)
        loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="laika-stdin", daemon=True).start()
