"""The native envelope: hand-written fast path == pydantic schema models == PROTOCOL.md."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from laika_host.native.errors import ERROR_TABLE, ErrorCode
from laika_host.native.handlers.routes import default_router
from laika_host.native.transport.envelope import InvalidRequestError, decode_request
from laika_host.native.transport.schema_models import NativeRequest

from native_client import HostProcess
from support import REPO, schema_validator

PROTOCOL = (REPO / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")

ids = st.one_of(
    st.text(max_size=300),
    st.integers(min_value=-(2**54), max_value=2**54),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2),
)
types = st.one_of(
    st.sampled_from(["host.ping", "a.b", "Host.Ping", "ping", "a.b.c_d", "a..b", "x" * 70 + ".y"]),
    st.text(max_size=20),
    st.integers(),
)
payloads = st.one_of(
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.lists(st.integers()),
    st.text(),
)


@settings(max_examples=600, deadline=None)
@given(
    st.fixed_dictionaries(
        {}, optional={"id": ids, "type": types, "payload": payloads, "extra": st.integers()}
    )
)
def test_fast_path_and_schema_model_agree(message: dict[str, Any]) -> None:
    try:
        decoded = decode_request(json.dumps(message).encode())
        fast_ok = True
    except InvalidRequestError:
        fast_ok = False
    try:
        model = NativeRequest.model_validate(message)
        model_ok = True
    except ValidationError:
        model_ok = False
    assert fast_ok == model_ok, message
    if fast_ok:
        assert (decoded.id, decoded.type, decoded.payload) == (model.id, model.type, model.payload)


def test_error_code_table_matches_the_code() -> None:
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (yes|no) \|", PROTOCOL, re.MULTILINE))
    assert set(rows) == {code.value for code in ErrorCode}
    for code, (retryable, meaning) in ERROR_TABLE.items():
        assert rows[code.value] == ("yes" if retryable else "no")
        assert meaning in PROTOCOL, f"PROTOCOL.md lost the meaning of {code.value}"


def test_every_message_type_is_documented() -> None:
    documented = set(re.findall(r"^\| `([a-z]+\.[a-z_.]+)` \|", PROTOCOL, re.MULTILINE))
    assert documented == set(default_router().types())


def test_every_frame_the_host_writes_matches_the_schemas(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    try:
        for request in (
            {"id": 1, "type": "host.ping"},
            {"id": 2, "type": "host.info"},
            {"id": 3, "type": "host.echo", "payload": {"data": "x" * 1000, "repeat": 400}},
            {
                "id": 4,
                "type": "host.echo",
                "payload": {"data": {"a": 1}, "repeat": 3, "stream": True},
            },
            {"id": 5, "type": "host.log", "payload": {"message": "m", "level": "warning"}},
            {"id": 6, "type": "host.cancel", "payload": {"target_id": "none"}},
            {"id": 7, "type": "nope.nope"},
        ):
            host.send(request)
        host.send_raw(b"\x00\x00\x00\x00")
        assert host.close() == 0
        frames = []
        while (message := host.frames.get(timeout=10)) is not None:
            frames.append(message)
    finally:
        host.kill()
    kinds = {"ok": "ok_reply", "chunk": "chunk", "event": "event"}
    seen = set()
    for message in frames:
        kind = next(
            (v for k, v in kinds.items() if k in message and (k != "ok" or message["ok"])),
            "error_reply",
        )
        seen.add(kind)
        schema_validator(f"native/{kind}.schema.json").validate(message)
    assert seen == {"ok_reply", "chunk", "event", "error_reply"}


SIMPLE_ROUTES = [  # host.cancel needs a target; store types: tests/test_native_store.py
    r for r in default_router().routes() if r.name.startswith("host.") and r.name != "host.cancel"
]


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("route", SIMPLE_ROUTES, ids=lambda r: r.name)
def test_results_match_their_declared_models(route: Any, tmp_path: Path) -> None:
    payloads_by_type = {
        "host.echo": {"data": [1], "repeat": 2},
        "host.log": {"message": "hello"},
    }
    host = HostProcess(tmp_path)
    try:
        reply = host.request(
            {"id": 1, "type": route.name, "payload": payloads_by_type.get(route.name, {})}
        )
    finally:
        host.kill()
    assert reply["ok"] is True
    route.result_model().model_validate(reply["result"])


def test_the_back_pressure_limits_are_documented() -> None:
    from laika_host.native.transport import session

    mib = 1024 * 1024
    documented = " ".join(PROTOCOL.split("Back-pressure", 1)[1].split("\n\n", 1)[0].split())
    assert f"while {session.REPLY_HIGH_WATER // mib} MiB of replies wait" in documented
    reading_pause = session.REPLY_HIGH_WATER * session.READ_PAUSE_FACTOR // mib
    assert f"no new frame while {reading_pause} MiB of replies wait" in documented
    assert f"nor while {session.MAX_INFLIGHT:,} requests" in documented
    assert f"or {session.MAX_INFLIGHT_REQUEST_BYTES // mib} MiB of request frames" in documented
