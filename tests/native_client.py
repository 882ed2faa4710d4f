"""Drive a real `laika` host process over pipes, exactly as a browser does."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from laika_host.native.handlers.routes import default_router
from laika_host.native.transport.session import Session, SessionOptions
from laika_host.native.transport.stdio import StreamSink

from support import schema_validator

HEADER = struct.Struct("=I")
MAX_FRAME = 1_048_576
CHROME_ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return HEADER.pack(len(body)) + body


def raw_frame(body: bytes) -> bytes:
    return HEADER.pack(len(body)) + body


class HostProcess:
    """A host subprocess; every frame it writes is checked to be well-formed."""

    def __init__(self, home: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "laika_host.native", *(args or (CHROME_ORIGIN,))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "LAIKA_HOME": str(home), **(env or {})},
        )
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.malformed: list[str] = []
        self.frame_sizes: list[int] = []
        self._reader = threading.Thread(target=self._read_frames, daemon=True)
        self._reader.start()
        self._stderr: list[bytes] = []
        self._err_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._err_reader.start()

    def _read_frames(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            header = out.read(HEADER.size)
            if not header:
                break
            if len(header) < HEADER.size:
                self.malformed.append(f"partial header {header!r}")
                break
            (length,) = HEADER.unpack(header)
            body = out.read(length)
            self.frame_sizes.append(length)
            if len(body) != length or length > MAX_FRAME:
                self.malformed.append(f"frame of {length} bytes, {len(body)} read")
                break
            try:
                message = json.loads(body)
            except ValueError:
                self.malformed.append(f"not JSON: {body[:80]!r}")
                continue
            if not isinstance(message, dict) or "id" not in message:
                self.malformed.append(f"not an envelope: {body[:80]!r}")
                continue
            self.frames.put(message)
        self.frames.put(None)

    def _read_stderr(self) -> None:
        err = self.proc.stderr
        assert err is not None
        for line in err:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def send(self, message: Any) -> None:
        self.send_raw(frame(message))

    def send_raw(self, data: bytes) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(data)
        stdin.flush()

    def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        message = self.frames.get(timeout=timeout)
        if message is None:
            raise EOFError(f"host closed stdout; stderr:\n{self.stderr}")
        return message

    def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send and return the final reply for its id (chunks reassembled, events skipped)."""
        self.send(message)
        return self.final_reply(message["id"], timeout=timeout)

    def final_reply(self, request_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        chunks: dict[int, str] = {}
        while True:
            message = self.recv(timeout)
            if message.get("id") != request_id:
                continue
            if "chunk" in message:
                chunks[message["chunk"]["index"]] = message["data"]
                if len(chunks) == message["chunk"]["count"]:
                    whole: dict[str, Any] = json.loads("".join(chunks[i] for i in sorted(chunks)))
                    if "ok" in whole:
                        return whole
                    chunks = {}
                continue
            if "ok" in message:
                return message

    def close(self, timeout: float = 15.0) -> int:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.close()
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


ARTICLE = (
    "<html><head><title>Tide tables</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>Tide tables</h1><p>High tide comes twice a day because the moon pulls the "
    "oceans; the tables list the hours for each harbour along the coast.</p>"
    "<p>Sailors read them before leaving port, and so do people who walk the flats.</p>"
    "</article></body></html>"
)


class Client:
    def __init__(self, host: HostProcess) -> None:
        self.host = host
        self.next_id = 0
        self.checked: set[str] = set()
        self.host_events: list[dict[str, Any]] = []
        """Host events (`id` null, e.g. `config.changed`) that arrived during a call."""

    def call(self, type_: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """The reply (schema-checked) plus the events seen for it under `_events`."""
        self.next_id += 1
        request_id = f"r{self.next_id}"
        self.host.send({"id": request_id, "type": type_, "payload": payload or {}})
        events = []
        chunks: dict[int, str] = {}
        while True:
            message = self.host.recv(timeout=30)
            if message.get("id") is None and "event" in message:
                self.host_events.append(message)
            if message.get("id") != request_id:
                continue
            if "chunk" in message:  # a reply over the chunk threshold, reassembled
                chunks[message["chunk"]["index"]] = message["data"]
                if len(chunks) < message["chunk"]["count"]:
                    continue
                message = json.loads("".join(chunks[i] for i in sorted(chunks)))
            if "event" in message:
                schema_validator("native/event.schema.json").validate(message)
                events.append(message)
                continue
            if "ok" in message:
                break
        if message["ok"]:
            schema_validator(f"native/types/{type_}.result.schema.json").validate(message["result"])
            self.checked.add(type_)
        else:
            schema_validator("native/error_reply.schema.json").validate(message)
        return {**message, "_events": events}


async def serve_in_process(
    requests: list[dict[str, Any]], options: SessionOptions | None = None
) -> list[dict[str, Any]]:
    """Run a real Session in this process over a socket pair: send `requests`, end the
    input, and return every message the session wrote."""
    host_end, client_end = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=host_end)
    served = asyncio.create_task(
        Session(reader, StreamSink(writer), default_router(), options).run()
    )
    client_reader, client_writer = await asyncio.open_connection(sock=client_end)
    client_writer.write(b"".join(frame(request) for request in requests))
    await client_writer.drain()
    client_writer.write_eof()
    messages = []
    while header := await client_reader.read(HEADER.size):
        (length,) = HEADER.unpack(header)
        messages.append(json.loads(await client_reader.readexactly(length)))
    await served
    client_writer.close()
    return messages
