"""Native host benchmark: cold start to first reply, and ping cost over pipes.

    .venv/bin/python bench/native_host.py [--runs 30] [--pings 5000]

Both hosts are measured in the same run, over real pipes, the way Chromium drives them:
ours (`python -m laika_host.native`, what the installed launcher runs) and a bare-Python
minimal host (bench/minimal_host.py). Goals from issue 3: cold start <= 150 ms, host-side
ping cost <= 0.1 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HEADER = struct.Struct("=I")
HERE = Path(__file__).resolve().parent
ORIGIN = "chrome-extension://hjakcefdlchhianfooejnlonihdbobdc/"
HOSTS = {
    "laika": [sys.executable, "-m", "laika_host.native", ORIGIN],
    "minimal": [sys.executable, str(HERE / "minimal_host.py"), ORIGIN],
}


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return HEADER.pack(len(body)) + body


def _read_reply(stream: object) -> dict[str, object]:
    read = stream.read  # type: ignore[attr-defined]
    (length,) = HEADER.unpack(read(4))
    reply: dict[str, object] = json.loads(read(length))
    return reply


def _spawn(command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )


def cold_start_ms(command: list[str], env: dict[str, str]) -> float:
    """Spawn, send one ping, read the reply: what a browser's first message waits for."""
    started = time.perf_counter()
    process = _spawn(command, env)
    assert process.stdin
    assert process.stdout
    process.stdin.write(_frame({"id": 1, "type": "host.ping"}))
    process.stdin.flush()
    _read_reply(process.stdout)
    elapsed = (time.perf_counter() - started) * 1000
    process.stdin.close()
    process.wait()
    return elapsed


def _write_all(stream: Any, data: bytes) -> None:
    stream.write(data)
    stream.flush()


def ping_costs_ms(command: list[str], env: dict[str, str], pings: int) -> tuple[float, float]:
    """(median round trip, amortized cost per ping when pipelined) on one warm process."""
    process = _spawn(command, env)
    assert process.stdin
    assert process.stdout
    ping = _frame({"id": 0, "type": "host.ping"})
    rtts = []
    for _ in range(pings):
        started = time.perf_counter()
        process.stdin.write(ping)
        process.stdin.flush()
        _read_reply(process.stdout)
        rtts.append((time.perf_counter() - started) * 1000)
    batch = b"".join(_frame({"id": i, "type": "host.ping"}) for i in range(pings))
    started = time.perf_counter()
    # written from a thread while this one reads: a host that answers each frame before it
    # reads the next (the minimal peer) would otherwise fill the reply pipe and deadlock
    writer = threading.Thread(target=_write_all, args=(process.stdin, batch))
    writer.start()
    for _ in range(pings):
        _read_reply(process.stdout)
    writer.join()
    pipelined = (time.perf_counter() - started) * 1000 / pings
    process.stdin.close()
    process.wait()
    return statistics.median(rtts), pipelined


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="cold starts per host")
    parser.add_argument("--pings", type=int, default=5000, help="pings per warm host")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "LAIKA_HOME": home}
        cold = {name: [] for name in HOSTS}
        for _ in range(args.runs):  # interleaved, so background load hits both alike
            for name, command in HOSTS.items():
                cold[name].append(cold_start_ms(command, env))
        pings = {name: ping_costs_ms(command, env, args.pings) for name, command in HOSTS.items()}
    ours, peer = statistics.median(cold["laika"]), statistics.median(cold["minimal"])
    print(f"native host benchmark: {args.runs} cold starts, {args.pings} pings per host")
    print(f"{'':34} {'laika':>10} {'minimal':>10} {'ratio':>7}  goal")
    print(
        f"{'cold start to first reply (median)':34} {ours:8.1f}ms {peer:8.1f}ms "
        f"{ours / peer:6.2f}x  <= 150 ms: {'met' if ours <= 150 else 'MISSED'}"
    )
    p90 = sorted(cold["laika"])[int(0.9 * len(cold["laika"])) - 1]
    print(f"{'cold start p90':34} {p90:8.1f}ms")
    (rtt, amortized), (peer_rtt, peer_amortized) = pings["laika"], pings["minimal"]
    print(f"{'ping round trip (median)':34} {rtt:8.3f}ms {peer_rtt:8.3f}ms {rtt / peer_rtt:6.2f}x")
    print(
        f"{'ping cost, pipelined (per ping)':34} {amortized:8.3f}ms {peer_amortized:8.3f}ms "
        f"{amortized / peer_amortized:6.2f}x  <= 0.1 ms: {'met' if amortized <= 0.1 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
