"""A tiny Marionette client (Firefox's own remote protocol, `--marionette`): length-prefixed
JSON over TCP, no driver or library. Enough to run privileged script in Firefox's parent
process, which is how a test reaches an extension's background page (Firefox has no CDP)."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest


def active_port(profile: Path, seconds: float = 60) -> int:
    """The port Firefox listens on (with `marionette.port` 0 it picks one and writes it to
    the profile's MarionetteActivePort)."""
    path = profile / "MarionetteActivePort"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text.isdigit():
            return int(text)
        time.sleep(0.1)
    pytest.fail(f"Firefox wrote no Marionette port to {path} within {seconds} s")


class Marionette:
    """One connection: `call(command, **params)` returns the command's result."""

    def __init__(self, port: int, timeout: float = 60) -> None:
        self._socket = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self._buffer = b""
        self._next = 0
        hello = self._read()
        assert isinstance(hello, dict), hello
        assert hello.get("marionetteProtocol") == 3, hello

    def call(self, command: str, **params: object) -> Any:
        self._next += 1
        body = json.dumps([0, self._next, command, params]).encode()
        self._socket.sendall(str(len(body)).encode() + b":" + body)
        while True:
            message = self._read()
            if isinstance(message, list) and message[:2] == [1, self._next]:
                if message[2]:
                    pytest.fail(f"Marionette {command} failed: {message[2]}")
                return message[3]

    def _read(self) -> Any:
        while b":" not in self._buffer:
            self._receive()
        length, rest = self._buffer.split(b":", 1)
        size = int(length)
        self._buffer = rest
        while len(self._buffer) < size:
            self._receive()
        body, self._buffer = self._buffer[:size], self._buffer[size:]
        return json.loads(body)

    def _receive(self) -> None:
        data = self._socket.recv(1 << 16)
        if not data:
            pytest.fail("Firefox closed the Marionette connection")
        self._buffer += data

    def close(self) -> None:
        self._socket.close()
