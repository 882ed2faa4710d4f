"""10,000 malformed or hostile frames on one pipe: the host answers each and stays alive."""

from __future__ import annotations

import json
import random
import struct
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from native_client import HEADER, HostProcess, frame, raw_frame

MIB = 1024 * 1024
Expected = tuple[Any, str]  # (reply id, error code or "ok")


def _json(obj: Any) -> bytes:
    return raw_frame(json.dumps(obj).encode())


def _cases(rng: random.Random) -> list[Callable[[int], tuple[bytes, Expected]]]:
    def invalid_utf8(n: int) -> tuple[bytes, Expected]:
        return raw_frame(b"\xff\xfe" + rng.randbytes(rng.randint(0, 64))), (None, "bad_json")

    def random_bytes(n: int) -> tuple[bytes, Expected]:
        body = bytes(rng.choice(b'{}[]:,"abc 019') for _ in range(rng.randint(1, 300)))
        try:
            json.loads(body)
        except ValueError:
            return raw_frame(body), (None, "bad_json")
        return raw_frame(b"{" + body), (None, "bad_json")

    def not_an_object(n: int) -> tuple[bytes, Expected]:
        value = rng.choice([[1, 2], 42, "host.ping", None, True, 1.5, []])
        return _json(value), (None, "bad_request")

    def missing_id(n: int) -> tuple[bytes, Expected]:
        return _json({"type": "host.ping"}), (None, "bad_request")

    def bad_id(n: int) -> tuple[bytes, Expected]:
        bad = rng.choice([True, [], {}, 1.5, "", "x" * 300, 2**60])
        return _json({"id": bad, "type": "host.ping"}), (None, "bad_request")

    def missing_type(n: int) -> tuple[bytes, Expected]:
        return _json({"id": f"mt-{n}"}), (f"mt-{n}", "bad_request")

    def bad_type(n: int) -> tuple[bytes, Expected]:
        bad = rng.choice([7, None, "PING", "host ping", "", "a" * 100])
        return _json({"id": f"bt-{n}", "type": bad}), (f"bt-{n}", "bad_request")

    def unknown_type(n: int) -> tuple[bytes, Expected]:
        return _json({"id": f"ut-{n}", "type": "evil.rm_rf"}), (f"ut-{n}", "unknown_type")

    def schema_failure(n: int) -> tuple[bytes, Expected]:
        payload = rng.choice(
            [{"repeat": -1}, {"repeat": "3"}, {"delay_ms": 10**9}, {"stream": "yes"}, {"x": 1}]
        )
        message = {"id": f"sf-{n}", "type": "host.echo", "payload": payload}
        return _json(message), (f"sf-{n}", "bad_request")

    def payload_not_object(n: int) -> tuple[bytes, Expected]:
        message = {"id": f"po-{n}", "type": "host.ping", "payload": [1]}
        return _json(message), (f"po-{n}", "bad_request")

    def extra_key(n: int) -> tuple[bytes, Expected]:
        message = {"id": f"ek-{n}", "type": "host.ping", "cookie": "sid=1"}
        return _json(message), (f"ek-{n}", "bad_request")

    def empty(n: int) -> tuple[bytes, Expected]:
        return HEADER.pack(0), (None, "bad_frame")

    def nan(n: int) -> tuple[bytes, Expected]:
        return raw_frame(b'{"id": "n", "type": "host.ping", "x": NaN}'), (None, "bad_json")

    def duplicate_key(n: int) -> tuple[bytes, Expected]:
        return raw_frame(b'{"id": "d", "id": "e", "type": "host.ping"}'), (None, "bad_json")

    def deep(n: int) -> tuple[bytes, Expected]:
        return raw_frame(b"[" * 5000 + b"]" * 5000), (None, "bad_json")

    def valid_ping(n: int) -> tuple[bytes, Expected]:
        return frame({"id": f"ok-{n}", "type": "host.ping"}), (f"ok-{n}", "ok")

    return [
        invalid_utf8,
        random_bytes,
        not_an_object,
        missing_id,
        bad_id,
        missing_type,
        bad_type,
        unknown_type,
        schema_failure,
        payload_not_object,
        extra_key,
        empty,
        nan,
        duplicate_key,
        deep,
        valid_ping,
    ]


def _collect(host: HostProcess, count: int) -> list[dict[str, Any]]:
    return [host.recv(timeout=30) for _ in range(count)]


def test_ten_thousand_hostile_frames(tmp_path: Path) -> None:
    rng = random.Random(20261122)
    cases = _cases(rng)
    host = HostProcess(tmp_path)
    try:
        expected: list[Expected] = []
        batch = bytearray()
        for n in range(10_000):
            if n in (3_000, 7_000):  # a 65 MiB length claim, followed by its bytes
                batch += struct.pack("=I", 65 * MIB)
                host.send_raw(bytes(batch))
                batch.clear()
                host.send_raw(bytes(65 * MIB))
                expected.append((None, "too_large"))
                continue
            data, outcome = rng.choice(cases)(n)
            batch += data
            expected.append(outcome)
            if len(batch) > 64 * 1024:
                host.send_raw(bytes(batch))
                batch.clear()
        host.send_raw(bytes(batch))
        replies = _collect(host, len(expected))
        got_null = Counter(r["error"]["code"] for r in replies if r["id"] is None)
        want_null = Counter(code for rid, code in expected if rid is None)
        assert got_null == want_null
        got_by_id = {r["id"]: ("ok" if r["ok"] else r["error"]["code"]) for r in replies if r["id"]}
        want_by_id = {rid: code for rid, code in expected if rid is not None}
        assert got_by_id == want_by_id
        assert sum(1 for _, code in expected if code == "ok") > 100
        # still alive and answering after all of it
        assert host.request({"id": "final", "type": "host.ping"})["ok"] is True
        assert host.close() == 0
        assert host.malformed == []
        assert max(host.frame_sizes) <= 1_048_576
        assert "Traceback" not in host.stderr
    finally:
        host.kill()


def test_a_huge_length_claim_at_the_end_exits_cleanly(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    try:
        host.send_raw(struct.pack("=I", 65 * MIB) + b"only a little")
        reply = host.recv()
        assert reply["id"] is None
        assert reply["error"]["code"] == "too_large"
        assert "64 MiB" in reply["error"]["message"]
        assert host.close() == 0
        assert host.malformed == []
    finally:
        host.kill()


def test_a_truncated_frame_at_the_end_is_reported(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    try:
        host.send_raw(frame({"id": 1, "type": "host.ping"}) + struct.pack("=I", 1000) + b"short")
        assert host.recv()["ok"] is True
        stdin = host.proc.stdin
        assert stdin is not None
        stdin.close()
        reply = host.recv()
        assert reply["error"]["code"] == "bad_frame"
        assert "5 bytes into a 1000-byte frame" in reply["error"]["message"]
        assert host.proc.wait(10) == 0
    finally:
        host.kill()


def test_a_truncated_header_at_the_end_is_reported(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    try:
        host.send_raw(b"\x01\x00")
        stdin = host.proc.stdin
        assert stdin is not None
        stdin.close()
        reply = host.recv()
        assert reply["error"]["code"] == "bad_frame"
        assert host.proc.wait(10) == 0
    finally:
        host.kill()


def test_a_sixty_megabyte_request_is_read_and_answered(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    try:
        big = {"id": "big", "type": "host.echo", "payload": {"data": "x" * (60 * MIB)}}
        reply = host.request(big, timeout=60)
        # parsed in full (the id came back); echo then refuses a 60 MB reply by its own bound
        assert reply["error"]["code"] == "too_large"
        assert "limit is 16777216" in reply["error"]["message"]
        assert host.request({"id": "after", "type": "host.ping"})["ok"] is True
        assert host.close() == 0
    finally:
        host.kill()
