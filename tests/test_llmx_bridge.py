"""LLMCP <-> LLMX: packets survive the trip through LLMX text; a model's LLMX reply becomes a
valid response; what cannot be a valid packet is refused with the NACK error."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.llmx import LlmxError, parse, serialize
from laika_host.llmx.bridge import (
    ToolResult,
    llmx_to_request,
    llmx_to_response,
    obs_to_tool_result,
    operation_of,
    request_to_llmx,
    response_to_llmx,
    tool_result_to_obs,
)
from laika_host.llmx.values import from_json, to_json
from laika_host.protocol import RequestPacket, ResponsePacket

from strategies import requests, responses
from support import REPO

EXAMPLES = REPO / "docs" / "examples"

any_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=20),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=150)
@given(requests())
def test_a_request_survives_the_trip_through_llmx(data: dict[str, Any]) -> None:
    packet = RequestPacket.model_validate(data)
    text = serialize(request_to_llmx(packet))
    assert text.splitlines()[0].startswith("HEADER:")
    assert text.splitlines()[-1].startswith("REQ:")
    assert llmx_to_request(parse(text)) == packet


@settings(max_examples=150)
@given(responses())
def test_a_response_survives_the_trip_through_llmx(data: dict[str, Any]) -> None:
    packet = ResponsePacket.model_validate(data)
    text = serialize(response_to_llmx(packet))
    message = parse(text)
    assert [block.type for block in message.blocks] == [
        "HEADER",
        "RES",
        *["ACT"] * len(packet.tool_calls),
    ]
    assert llmx_to_response(message) == packet


@given(any_json)
def test_json_values_round_trip_through_llmx_values(value: Any) -> None:
    converted = from_json(value)
    assert to_json(converted) == value
    text = serialize(parse(f"HEADER:{{f:a,t:b,s:1}}\nX_V:[{serialize_value(converted)}]"))
    assert to_json(parse(text).blocks[1].value[0]) == value  # type: ignore[index]


def serialize_value(value: Any) -> str:
    from laika_host.llmx import Block, serialize_block

    return serialize_block(Block("X_V", [value]))[len("X_V:[") : -1]


@given(st.text(min_size=1, max_size=10).filter(str.strip), any_json, st.booleans())
def test_tool_results_round_trip_through_obs(action: str, result: Any, failed: bool) -> None:
    given_result = (
        ToolResult(action, error="boom: " + action) if failed else ToolResult(action, result)
    )
    block = tool_result_to_obs(given_result)
    header = "HEADER:{f:host,t:model,s:2,b:B1}"
    from laika_host.llmx import serialize_block

    message = parse(f"{header}\n{serialize_block(block)}")
    assert obs_to_tool_result(message.blocks[1]) == given_result


def test_the_repository_examples_translate_and_come_back() -> None:
    request = RequestPacket.model_validate_json((EXAMPLES / "summarize.request.json").read_text())
    response = ResponsePacket.model_validate_json(
        (EXAMPLES / "summarize.response.json").read_text()
    )
    assert llmx_to_request(parse(serialize(request_to_llmx(request)))) == request
    text = serialize(response_to_llmx(response))
    assert 'ACT:{i:T1,op:write,tgt:"artifact.save",args:{title:' in text
    assert llmx_to_response(parse(text)) == response


def _request() -> RequestPacket:
    return RequestPacket.model_validate_json((EXAMPLES / "summarize.request.json").read_text())


def test_a_models_own_llmx_reply_becomes_a_response_to_the_request() -> None:
    reply = parse(
        "HEADER:{f:Qwen,t:agent,s:7}\n"
        'RES:{o:"ACK",msg:"Sync resumes uploads [1].",x_cites:[{doc_id:"doc:web:summary",'
        'url:"https://example.org/releases/2026-11",quote:"The sync engine now resumes"}]}\n'
        'ACT:{op:search,tgt:"search",args:{query:"sync limits"}}'
    )
    request = _request()
    response = llmx_to_response(reply, request=request)
    assert response.in_reply_to.request_id == request.id
    assert response.conversation == request.conversation
    assert response.sender.role == "assistant"
    assert response.assistant.markdown == "Sync resumes uploads [1]."
    assert response.assistant.citations[0].quote == "The sync engine now resumes"
    assert [call.name for call in response.tool_calls] == ["search"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('HEADER:{f:m,t:a,s:1}\nRES:{o:"NACK",msg:"parse error: x"}', "the reply is a NACK"),
        ("HEADER:{f:m,t:a,s:1}\nPLAN:[]", "exactly one RES block (got 0)"),
        ('HEADER:{f:m,t:a,s:1}\nRES:{o:"ACK"}', "not a valid LLMCP response: assistant"),
        (
            'HEADER:{f:m,t:a,s:1}\nRES:{o:"ACK",msg:""}\nACT:{op:shell,tgt:"rm -rf /"}',
            "not a valid LLMCP response: tool_calls[0]",
        ),
    ],
)
def test_a_reply_that_is_no_valid_response_is_refused(text: str, problem: str) -> None:
    with pytest.raises(LlmxError, match=re.escape(problem)):
        llmx_to_response(parse(text), request=_request())


def test_without_its_request_a_reply_needs_the_envelope_fields() -> None:
    with pytest.raises(LlmxError, match="HEADER lacks x_id"):
        llmx_to_response(parse('HEADER:{f:m,t:a,s:1}\nRES:{o:"ACK",msg:"hi"}'))


def test_operations_follow_the_tools_risk() -> None:
    assert operation_of("search") == "search"
    assert operation_of("browser.observe_dom") == "read"
    assert operation_of("artifact.save") == "write"
    assert operation_of("browser.click") == "edit"
    assert operation_of("no.such.tool") == "edit"
