"""`laika llmx` in real subprocesses: output, the NACK line, and the exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from laika_host.llmx import parse, serialize
from laika_host.llmx.bridge import llmx_to_request, llmx_to_response
from laika_host.protocol import RequestPacket, ResponsePacket
from llmx_spec import stored

from support import REPO, run_laika

MESSAGE = (
    "HEADER:{f:Claude,t:ALL,s:1,b:B1}\n"
    'ACT:{i:A1,op:edit,tgt:"p:src/auth.ts#L42",args:{action:"add validation"}}\n'
    'ACT:{i:A2,op:~,tgt:"^/src"}\n'
    "CUSTOM:{a:1}"
)


def test_parse_prints_blocks_warnings_and_shortcuts_then_encode_writes_it_back() -> None:
    parsed = run_laika("llmx", "parse", "-", stdin=MESSAGE.encode())
    assert parsed.returncode == 0, parsed.stderr
    data = json.loads(parsed.stdout)
    assert [block["type"] for block in data["blocks"]] == ["HEADER", "ACT", "ACT"]
    assert data["warnings"] == ["unknown message type: CUSTOM ignored"]
    assert data["shortcuts"][0] == {
        "block": 2,
        "field": "tgt",
        "text": "p:src/auth.ts#L42",
        "kind": "path",
        "path": "src/auth.ts",
        "lines": [42, 42],
    }
    assert {"block": 3, "field": "tgt", "text": "^/src", "kind": "parent", "path": "../src"} in (
        data["shortcuts"]
    )
    encoded = run_laika("llmx", "encode", "-", stdin=parsed.stdout.encode())
    assert encoded.returncode == 0, encoded.stderr
    assert encoded.stdout == MESSAGE.rsplit("\n", 1)[0] + "\n"


def test_every_spec_message_example_goes_through_parse_and_encode(tmp_path: Path) -> None:
    for name, text in stored().items():
        if "_example." not in name or not text.startswith("HEADER:") or text.count("HEADER") > 1:
            continue
        source = tmp_path / name
        source.write_text(text, encoding="utf-8")
        parsed = run_laika("llmx", "parse", str(source))
        assert parsed.returncode == 0, parsed.stdout
        encoded = run_laika("llmx", "encode", "-", stdin=parsed.stdout.encode())
        assert encoded.stdout == text + "\n"


@pytest.mark.parametrize(
    ("stdin", "nack"),
    [
        (b'REQ:{o:"x",pr:2}', "a message starts with HEADER"),
        (b"HEADER:{f:a,t:b,s:1}\nREQ:{pr:2}", "missing required field 'o' in REQ"),
        (b"HEADER:{f:a,t:b,s:1}\nX_N:{v:" + b"7" * 5000 + b"}", "number longer than 100"),
    ],
)
def test_an_invalid_message_prints_the_nack_and_exits_1(stdin: bytes, nack: str) -> None:
    result = run_laika("llmx", "parse", "-", stdin=stdin)
    assert result.returncode == 1
    assert result.stdout.startswith('RES:{o:"NACK",msg:"parse error: ')
    assert nack in result.stdout


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("parse", "-"), b"HEADER:{f:\xff}"),
        (("parse", "/no/such/file.llmx"), None),
        (("encode", "-"), b"{not json"),
        (("from-llmcp", "-"), b"HEADER:{f:a}"),
    ],
)
def test_unreadable_input_exits_2(args: tuple[str, ...], stdin: bytes | None) -> None:
    result = run_laika("llmx", *args, stdin=stdin)
    assert result.returncode == 2
    assert result.stdout == ""


def test_encode_refuses_json_that_is_no_valid_message() -> None:
    data = {"blocks": [{"type": "HEADER", "value": {"f": "a", "t": "b"}}]}
    result = run_laika("llmx", "encode", "-", stdin=json.dumps(data).encode())
    assert result.returncode == 1
    assert "missing required field 's'" in result.stdout
    nulls = {"blocks": [{"type": "HEADER", "value": {"f": "a", "t": "b", "s": None}}]}
    result = run_laika("llmx", "encode", "-", stdin=json.dumps(nulls).encode())
    assert result.returncode == 1
    assert "null is not part of LLMX" in result.stdout


def test_from_llmcp_shows_the_example_packets_as_llmx() -> None:
    examples = REPO / "docs" / "examples"
    request = run_laika("llmx", "from-llmcp", str(examples / "summarize.request.json"))
    assert request.returncode == 0, request.stderr
    packet = RequestPacket.model_validate_json((examples / "summarize.request.json").read_text())
    assert llmx_to_request(parse(request.stdout)) == packet
    response = run_laika("llmx", "from-llmcp", str(examples / "summarize.response.json"))
    packet_out = ResponsePacket.model_validate_json(
        (examples / "summarize.response.json").read_text()
    )
    assert llmx_to_response(parse(response.stdout)) == packet_out
    assert serialize(parse(response.stdout)) + "\n" == response.stdout
    broken = run_laika("llmx", "from-llmcp", str(examples / "broken.response.json"))
    assert broken.returncode == 1
    assert "protocol.version" in broken.stderr
