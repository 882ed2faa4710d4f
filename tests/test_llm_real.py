"""Our adapters against a real model: llama.cpp's llama-server running SmolLM2-135M.

Assertions are on framing, schema validity and the pipeline's typed results, never on the
model's wording.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from jsonschema import Draft202012Validator

from laika_host.llm.client import ChatClient, ChatResult
from laika_host.llm.config import ProviderConfig
from laika_host.llm.contract import ChatMessage, ChatRequest
from laika_host.llm.events import TextDelta
from laika_host.llm.local_model import LocalServer

from llm_fixtures import llama_server  # noqa: F401 - the session fixture
from support import run_laika

pytestmark = pytest.mark.real_llm
SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "maxLength": 60},
        "confidence": {"type": "integer", "minimum": 0, "maximum": 100},
    },
    "required": ["answer", "confidence"],
}
JSON_FORMAT = {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA}}


def ask(provider: ProviderConfig, request: ChatRequest) -> tuple[ChatResult, int]:
    deltas = 0

    def count(event: object) -> None:
        nonlocal deltas
        deltas += isinstance(event, TextDelta)

    async def main() -> ChatResult:
        async with ChatClient() as client:
            return await client.complete(provider, request, on_event=count)

    return asyncio.run(main()), deltas


def question(**extra: object) -> ChatRequest:
    return ChatRequest(
        model="smollm2",
        messages=[
            ChatMessage(role="system", content="Reply with a JSON object only."),
            ChatMessage(role="user", content="What colour is the sky on a clear day?"),
        ],
        temperature=0,
        **extra,  # type: ignore[arg-type]
    )


def openai_compatible(server: LocalServer) -> ProviderConfig:
    return ProviderConfig(
        id="llama", kind="openai_compatible", model="smollm2", base_url=f"{server.base_url}/v1"
    )


def test_schema_constrained_streaming_yields_schema_valid_json(
    llama_server: LocalServer,  # noqa: F811
) -> None:
    result, deltas = ask(
        openai_compatible(llama_server), question(response_format=JSON_FORMAT, max_tokens=200)
    )
    assert result.status == "ok", result.to_json()
    assert deltas > 1  # it really streamed
    Draft202012Validator(SCHEMA).validate(json.loads(result.text))
    assert result.finish_reason == "stop"
    assert result.usage.output_tokens
    assert result.first_token_ms is not None


def test_a_too_small_max_tokens_is_a_typed_partial_result(llama_server: LocalServer) -> None:  # noqa: F811
    result, _ = ask(
        openai_compatible(llama_server), question(response_format=JSON_FORMAT, max_tokens=12)
    )
    assert result.status == "partial"
    assert result.finish_reason == "length"
    assert result.error is not None
    assert result.error.kind == "invalid_output"
    assert result.usage.output_tokens == 12  # cut exactly where asked; whatever came is kept
    assert result.text.lstrip().startswith("{")  # the JSON so far is kept, unfinished
    with pytest.raises(json.JSONDecodeError):
        json.loads(result.text)


def test_the_anthropic_adapter_streams_from_v1_messages(
    llama_server: LocalServer,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "local-test-key")
    provider = ProviderConfig(
        id="anth", kind="anthropic", model="smollm2", base_url=llama_server.base_url
    )
    result, deltas = ask(provider, question(max_tokens=60))
    assert result.status in ("ok", "partial"), result.to_json()
    assert deltas > 1
    assert result.text.strip()
    assert result.finish_reason in ("stop", "length")


def test_unconstrained_prose_where_json_was_asked_is_invalid_output(
    llama_server: LocalServer,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Anthropic's API takes no response_format: the adapter drops it, the model writes prose
    monkeypatch.setenv("ANTHROPIC_API_KEY", "local-test-key")
    provider = ProviderConfig(
        id="anth", kind="anthropic", model="smollm2", base_url=llama_server.base_url
    )
    request = ChatRequest(
        model="smollm2",
        messages=[ChatMessage(role="user", content="Tell me a short story about a cat.")],
        response_format=JSON_FORMAT,
        max_tokens=80,
        temperature=0,
    )
    result, _ = ask(provider, request)
    assert result.dropped == ["response_format"]
    assert result.status in ("invalid_output", "partial")
    assert result.error is not None
    assert result.error.kind == "invalid_output"
    assert result.text


def test_models_list_shows_that_the_configured_server_answers(llama_server: LocalServer) -> None:  # noqa: F811
    added = run_laika(
        "models", "add", "local", "--kind", "openai_compatible",
        "--base-url", f"{llama_server.base_url}/v1", "--model", "smollm2",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = run_laika("models", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    providers = {p["id"]: p for p in json.loads(listed.stdout)["providers"]}
    assert providers["local"]["answers"] is True
    assert providers["local"]["detail"].startswith("ok")
    assert providers["builtin"]["answers"] is True
