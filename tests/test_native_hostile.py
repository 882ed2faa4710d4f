"""10,000 malformed or hostile frames on one pipe: the host answers each and stays alive."""

from __future__ import annotations

import json
import random
import struct
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hostile_json import hostile_bodies, json_texts, number_tokens, string_tokens, to_bytes

from native_client import HEADER, HostProcess, frame, raw_frame

MIB = 1024 * 1024
ART = "art_" + "0" * 32  # a well-formed artifact id that names none
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


@pytest.mark.slow  # > 3 s with the cores busy
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


@pytest.mark.slow  # > 3 s with the cores busy
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


@st.composite
def hostile_requests(draw: st.DrawFn) -> bytes:
    """A frame shaped like a real request whose id, payload values or keys are hostile JSON
    text: numbers past every limit, lone surrogates, deep nesting."""
    request_id = draw(st.one_of(st.just('"h"'), string_tokens, number_tokens))
    message_type, payload = draw(
        st.sampled_from(
            [
                ("sources.list", '{{"offset":{n},"limit":{m}}}'),
                ("search.query", '{{"query":{s},"limit":{n}}}'),
                ("chat.history", '{{"limit":{n},"collection":{s}}}'),
                ("host.cancel", '{{"target_id":{n}}}'),
                ("host.echo", '{{"data":{j},"repeat":{m}}}'),
                ("host.log", '{{"message":{s},"context":{{"k":{j}}}}}'),
                ("host.ping", "{{{s}:{j}}}"),
                ("collections.create", '{{"title":{s}}}'),
                ("transform.list_types", "{{{s}:{j}}}"),
                ("transform.run", "{j}"),
                ("transform.run", '{{"type":{s},"collection":{s},"provider":{s},"force":{j}}}'),
                ("transform.run", '{{"type":"timeline","config":{j},"collection":{s}}}'),
                ("artifacts.list", '{{"collection":{s}}}'),
                ("artifacts.get", '{{"artifact_id":{s}}}'),
                ("artifacts.get", '{{"artifact_id":"' + ART + '"}}'),
                ("artifacts.export", '{{"artifact_id":{s},"format":{s},"table":{n}}}'),
                ("artifacts.export", '{{"artifact_id":"' + ART + '","format":"csv","table":{m}}}'),
                ("artifacts.delete", "{j}"),
                ("artifacts.delete", '{{"artifact_id":"' + ART + '"}}'),
            ]
        )
    )
    small = st.integers(1, 3).map(str)
    payload = payload.format(
        n=draw(number_tokens),
        m=draw(st.one_of(small, number_tokens)),
        s=draw(string_tokens),
        j=draw(json_texts),
    )
    extra = draw(st.one_of(st.just(""), st.builds("{},{}:1".format, st.just(""), string_tokens)))
    text = f'{{"id":{request_id},"type":"{message_type}","payload":{payload}{extra}}}'
    return to_bytes(text)


def _final_replies_until(host: HostProcess, ping_id: str) -> list[dict[str, Any]]:
    """Every final reply (chunks joined, events skipped) up to and including the ping's, and
    one more if the hostile frame's reply has not come yet."""
    replies: list[dict[str, Any]] = []
    chunks: dict[Any, dict[int, str]] = {}
    while not (any(r["id"] == ping_id for r in replies) and len(replies) >= 2):
        message = host.recv(timeout=30)
        if "chunk" in message:
            parts = chunks.setdefault(message["id"], {})
            parts[message["chunk"]["index"]] = message["data"]
            if len(parts) < message["chunk"]["count"]:
                continue
            message = json.loads("".join(parts[i] for i in sorted(parts)))
            del chunks[message["id"]]
        if "ok" in message:
            replies.append(message)
    return replies


@pytest.mark.slow  # > 3 s with the cores busy
def test_the_host_answers_a_ping_after_every_hostile_frame(tmp_path: Path) -> None:
    hosts = [HostProcess(tmp_path)]
    pings = iter(range(1_000_000))
    outcomes: Counter[str] = Counter()

    @settings(max_examples=300, deadline=None, database=None)
    @given(st.one_of(hostile_bodies, hostile_requests()))
    def one_hostile_frame(body: bytes) -> None:
        if hosts[-1].proc.poll() is not None:  # a frame ended it: the next example gets a
            hosts.append(HostProcess(tmp_path))  # fresh host, so shrinking finds that frame
        host = hosts[-1]
        ping_id = f"ping-{next(pings)}"
        try:
            host.send_raw(raw_frame(body) + frame({"id": ping_id, "type": "host.ping"}))
            replies = _final_replies_until(host, ping_id)
        except (BrokenPipeError, EOFError):
            host.kill()
            raise AssertionError(f"the host ended; stderr:\n{host.stderr[-2000:]}") from None
        ping = next(r for r in replies if r["id"] == ping_id)
        assert ping["ok"] is True
        (other,) = [r for r in replies if r["id"] != ping_id]
        outcome = "ok" if other["ok"] else other["error"]["code"]
        assert outcome != "internal", other
        outcomes[outcome] += 1

    try:
        one_hostile_frame()
        assert hosts[-1].close() == 0
        assert hosts[-1].malformed == []
        assert "Traceback" not in hosts[-1].stderr
    finally:
        for host in hosts:
            host.kill()
    assert len(hosts) == 1
    assert outcomes["bad_json"] > 10, outcomes
    assert outcomes["bad_request"] > 10, outcomes


def test_seven_hundred_concurrent_requests_with_id_collisions_and_cancel_races(
    tmp_path: Path,
) -> None:
    """Back-pressure must not get in the way of ordinary concurrency: 700 slow requests, 70 of
    them reusing an id still in flight, and 100 cancels racing their targets; each request gets
    exactly one final reply that agrees with the others."""
    rng = random.Random(700)
    host = HostProcess(tmp_path)
    try:
        sent: Counter[str] = Counter()
        batch = bytearray()
        for n in range(700):
            request_id = f"c{n % 630}"  # the last 70 reuse an id sent moments before
            sent[request_id] += 1
            payload = {"data": n, "delay_ms": rng.randint(300, 900)}
            batch += frame({"id": request_id, "type": "host.echo", "payload": payload})
        for n in range(100):
            batch += frame(
                {"id": f"x{n}", "type": "host.cancel", "payload": {"target_id": f"c{n}"}}
            )
        host.send_raw(bytes(batch))
        replies = _collect(host, 800)
        by_id: dict[str, list[str]] = {}
        for reply in replies:
            outcome = "ok" if reply["ok"] else reply["error"]["code"]
            by_id.setdefault(reply["id"], []).append(outcome)
        assert {rid: len(outcomes) for rid, outcomes in by_id.items() if rid[0] == "c"} == sent
        assert Counter(o for rid in sent for o in by_id[rid] if o == "conflict")["conflict"] == 70
        for n in range(100):
            (cancel,) = by_id[f"x{n}"]
            target = [o for o in by_id[f"c{n}"] if o != "conflict"]
            assert cancel in {"ok", "not_found"}
            assert target == (["cancelled"] if cancel == "ok" else ["ok"])
        assert host.request({"id": "after", "type": "host.ping"})["ok"] is True
        assert host.close() == 0
        assert "Traceback" not in host.stderr
    finally:
        host.kill()
