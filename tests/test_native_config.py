"""`config.*` through a real host, and a running host seeing a `laika config set` made by
another process without restarting: its next request uses the new value, and the port gets a
`config.changed` host event (`id` null)."""

from __future__ import annotations

import json
import os
import queue
import time
from pathlib import Path
from typing import Any

from native_client import Client, HostProcess
from support import run_laika, schema_validator


def _host_event(client: Client, path: str, timeout: float = 15.0) -> dict[str, Any]:
    """The next host event (`id` null) whose paths include `path` (those that arrived during
    a call first); replies are skipped."""
    deadline = time.monotonic() + timeout
    while True:
        if client.host_events:
            message = client.host_events.pop(0)
        else:
            try:
                message = client.host.recv(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("no host event arrived") from None
        if message.get("id") is None and "event" in message:
            schema_validator("native/event.schema.json").validate(message)
            assert message["event"] == "config.changed"
            if path in message["data"]["paths"]:
                return message


def test_a_running_host_sees_a_change_made_by_the_cli(tmp_path: Path) -> None:
    host = HostProcess(tmp_path, env={"LAIKA_CONFIG_POLL_SECONDS": "0.1"})
    client = Client(host)
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    try:
        added = run_laika(
            "models", "add", "loop", "--kind", "openai_compatible", "--model", "m",
            "--base-url", "http://127.0.0.1:9/v1", env=env,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        first = _host_event(client, "providers.items")
        before = client.call("models.list")
        assert before["result"]["default"] == "loop"
        assert run_laika("config", "set", "providers.default", "offline", env=env).returncode == 0
        changed = _host_event(client, "providers.default")
        assert changed["data"]["paths"] == ["providers.default"]
        assert changed["data"]["version"] == first["data"]["version"] + 1
        assert changed["seq"] == first["seq"] + 1
        after = client.call("models.list")
        assert after["result"]["default"] is None  # offline, without a restart
        assert after["result"]["offline"]["default"] is True
    finally:
        assert host.close() == 0


def test_config_messages_get_set_history_and_revert(tmp_path: Path) -> None:
    host = HostProcess(tmp_path, env={"LAIKA_CONFIG_POLL_SECONDS": "0.1"})
    client = Client(host)
    try:
        everything = client.call("config.get")
        assert everything["ok"], everything
        assert everything["result"]["value"]["ui"]["theme"] == "system"
        made = client.call("config.set", {"path": "ui.theme", "value": "dark"})
        assert made["ok"], made
        assert made["result"]["message"] == "config.set: ui.theme (asked by panel)"
        event = _host_event(client, "ui.theme")
        assert event["data"] == {"version": made["result"]["version"], "paths": ["ui.theme"]}
        got = client.call("config.get", {"path": "ui.theme"})
        assert (got["result"]["value"], got["result"]["version"]) == ("dark", 1)
        key = client.call(
            "config.set", {"path": "user.preferences.k", "value": "sk-" + "a1B2" * 10}
        )
        assert key["error"]["code"] == "bad_request"
        assert "environment variable" in key["error"]["message"]
        bad = client.call("config.set", {"path": "ui.theme", "value": 3})
        assert bad["error"]["code"] == "bad_request"
        assert "ui.theme" in bad["error"]["message"]
        missing = client.call("config.get", {"path": "ui.nothing"})
        assert missing["error"]["code"] == "bad_request"
        listed = client.call("config.history", {"path": "ui.theme"})
        commits = listed["result"]["commits"]
        assert [c["commit"] for c in commits] == [made["result"]["commit"], commits[1]["commit"]]
        client.call("config.set", {"path": "ui.theme", "value": "light"})
        conflict = client.call("config.revert", {"commit": made["result"]["commit"]})
        assert conflict["error"]["code"] == "conflict"
        unknown = client.call("config.revert", {"commit": "0000000"})
        assert unknown["error"]["code"] == "not_found"
        latest = client.call("config.history")["result"]["commits"][0]["commit"]
        undone = client.call("config.revert", {"commit": latest})
        assert undone["ok"], undone
        assert client.call("config.get", {"path": "ui.theme"})["result"]["value"] == "dark"
        stored = json.loads((tmp_path / "config" / "registry.json").read_text())
        assert stored["ui"]["theme"] == "dark"
    finally:
        assert host.close() == 0
