"""No input can end the host: properties of the frame decoder and the reply encoder.

The decoder (`loads_strict`, `decode_request`) only ever raises its own error type, whatever
the bytes; the encoder (`framing.dumps`, `frames_for`) never raises for any JSON-like value a
handler or an echo could put in a reply, and always writes frames that strict JSON reads back.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hostile_json import DEEP, hostile_bodies, json_texts, reply_values, to_bytes
from laika_host.native.transport.envelope import (
    InvalidRequestError,
    decode_request,
    error_reply,
    ok_reply,
)
from laika_host.native.transport.framing import HEADER, MAX_REPLY_FRAME, dumps, frames_for
from laika_host.strict_json import NotJsonError, loads_strict

SMALL_THRESHOLD = 4096  # small chunks, so the chunked path is explored too


def _decoded_frames(frames: list[bytes]) -> Any:
    """The message the frames carry, read back with the strict decoder (chunks joined)."""
    bodies = []
    for frame in frames:
        (length,) = HEADER.unpack(frame[: HEADER.size])
        assert length == len(frame) - HEADER.size
        assert length <= MAX_REPLY_FRAME
        bodies.append(loads_strict(frame[HEADER.size :]))
    if len(bodies) == 1 and "chunk" not in bodies[0]:
        return bodies[0]
    assert [body["chunk"]["index"] for body in bodies] == list(range(1, len(bodies) + 1))
    return loads_strict("".join(body["data"] for body in bodies))


def _is_portable(value: Any) -> bool:
    """True when JSON carries `value` exactly: finite numbers, integers whose digits Python
    writes out, strings without lone surrogates (any depth)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, int) and not isinstance(item, bool) and not _writable(item):
            return False
        if isinstance(item, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in item):
            return False
        if isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


def _writable(number: int) -> bool:
    try:
        str(number)
    except ValueError:
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(hostile_bodies)
def test_the_decoder_only_raises_its_own_error(body: bytes) -> None:
    try:
        value = loads_strict(body)
    except NotJsonError:
        return
    # what it accepts, the encoder writes back exactly
    reply = ok_reply(1, value)
    assert _decoded_frames(frames_for(reply, threshold=SMALL_THRESHOLD)) == reply


@settings(max_examples=200, deadline=None)
@given(json_texts)
def test_text_input_is_held_to_the_same_rules_as_bytes(text: str) -> None:
    outcomes = []
    for form in (text, to_bytes(text)):
        try:
            outcomes.append(("value", json.dumps(loads_strict(form))))
        except NotJsonError:
            outcomes.append(("error", ""))
    assert outcomes[0] == outcomes[1]


@st.composite
def hostile_requests(draw: st.DrawFn) -> bytes:
    """A request-shaped frame whose id, payload or an extra key is hostile JSON text."""
    id_text = draw(st.one_of(json_texts, st.just('"ok-id"')))
    payload_text = draw(st.one_of(json_texts, st.just("{}")))
    extra = draw(st.one_of(st.just(""), json_texts.map(lambda text: f",{text}:1")))
    return to_bytes(f'{{"id":{id_text},"type":"host.ping","payload":{payload_text}{extra}}}')


@settings(max_examples=400, deadline=None)
@given(st.one_of(hostile_bodies, hostile_requests()))
def test_a_request_is_decoded_or_answered_with_an_error_that_encodes(body: bytes) -> None:
    try:
        request = decode_request(body)
    except InvalidRequestError as rejected:
        reply = error_reply(rejected.request_id, rejected.error)
    else:
        assert isinstance(request.payload, dict)
        reply = ok_reply(request.id, request.payload)
    assert reply["ok"] or reply["error"]["code"] in {"bad_json", "bad_request"}
    assert _decoded_frames(frames_for(reply, threshold=SMALL_THRESHOLD)) == reply


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=700, max_size=5000))
def test_an_unknown_key_of_any_length_gets_a_short_error(key: str) -> None:
    body = json.dumps({"id": 1, "type": "host.ping", key: 1}).encode()
    try:
        decode_request(body)
    except InvalidRequestError as rejected:
        error = rejected.error
    else:
        raise AssertionError("an unknown key was accepted")
    assert error.code.value == "bad_request"
    assert len(json.dumps(error.to_json(), ensure_ascii=False)) < 2000  # not ~3x the key


@pytest.mark.slow  # > 3 s with the cores busy
@settings(max_examples=400, deadline=None)
@given(reply_values, st.one_of(st.none(), st.integers(), st.text()))
def test_the_encoder_never_raises_for_a_reply_value(value: Any, request_id: Any) -> None:
    for message in (
        ok_reply(request_id, value),
        {"id": request_id, "event": "delta", "seq": 0, "data": value},
    ):
        text = dumps(message)
        text.encode("utf-8")  # always valid UTF-8
        frames = frames_for(message, threshold=SMALL_THRESHOLD)
        with _deep_stack():  # a browser reads any depth; Python needs room to compare it
            decoded = _decoded_frames(frames)
            assert decoded == loads_strict(text)
            assert decoded == message or not _is_portable(value)


@contextmanager
def _deep_stack() -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * DEEP))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@st.composite
def documents_with(draw: st.DrawFn, token: st.SearchStrategy[str]) -> str:
    """A JSON document with `token` at a random place: alone, in an array, as a value or a
    key of an object, under some nesting."""
    inner = draw(token)
    place = draw(st.sampled_from(["alone", "array", "value", "key"]))
    if place == "array":
        inner = f'[1,{inner},"x"]'
    elif place == "value":
        inner = f'{{"id":"a","payload":{inner}}}'
    elif place == "key" and inner.startswith('"'):
        inner = f'{{"id":"a",{inner}:1}}'
    depth = draw(st.integers(0, 50))
    return "[" * depth + inner + "]" * depth


long_integers = st.integers(4301, 12_000).map(lambda digits: "-" * (digits % 2) + "8" * digits)
overflowing_numbers = st.builds(
    lambda mantissa, exponent: f"{mantissa}e{exponent}",
    st.floats(1.0, 9.9).map(repr),
    st.integers(309, 100_000),
)
lone_surrogates = st.builds(
    lambda before, code, after: json.dumps(before)[:-1] + f"\\u{code:04x}" + json.dumps(after)[1:],
    st.text(max_size=5),
    st.integers(0xD800, 0xDFFF),
    st.text(max_size=5),  # never starts with a surrogate: the escape stays unpaired
)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.tuples(documents_with(long_integers), st.just("more than 4300 digits")),
        st.tuples(documents_with(overflowing_numbers), st.just("too large for a 64-bit float")),
        st.tuples(documents_with(lone_surrogates), st.just("lone UTF-16 surrogate")),
    )
)
def test_each_kind_of_unreadable_number_or_string_is_named(case: tuple[str, str]) -> None:
    text, named = case
    for form in (text, text.encode("utf-8")):
        try:
            loads_strict(form)
        except NotJsonError as error:
            message = str(error)
        else:
            message = "accepted"
        assert named in message
        assert "as a string" in message or "UTF-8" in message  # and how to send it instead
