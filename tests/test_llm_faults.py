"""Faults, each against a real loopback server: the right error kind, exactly the retries
spec 001 allows, partial text kept, log events present, and the key never leaked."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest

from laika_host.llm.client import RETRY_DELAY, ChatClient, ChatResult
from laika_host.llm.config import ProviderConfig, Timeouts
from laika_host.llm.contract import ChatMessage, ChatRequest

from llm_servers import ProviderServer, Reply, closed_port_url, openai_sse

KEY = "sk-fault-" + "K7x" * 10
REQUEST = ChatRequest(model="m", messages=[ChatMessage(role="user", content="hi")])


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def provider(url: str, *, read: float = 60.0) -> ProviderConfig:
    return ProviderConfig(
        id="oa", kind="openai", model="m", base_url=url, timeouts=Timeouts(read=read, connect=2)
    )


def call(config: ProviderConfig, *, retry_delay: float = 0.05) -> tuple[ChatResult, float]:
    async def main() -> ChatResult:
        async with ChatClient(retry_delay=retry_delay) as client:
            return await client.complete(config, REQUEST)

    started = time.monotonic()
    result = asyncio.run(main())
    return result, time.monotonic() - started


def events(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "laika.llm"]


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="laika.llm")
    return caplog


def assert_no_key(result: ChatResult, caplog: pytest.LogCaptureFixture) -> None:
    assert KEY not in json.dumps(result.to_json())
    assert KEY not in caplog.text


def test_connection_refused_is_retried_once_after_two_seconds(
    logs: pytest.LogCaptureFixture,
) -> None:
    result, elapsed = call(provider(closed_port_url()), retry_delay=RETRY_DELAY)
    assert RETRY_DELAY == 2.0
    assert result.status == "error"
    assert result.error is not None
    assert result.error.kind == "network"
    assert result.attempts == 2
    assert elapsed >= 2.0
    kinds = [e["event"] for e in events(logs)]
    assert kinds == [
        "llm_request_started",
        "llm_request_retry",
        "llm_request_started",
        "llm_request_failed",
    ]
    assert_no_key(result, logs)


def test_a_stall_before_any_data_is_retried_once_then_a_timeout(
    logs: pytest.LogCaptureFixture,
) -> None:
    server = ProviderServer([Reply(chunks=openai_sse(["x"]), stall_after=0, stall_seconds=2)])
    result, _ = call(provider(server.url, read=0.4))
    server.close()
    assert len(server.received) == 2
    assert result.error is not None
    assert result.error.kind == "timeout"
    assert "no data for 0.4 s" in result.error.message
    assert result.status == "error"
    assert_no_key(result, logs)


def test_a_stall_after_text_keeps_the_partial_text_and_does_not_repeat(
    logs: pytest.LogCaptureFixture,
) -> None:
    server = ProviderServer(
        [Reply(chunks=openai_sse(["Half ", "an ", "answer"]), stall_after=2, stall_seconds=2)]
    )
    result, _ = call(provider(server.url, read=0.4))
    server.close()
    assert len(server.received) == 1  # a retry would repeat what was already streamed
    assert result.status == "partial"
    assert result.text == "Half an "
    assert result.error is not None
    assert result.error.kind == "timeout"
    failed = [e for e in events(logs) if e["event"] == "llm_request_failed"]
    assert failed[0]["chunks_received"] == 2


def test_a_connection_dropped_mid_stream_keeps_the_partial_text(
    logs: pytest.LogCaptureFixture,
) -> None:
    server = ProviderServer([Reply(chunks=openai_sse(["kept ", "lost"]), drop_after=1)])
    result, _ = call(provider(server.url))
    server.close()
    assert result.status == "partial"
    assert result.text == "kept "
    assert result.error is not None
    assert result.error.kind == "network"
    assert result.attempts == 1


def test_401_is_auth_not_retried_and_the_key_never_appears(logs: pytest.LogCaptureFixture) -> None:
    body = json.dumps(
        {
            "error": {
                "message": f"Incorrect API key provided: {KEY}",
                "type": "invalid_request_error",
            }
        }
    )
    server = ProviderServer([Reply(status=401, content_type="application/json", chunks=[body])])
    result, _ = call(provider(server.url))
    server.close()
    assert len(server.received) == 1
    assert result.error is not None
    assert result.error.kind == "auth"
    assert result.error.spec_type == "invalid_request_error"
    assert "HTTP 401" in result.error.message
    assert "check the API key" in result.error.message
    assert_no_key(result, logs)


def test_429_honors_retry_after_then_succeeds(logs: pytest.LogCaptureFixture) -> None:
    limited = Reply(
        status=429,
        content_type="application/json",
        chunks=['{"error": {"message": "slow down", "type": "rate_limit_error"}}'],
        headers={"Retry-After": "1"},
    )
    server = ProviderServer([limited, Reply(chunks=openai_sse(["done"]))])
    result, elapsed = call(provider(server.url))
    server.close()
    assert len(server.received) == 2
    assert elapsed >= 1.0
    assert result.status == "ok"
    assert result.text == "done"
    retry = next(e for e in events(logs) if e["event"] == "llm_request_retry")
    assert retry["reason"] == "rate_limit"
    assert retry["delay"] == 1.0


def test_429_with_a_long_retry_after_is_returned_not_waited_for() -> None:
    limited = Reply(
        status=429, content_type="application/json", chunks=["{}"], headers={"Retry-After": "3600"}
    )
    server = ProviderServer([limited])
    result, elapsed = call(provider(server.url))
    server.close()
    assert len(server.received) == 1
    assert elapsed < 5
    assert result.error is not None
    assert result.error.kind == "rate_limit"
    assert result.error.spec_type == "rate_limit_error"
    assert result.error.retry_after == 3600


def test_500_is_retried_twice_then_reported(logs: pytest.LogCaptureFixture) -> None:
    server = ProviderServer([Reply(status=500, content_type="text/plain", chunks=["boom"])])
    result, _ = call(provider(server.url))
    server.close()
    assert len(server.received) == 3  # the first try and two bounded retries
    assert result.error is not None
    assert result.error.kind == "provider"
    assert result.error.spec_type == "api_error"
    assert "boom" in result.error.message
    assert [e["event"] for e in events(logs)].count("llm_request_retry") == 2


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (
            400,
            '{"error": {"message": "This model\'s maximum context length is 8192 tokens"}}',
            "context_too_long",
        ),
        (400, '{"error": {"message": "bad field"}}', "bad_request"),
        (404, '{"error": "model not found"}', "bad_request"),
        (413, "too big", "context_too_long"),
        (403, "{}", "auth"),
    ],
)
def test_statuses_map_to_kinds(status: int, body: str, kind: str) -> None:
    server = ProviderServer([Reply(status=status, content_type="application/json", chunks=[body])])
    result, _ = call(provider(server.url))
    server.close()
    assert len(server.received) == 1
    assert result.error is not None
    assert result.error.kind == kind


def test_completed_requests_log_started_chunks_and_completed(
    logs: pytest.LogCaptureFixture,
) -> None:
    server = ProviderServer([Reply(chunks=openai_sse(["a", "b"]))])
    result, _ = call(provider(server.url + "/v1"))
    server.close()
    found = events(logs)
    kinds = [e["event"] for e in found]
    assert kinds[0] == "llm_request_started"
    assert kinds[-1] == "llm_request_completed"
    assert kinds.count("llm_response_chunk") == result.chunks
    assert found[0]["endpoint"] == server.url + "/v1/chat/completions"
    assert found[-1]["total_chunks"] == result.chunks
    assert {e["request_id"] for e in found} == {result.provider_meta.request_id}
    assert_no_key(result, logs)
