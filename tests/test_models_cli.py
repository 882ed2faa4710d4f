"""`laika models`: saved config holds key NAMES only; list probes each provider."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from llm_servers import ProviderServer, Reply, closed_port_url
from support import run_laika


@pytest.mark.slow  # > 3 s with the cores busy
def test_add_list_remove_and_the_key_is_never_saved() -> None:
    secret = "sk-never-on-disk-" + "Q1" * 12
    env = {**os.environ, "MY_OPENAI_API_KEY": secret}
    server = ProviderServer(
        [Reply(content_type="application/json", chunks=['{"data": [{"id": "m1"}, {"id": "m2"}]}'])],
        intercept_discovery=False,
    )
    try:
        added = run_laika(
            "models", "add", "work", "--kind", "openai", "--model", "gpt-x",
            "--base-url", server.url + "/v1", "--api-key-env", "MY_OPENAI_API_KEY", env=env,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        down = run_laika(
            "models",
            "add",
            "down",
            "--kind",
            "ollama",
            "--model",
            "llama3.2",
            "--base-url",
            closed_port_url(),
            env=env,
        )
        assert down.returncode == 0, down.stderr
        listed = run_laika("models", "list", "--json", env=env)
    finally:
        server.close()
    providers = {p["id"]: p for p in json.loads(listed.stdout)["providers"]}
    assert providers["work"]["answers"] is True
    assert providers["work"]["detail"] == "ok, 2 models"
    assert providers["work"]["api_key_env"] == "MY_OPENAI_API_KEY"
    assert providers["work"]["api_key_set"] is True
    assert server.received[0].path == "/v1/models"
    assert server.received[0].headers["authorization"] == f"Bearer {secret}"  # used, not stored
    assert providers["down"]["answers"] is False
    assert providers["builtin"]["kind"] == "offline"
    assert secret not in listed.stdout
    saved = Path(os.environ["LAIKA_HOME"]) / "config" / "registry.json"
    assert secret not in saved.read_text()
    stored = json.loads(saved.read_text())["providers"]["items"]
    assert stored[0]["api_key_env"] == "MY_OPENAI_API_KEY"
    removed = run_laika("models", "remove", "down", env=env)
    assert removed.returncode == 0
    missing = run_laika("models", "remove", "down", env=env)
    assert missing.returncode == 1
    assert "laika models list" in missing.stderr


def test_a_provider_that_needs_a_base_url_is_refused_with_the_reason() -> None:
    done = run_laika("models", "add", "x", "--kind", "openai_compatible", "--model", "m")
    assert done.returncode == 1
    assert "needs a base_url" in done.stderr
