"""A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`, shared by the
browser tests: no driver, no WebSocket library, just Chromium's own fds 3 and 4."""

from __future__ import annotations

import json
import os
import select
import subprocess

import pytest

HEADLESS_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--no-default-browser-check",
)
"""Chromium flags every browser test uses: headless, quiet, no first-run or sync."""


class DevTools:
    """CDP over `--remote-debugging-pipe` (fd 3 in, fd 4 out, NUL-ended JSON).

    `call` waits for its own reply; events that arrive meanwhile are kept in `events`, so a
    test can read what the page did (scripts parsed, dialogs opened) after the fact. Pass
    `session_id` (from `Target.attachToTarget` with `flatten=True`) to talk to one page.
    """

    def __init__(
        self, chromium: str, args: list[str], env: dict[str, str], timeout: float | None = None
    ) -> None:
        from support import require_marker

        require_marker("browser", "starts Chromium")
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        wiring = f'exec "$0" "$@" 3<&{commands_read} 4>&{replies_write}'
        self.process = subprocess.Popen(
            ["bash", "-c", wiring, chromium, "--remote-debugging-pipe", *args],
            pass_fds=(commands_read, replies_write),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands_read)
        os.close(replies_write)
        self._buffer = b""
        self._next = 0
        self._timeout = timeout
        self.events: list[dict[str, object]] = []

    def call(
        self, method: str, session_id: str | None = None, **params: object
    ) -> dict[str, object]:
        self._next += 1
        command: dict[str, object] = {"id": self._next, "method": method, "params": params}
        if session_id is not None:
            command["sessionId"] = session_id
        os.write(self._commands, json.dumps(command).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    pytest.fail(f"{method} failed: {reply['error']}")
                result = reply.get("result", {})
                assert isinstance(result, dict)
                return result
            if "method" in reply:
                self.events.append(reply)

    def take_events(self, method: str) -> list[dict[str, object]]:
        """Remove and return the events named `method` received so far."""
        taken = [event for event in self.events if event["method"] == method]
        self.events = [event for event in self.events if event["method"] != method]
        return taken

    def _read(self) -> dict[str, object]:
        while b"\0" not in self._buffer:
            if self._timeout is not None:
                ready, _, _ = select.select([self._replies], [], [], self._timeout)
                if not ready:
                    pytest.fail(f"Chromium sent nothing for {self._timeout} s")
            data = os.read(self._replies, 1 << 16)
            if not data:
                pytest.fail("Chromium closed the DevTools pipe")
            self._buffer += data
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed = json.loads(message)
        assert isinstance(parsed, dict)
        return parsed

    def close(self) -> None:
        os.close(self._commands)
        os.close(self._replies)
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
