"""Every mapping rule of spec 003, per provider, proven against loopback servers that speak
the provider's documented wire format and record what they receive."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
from typing import Any

import pytest

from laika_host.llm.client import ChatClient, ChatResult, tls_context
from laika_host.llm.config import ProviderConfig
from laika_host.llm.contract import ChatMessage, ChatRequest

from llm_servers import ProviderServer, Reply, anthropic_sse, ollama_ndjson, openai_sse

KEY = "sk-test-" + "Zq9" * 10
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "open_url",
            "description": "Open a page",
            "parameters": {"type": "object", "properties": {"url": {"type": "string"}}},
        },
    }
]


def run(server: ProviderServer, provider: ProviderConfig, request: ChatRequest) -> ChatResult:
    async def main() -> ChatResult:
        async with ChatClient(retry_delay=0.01) as client:
            return await client.complete(provider, request)

    try:
        return asyncio.run(main())
    finally:
        server.close()


def conversation(**extra: Any) -> ChatRequest:
    return ChatRequest(
        model=extra.pop("model", "m-1"),
        messages=[
            ChatMessage(role="system", content="You are careful."),
            ChatMessage(role="developer", content="Answer in JSON."),
            ChatMessage(role="user", content={"question": "why?", "ids": [1, 2]}),
            ChatMessage(
                role="assistant",
                content="",
                tool_calls=[
                    {
                        "id": "call_9",
                        "type": "function",
                        "function": {"name": "open_url", "arguments": '{"url": "https://a.test"}'},
                    }
                ],
            ),
            ChatMessage(role="tool", content="page text", tool_call_id="call_9"),
        ],
        **extra,
    )


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_API_KEY"):
        monkeypatch.setenv(name, KEY)


# --- OpenAI and OpenRouter ---------------------------------------------------------------


def test_openai_passes_everything_through_and_normalizes_the_stream() -> None:
    server = ProviderServer([Reply(chunks=openai_sse(['{"answer": ', '"yes"}']))])
    provider = ProviderConfig(id="oa", kind="openai", model="gpt-x", base_url=server.url + "/v1")
    request = conversation(
        model="gpt-x",
        tools=TOOLS,
        tool_choice="auto",
        response_format={"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}},
        max_tokens=99,
        temperature=0,
    )
    result = run(server, provider, request)
    [got] = server.received
    assert got.path == "/v1/chat/completions"
    assert got.headers["authorization"] == f"Bearer {KEY}"
    body = got.body
    assert body["model"] == "gpt-x"
    assert [m["role"] for m in body["messages"]] == [
        "system",
        "developer",
        "user",
        "assistant",
        "tool",
    ]
    assert json.loads(body["messages"][2]["content"]) == {"question": "why?", "ids": [1, 2]}
    assert body["messages"][4]["tool_call_id"] == "call_9"
    assert body["tools"] == TOOLS
    assert body["tool_choice"] == "auto"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["max_tokens"] == 99
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert result.status == "ok"
    assert result.text == '{"answer": "yes"}'
    assert result.finish_reason == "stop"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (12, 5)
    assert result.provider_meta.provider == "oa"


def test_openai_tool_call_deltas_are_assembled() -> None:
    calls = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "open_url", "arguments": '{"url"'},
        },
        {"function": {"arguments": ': "https://b.test"}'}},
    ]
    chunks = openai_sse([], finish="tool_calls", tool_calls=[calls[0]])
    chunks.insert(1, openai_sse([], tool_calls=[calls[1]])[0])
    server = ProviderServer([Reply(chunks=chunks)])
    provider = ProviderConfig(id="oa", kind="openai", model="m", base_url=server.url)
    result = run(server, provider, conversation(tools=TOOLS))
    assert result.status == "ok"
    assert result.finish_reason == "tool_calls"
    assert result.tool_calls == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "open_url", "arguments": '{"url": "https://b.test"}'},
        }
    ]


def test_openrouter_adds_title_and_referer_and_needs_provider_slash_model() -> None:
    server = ProviderServer([Reply(chunks=openai_sse(["hi"]))])
    provider = ProviderConfig(
        id="or",
        kind="openrouter",
        model="openai/gpt-4o",
        base_url=server.url + "/api/v1",
        title="Laika",
        referer="https://laika.test",
    )
    result = run(server, provider, conversation(model="openai/gpt-4o", reasoning={"effort": "low"}))
    [got] = server.received
    assert got.path == "/api/v1/chat/completions"
    assert got.headers["authorization"] == f"Bearer {KEY}"
    assert got.headers["x-title"] == "Laika"
    assert got.headers["http-referer"] == "https://laika.test"
    assert got.body["reasoning"] == {"effort": "low"}
    assert result.text == "hi"

    server = ProviderServer([Reply(chunks=openai_sse(["hi"]))])
    provider = provider.model_copy(update={"base_url": server.url})
    bad = run(server, provider, conversation(model="gpt-4o"))
    assert bad.status == "error"
    assert bad.error is not None
    assert bad.error.kind == "bad_request"
    assert "provider/model-name" in bad.error.message
    assert server.received == []  # refused before sending


def test_openai_compatible_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    server = ProviderServer([Reply(chunks=openai_sse(["ok"]))])
    provider = ProviderConfig(
        id="llama", kind="openai_compatible", model="smol", base_url=server.url + "/v1"
    )
    result = run(server, provider, conversation())
    assert "authorization" not in server.received[0].headers
    assert result.status == "ok"


def test_a_missing_key_is_named_before_anything_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    server = ProviderServer([Reply(chunks=openai_sse(["x"]))])
    provider = ProviderConfig(id="oa", kind="openai", model="m", base_url=server.url)
    result = run(server, provider, conversation())
    assert result.error is not None
    assert result.error.kind == "auth"
    assert "OPENAI_API_KEY" in result.error.message
    assert server.received == []


# --- Anthropic ----------------------------------------------------------------------------


def test_anthropic_mapping_rules() -> None:
    server = ProviderServer([Reply(chunks=anthropic_sse(["Hel", "lo"]))])
    provider = ProviderConfig(id="an", kind="anthropic", model="claude-x", base_url=server.url)
    request = conversation(
        model="claude-x",
        tools=TOOLS,
        tool_choice={"type": "function", "function": {"name": "open_url"}},
        response_format={"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}},
    )
    result = run(server, provider, request)
    [got] = server.received
    assert got.path == "/v1/messages"
    assert got.headers["x-api-key"] == KEY
    assert got.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in got.headers
    body = got.body
    assert body["system"] == "You are careful."  # lifted to the top level
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "user", "assistant", "user"]  # developer -> user, tool -> user
    assert body["messages"][0]["content"] == "Answer in JSON."
    assert body["messages"][2]["content"][0] == {
        "type": "tool_use",
        "id": "call_9",
        "name": "open_url",
        "input": {"url": "https://a.test"},
    }
    assert body["messages"][3]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_9", "content": "page text"}
    ]
    assert body["max_tokens"] == 4096  # required: the default when the request has none
    assert "response_format" not in body
    assert "format" not in body
    assert body["tools"] == [
        {
            "name": "open_url",
            "input_schema": TOOLS[0]["function"]["parameters"],
            "description": "Open a page",
        }
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "open_url"}
    assert result.dropped == ["response_format"]
    assert result.text == "Hello"
    assert result.finish_reason == "stop"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (20, 7)


def test_anthropic_max_tokens_passthrough_and_tool_use_stream() -> None:
    chunks = anthropic_sse(
        [], stop_reason="tool_use", tool=("toolu_1", "open_url", ['{"url": ', '"https://c.test"}'])
    )
    server = ProviderServer([Reply(chunks=chunks)])
    provider = ProviderConfig(id="an", kind="anthropic", model="c", base_url=server.url)
    result = run(server, provider, conversation(max_tokens=321))
    assert server.received[0].body["max_tokens"] == 321
    assert result.finish_reason == "tool_calls"
    assert result.tool_calls[0]["id"] == "toolu_1"
    assert result.tool_calls[0]["function"] == {
        "name": "open_url",
        "arguments": '{"url": "https://c.test"}',
    }


def test_anthropic_error_event_mid_stream_keeps_the_text() -> None:
    chunks = anthropic_sse(["partial "])[:4]
    chunks.append(
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    )
    server = ProviderServer([Reply(chunks=chunks)])
    provider = ProviderConfig(id="an", kind="anthropic", model="c", base_url=server.url)
    result = run(server, provider, conversation())
    assert result.status == "partial"
    assert result.text == "partial "
    assert result.error is not None
    assert result.error.kind == "provider"
    assert result.error.spec_type == "api_error"


# --- Ollama ---------------------------------------------------------------------------------


def test_ollama_local_mapping_rules() -> None:
    server = ProviderServer(
        [Reply(content_type="application/x-ndjson", chunks=ollama_ndjson(['{"answer"', ': "x"}']))]
    )
    provider = ProviderConfig(id="ol", kind="ollama", model="llama3.2", base_url=server.url)
    long_question = "word " * 6000  # ~30k chars: far past Ollama's 2048-token default
    request = ChatRequest(
        model="llama3.2",
        messages=[ChatMessage(role="user", content=long_question)],
        response_format={"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}},
        max_tokens=200,
        temperature=0,
    )
    result = run(server, provider, request)
    [got] = server.received
    assert got.path == "/api/chat"
    assert "authorization" not in got.headers
    body = got.body
    assert body["format"] == SCHEMA
    assert body["options"]["num_predict"] == 200
    assert body["options"]["temperature"] == 0
    assert body["options"]["num_ctx"] >= len(long_question) // 3 + 200  # nothing cut silently
    assert body["options"]["num_ctx"] % 1024 == 0
    assert "think" not in body  # only when configured
    assert body["stream"] is True
    assert result.status == "ok"
    assert result.text == '{"answer": "x"}'
    assert (result.usage.input_tokens, result.usage.output_tokens) == (30, 9)


def test_ollama_think_json_mode_and_context_limit() -> None:
    server = ProviderServer(
        [Reply(content_type="application/x-ndjson", chunks=ollama_ndjson(["{}"]))]
    )
    provider = ProviderConfig(
        id="ol", kind="ollama", model="qwen3", base_url=server.url, think=False
    )
    request = ChatRequest(
        model="qwen3",
        messages=[ChatMessage(role="user", content="hi")],
        response_format={"type": "json_object"},
    )
    run(server, provider, request)
    body = server.received[0].body
    assert body["think"] is False
    assert body["format"] == "json"
    assert body["options"] == {"num_ctx": 2048}

    server = ProviderServer(
        [Reply(content_type="application/x-ndjson", chunks=ollama_ndjson(["x"]))]
    )
    small = provider.model_copy(update={"base_url": server.url, "context_window": 4096})
    too_long = ChatRequest(
        model="qwen3", messages=[ChatMessage(role="user", content="w " * 20_000)]
    )
    result = run(server, small, too_long)
    assert result.error is not None
    assert result.error.kind == "context_too_long"
    assert server.received == []


def test_ollama_cloud_uses_bearer_and_a_plain_model_id() -> None:
    server = ProviderServer(
        [
            Reply(
                content_type="application/x-ndjson",
                chunks=ollama_ndjson(["hi"], done_reason="length"),
            )
        ]
    )
    provider = ProviderConfig(
        id="oc", kind="ollama_cloud", model="gpt-oss:120b-cloud", base_url=server.url
    )
    result = run(
        server,
        provider,
        ChatRequest(
            model="gpt-oss:120b:cloud",
            messages=[ChatMessage(role="user", content="hi")],
            max_tokens=1,
        ),
    )
    got = server.received[0]
    assert got.headers["authorization"] == f"Bearer {KEY}"
    assert got.body["model"] == "gpt-oss:120b"
    assert result.status == "partial"  # done_reason length: cut at max_tokens
    assert result.error is not None
    assert result.error.kind == "invalid_output"
    assert result.text == "hi"


def test_malformed_lines_are_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    lines = ollama_ndjson(["one ", "two"])
    lines.insert(1, '{"message": {"content": "broken"\n')
    lines.insert(2, "not json at all\n")
    server = ProviderServer([Reply(content_type="application/x-ndjson", chunks=lines)])
    provider = ProviderConfig(id="ol", kind="ollama", model="m", base_url=server.url)
    with caplog.at_level(logging.INFO, logger="laika.llm"):
        result = run(
            server,
            provider,
            ChatRequest(model="m", messages=[ChatMessage(role="user", content="hi")]),
        )
    assert result.status == "ok"
    assert result.text == "one two"
    assert sum("malformed_stream_line" in r.getMessage() for r in caplog.records) == 2


def test_schema_mismatch_and_prose_are_typed_invalid_output() -> None:
    server = ProviderServer([Reply(chunks=openai_sse(["I think the answer is yes."]))])
    provider = ProviderConfig(id="oa", kind="openai", model="m", base_url=server.url)
    fmt = {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}
    prose = run(server, provider, conversation(response_format=fmt))
    assert prose.status == "invalid_output"
    assert prose.error is not None
    assert "not JSON" in prose.error.message
    assert prose.text == "I think the answer is yes."

    server = ProviderServer([Reply(chunks=openai_sse(['{"other": 1}']))])
    wrong = run(
        server,
        provider.model_copy(update={"base_url": server.url}),
        conversation(response_format=fmt),
    )
    assert wrong.status == "invalid_output"
    assert wrong.error is not None
    assert "'answer' is a required property" in wrong.error.message


def test_model_clients_share_one_tls_context() -> None:
    """Making httpx's default TLS context costs 65 ms of CPU, on the event loop, per client."""

    async def transports() -> list[Any]:
        made = []
        for _ in range(2):
            async with ChatClient() as client:
                made.append(client._http._transport._pool._ssl_context)  # type: ignore[attr-defined]
        return made

    first, second = asyncio.run(transports())
    assert first is second is tls_context()
    assert first.verify_mode is ssl.CERT_REQUIRED
    assert first.check_hostname
