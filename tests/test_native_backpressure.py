"""Back-pressure: a client that stops reading cannot make the host queue replies without bound.

A real host process gets requests whose replies are 16 MB each from a client that reads
nothing; its peak memory (VmHWM in /proc) must stay far below what holding every reply would
take, and once the client reads, every reply and a ping still arrive.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from laika_host.native.transport.session import SessionOptions

from native_client import CHROME_ORIGIN, HEADER, frame, serve_in_process

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")

MB = 1024 * 1024
REPLY_BYTES = 16_000_000
UNIT = "x" * 1000
REPEAT = REPLY_BYTES // 1003


def _status(pid: int, field: str) -> int:
    """A `Vm*` field of /proc/<pid>/status, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"{field} not in /proc/{pid}/status")


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _wait_until_idle(pid: int, quiet_seconds: float = 1.5, limit: float = 120) -> None:
    """Until the process has used no CPU for `quiet_seconds` (it is blocked on us)."""
    deadline = time.monotonic() + limit
    last, quiet_since = _cpu_ticks(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = _cpu_ticks(pid)
        if now != last:
            last, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_seconds:
            return
    raise AssertionError("the host never went idle")


class _SlowReader:
    """Reads the host's frames only when told to; joins chunks; keeps final replies."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.replies: dict[Any, dict[str, Any]] = {}
        self.reply_sizes: dict[Any, int] = {}
        self.arrived: dict[Any, float] = {}
        self._go = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def start_reading(self) -> None:
        self._go.set()

    def _run(self) -> None:
        self._go.wait()
        out = self.proc.stdout
        assert out is not None
        chunks: dict[Any, list[str]] = {}
        while header := out.read(HEADER.size):
            (length,) = HEADER.unpack(header)
            message = json.loads(out.read(length))
            if "chunk" in message:
                parts = chunks.setdefault(message["id"], [])
                parts.append(message["data"])
                if len(parts) < message["chunk"]["count"]:
                    continue
                text = "".join(chunks.pop(message["id"]))
                self.reply_sizes[message["id"]] = len(text)
                message = json.loads(text)
            if "ok" in message:
                self.replies[message["id"]] = message
                self.arrived[message["id"]] = time.monotonic()

    def wait_for(self, request_id: Any, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while request_id not in self.replies:
            assert time.monotonic() < deadline, f"no reply for {request_id!r}"
            time.sleep(0.02)
        return self.replies[request_id]


def _start_host(home: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "laika_host.native", CHROME_ORIGIN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "LAIKA_HOME": str(home)},
    )


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    stdin = proc.stdin
    assert stdin is not None
    stdin.write(frame(message))
    stdin.flush()


@pytest.mark.slow  # > 5 s here
@pytest.mark.parametrize(
    ("data", "delay_ms"),
    [(UNIT, 0), ([UNIT], 300), (UNIT, 300)],
    ids=["one-string-at-once", "a-list-after-a-delay", "one-string-after-a-delay"],
)
def test_unread_replies_do_not_grow_the_host_without_bound(
    tmp_path: Path, data: Any, delay_ms: int
) -> None:
    """At once: each result is a 16 MB string made the moment its handler starts, so only
    handlers that start are held. After a delay: every handler has started before the first
    reply is queued, and each result (a list of 16,000 references to one string) is small
    until encoded, so only encoding is held. A 16 MB string after a delay: the handler asks
    for room (`RequestContext.room_for_output`) before it builds its result."""
    count = 40  # 640 MB of replies if the host kept them all
    echo = {"data": data, "repeat": REPEAT, "delay_ms": delay_ms}
    proc = _start_host(tmp_path)
    reader = _SlowReader(proc)
    try:
        _send(proc, {"id": "warm", "type": "host.echo", "payload": {"data": 1}})
        for n in range(count):
            _send(proc, {"id": n, "type": "host.echo", "payload": echo})
        _send(proc, {"id": "ping", "type": "host.ping"})
        time.sleep(delay_ms / 1000)
        _wait_until_idle(proc.pid)
        peak = _status(proc.pid, "VmHWM")
        assert peak < 200 * MB, f"the host peaked at {peak // MB} MB with nobody reading"

        reader.start_reading()
        assert reader.wait_for("ping", timeout=120)["ok"] is True
        for n in range(count):
            reply = reader.wait_for(n, timeout=120)
            assert reply["ok"] is True
            assert len(reply["result"]["data"]) == REPEAT * len(data)
        _send(proc, {"id": "after", "type": "host.ping"})
        assert reader.wait_for("after", timeout=30)["ok"] is True
        stdin = proc.stdin
        assert stdin is not None
        stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow  # > 3 s with the cores busy
def test_a_ping_overtakes_a_flood_of_big_replies(tmp_path: Path) -> None:
    """The client reads normally: a ping sent behind 20 requests for 16 MB replies is answered
    before the second of them has arrived."""
    proc = _start_host(tmp_path)
    reader = _SlowReader(proc)
    reader.start_reading()
    try:
        for n in range(20):
            _send(proc, {"id": n, "type": "host.echo", "payload": {"data": UNIT, "repeat": REPEAT}})
        _send(proc, {"id": "ping", "type": "host.ping"})
        assert reader.wait_for("ping", timeout=60)["ok"] is True
        for n in range(20):
            assert reader.wait_for(n, timeout=120)["ok"] is True
        big_before_ping = [n for n in range(20) if reader.arrived[n] < reader.arrived["ping"]]
        assert len(big_before_ping) <= 1, big_before_ping
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(
    ("options", "most"),
    [
        (SessionOptions(max_inflight=4), 4),
        (SessionOptions(max_inflight_request_bytes=25_000), 3),  # each echo frame is ~10 kB
    ],
    ids=["by-count", "by-request-bytes"],
)
def test_requests_in_flight_are_bounded(options: SessionOptions, most: int) -> None:
    """Past the bound, frames stay unread until a request finishes; all are answered."""
    echoes = [
        {"id": n, "type": "host.echo", "payload": {"data": "y" * 10_000, "delay_ms": 150}}
        for n in range(12)
    ]
    messages = asyncio.run(serve_in_process([*echoes, {"id": "i", "type": "host.info"}], options))
    replies = {message["id"]: message for message in messages}
    assert all(replies[n]["ok"] for n in range(12))
    assert 1 <= replies["i"]["result"]["inflight"] <= most
