"""The real local model: llama-server + SmolLM2, as the LLM adapters and demos see it.

Assertions are on framing and schema validity, never on the model's wording.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from laika_host.cli.local_model import local_model
from laika_host.llm import local_model as lm
from laika_host.llm.local_model import LocalModelError, LocalServer

from llm_fixtures import llama_server  # noqa: F401  (a pytest fixture)

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "minLength": 1, "maxLength": 80}},
    "required": ["answer"],
    "additionalProperties": False,
}
QUESTION = [{"role": "user", "content": "What is the capital of France? Reply in JSON."}]


def stream_chat(server: LocalServer, body: dict[str, Any]) -> list[dict[str, Any]]:
    """POST a streamed chat completion; check the SSE framing; return the chunks."""
    payloads: list[str] = []
    with (
        httpx.Client(base_url=server.base_url, timeout=120) as client,
        client.stream("POST", "/v1/chat/completions", json={**body, "stream": True}) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data: "):
                payloads.append(line.removeprefix("data: "))
            else:
                assert not line.strip() or line.startswith(":"), line
    assert payloads, "no SSE data lines"
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(payload) for payload in payloads[:-1]]
    assert all(chunk["object"] == "chat.completion.chunk" for chunk in chunks)
    return chunks


def content_of(chunks: list[dict[str, Any]]) -> str:
    return "".join(
        choice["delta"].get("content") or "" for chunk in chunks for choice in chunk["choices"]
    )


def finish_reason(chunks: list[dict[str, Any]]) -> str | None:
    reasons = [c["finish_reason"] for chunk in chunks for c in chunk["choices"]]
    assert all(reason is None for reason in reasons[:-1]), reasons
    return reasons[-1]


def json_schema_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}


@pytest.mark.real_llm
def test_health(llama_server: LocalServer) -> None:  # noqa: F811
    response = httpx.get(f"{llama_server.base_url}/health", timeout=10)
    assert response.status_code == 200


@pytest.mark.real_llm
def test_streamed_json_schema_output_is_valid(llama_server: LocalServer) -> None:  # noqa: F811
    chunks = stream_chat(
        llama_server,
        {
            "messages": QUESTION,
            "temperature": 0,
            "max_tokens": 200,
            "response_format": json_schema_format(ANSWER_SCHEMA),
        },
    )
    assert finish_reason(chunks) == "stop"
    Draft202012Validator(ANSWER_SCHEMA).validate(json.loads(content_of(chunks)))


@pytest.mark.real_llm
def test_max_tokens_ends_with_finish_reason_length(llama_server: LocalServer) -> None:  # noqa: F811
    chunks = stream_chat(
        llama_server,
        {
            "messages": QUESTION,
            "temperature": 0,
            "max_tokens": 5,
            "response_format": json_schema_format(ANSWER_SCHEMA),
        },
    )
    assert finish_reason(chunks) == "length"


@pytest.mark.real_llm
def test_cli_setup_prints_existing_paths(llama_server: LocalServer) -> None:  # noqa: F811
    result = CliRunner().invoke(local_model, ["setup", "--json"])
    assert result.exit_code == 0, result.output
    paths = json.loads(result.output)
    assert Path(paths["weights"]).suffix == ".gguf"
    assert os.access(paths["llama_server"], os.X_OK)


# Ctrl-C must reach the command even when this test runs as a background job, whose shell
# starts it with SIGINT ignored (an inherited SIG_IGN keeps Python's KeyboardInterrupt off).
SERVE = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "from laika_host.cli.local_model import local_model; local_model()"
)


@pytest.mark.real_llm
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_cli_serve_runs_until_stopped(llama_server: LocalServer, stop_signal: int) -> None:  # noqa: F811
    serve = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # on failure, kill its llama-server too
    )
    try:
        assert serve.stdout is not None
        base_url = serve.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        assert httpx.get(f"{base_url}/health", timeout=10).status_code == 200
        serve.send_signal(stop_signal)
        assert serve.wait(timeout=30) == 0
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
        serve.wait()
        serve.stdout.close()  # type: ignore[union-attr]
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{base_url}/health", timeout=2)


def test_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAIKA_LLAMA_CACHE", str(tmp_path))
    assert lm.default_cache_dir() == tmp_path


def test_cached_binary_is_used_without_building(tmp_path: Path) -> None:
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    assert lm.llama_server_path(tmp_path) == binary
    assert not (tmp_path / "build.log").exists()


def test_a_server_that_exits_fails_with_its_log(tmp_path: Path) -> None:
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\necho 'cannot load model' >&2\nexit 3\n")
    binary.chmod(0o755)
    log = tmp_path / "server.log"
    server = LocalServer(
        model=tmp_path / "missing.gguf", binary=binary, log_path=log, startup_timeout=10
    )
    with pytest.raises(LocalModelError, match=r"(?s)status 3.*cannot load model"):
        server.start()
    assert log.read_text() == "cannot load model\n"
