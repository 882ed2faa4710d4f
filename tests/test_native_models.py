"""`models.*` through a real host: list, add, test (against a loopback server), set the
default, remove; a key value never appears in a reply, the providers file or the log."""

from __future__ import annotations

import json
from pathlib import Path

from llm_servers import ProviderServer, Reply
from native_client import Client, HostProcess

SECRET = "sk-test-" + "Zq9" * 12


def test_models_messages_manage_providers_and_never_show_a_key(tmp_path: Path) -> None:
    server = ProviderServer(
        [Reply(content_type="application/json", chunks=[json.dumps({"data": [{"id": "m"}]})])],
        intercept_discovery=False,
    )
    host = HostProcess(tmp_path, env={"LAIKA_TEST_KEY": SECRET})
    client = Client(host)
    frames = []
    try:
        frames.append(empty := client.call("models.list"))
        frames.append(
            added := client.call(
                "models.add",
                {
                    "id": "loop",
                    "kind": "openai_compatible",
                    "model": "m",
                    "base_url": f"{server.url}/v1",
                    "key_env": "LAIKA_TEST_KEY",
                },
            )
        )
        frames.append(client.call("models.add", {"id": "cloud", "kind": "openai", "model": "g"}))
        frames.append(
            with_key := client.call("models.add", {**added_payload(server), "api_key": SECRET})
        )
        frames.append(
            needs_url := client.call(
                "models.add", {"id": "x", "kind": "openai_compatible", "model": "m"}
            )
        )
        frames.append(listed := client.call("models.list"))
        frames.append(tested := client.call("models.test", {"id": "loop"}))
        frames.append(offline := client.call("models.set_default", {"id": "offline"}))
        frames.append(after_offline := client.call("models.list"))
        client.call("collections.create", {"title": "Inbox"})
        frames.append(ask := client.call("chat.ask", {"question": "anything?"}))
        frames.append(cloud := client.call("models.set_default", {"id": "cloud"}))
        frames.append(client.call("models.remove", {"id": "cloud"}))
        frames.append(missing := client.call("models.remove", {"id": "cloud"}))
        frames.append(after_remove := client.call("models.list"))
    finally:
        host.kill()
        server.close()
    assert empty["result"]["providers"] == []
    assert empty["result"]["default"] is None
    assert empty["result"]["offline"]["default"] is True
    assert added["result"]["provider"]["key_env"] == "LAIKA_TEST_KEY"
    assert with_key["error"]["code"] == "bad_request"
    assert needs_url["error"]["code"] == "bad_request"
    assert "base_url" in needs_url["error"]["message"]
    rows = {row["id"]: row for row in listed["result"]["providers"]}
    assert rows["loop"]["key_set"] is True
    assert rows["cloud"]["key_env"] == "OPENAI_API_KEY"
    assert rows["cloud"]["key_set"] is False
    assert listed["result"]["default"] == "loop"
    assert rows["loop"]["default"] is True
    assert tested["result"]["answers"] is True
    assert tested["result"]["latency_ms"] >= 0
    assert server.received[0].headers["authorization"] == f"Bearer {SECRET}"  # only to its server
    assert offline["result"]["default"] is None
    assert after_offline["result"]["offline"]["default"] is True
    assert ask["result"]["provider"] == "offline"
    assert cloud["result"]["default"] == "cloud"
    assert missing["error"]["code"] == "not_found"
    assert [row["id"] for row in after_remove["result"]["providers"]] == ["loop"]
    assert after_remove["result"]["default"] == "loop"
    assert SECRET not in json.dumps(frames)
    assert SECRET not in (tmp_path / "config" / "registry.json").read_text()
    logs = "".join(path.read_text() for path in (tmp_path / "logs").glob("*"))
    assert SECRET not in logs
    assert SECRET not in host.stderr


def added_payload(server: ProviderServer) -> dict[str, str]:
    return {"id": "k", "kind": "openai_compatible", "model": "m", "base_url": f"{server.url}/v1"}


def test_models_test_of_a_dead_server_says_so_within_the_bound(tmp_path: Path) -> None:
    server = ProviderServer(
        [Reply(content_type="application/json", chunks=["{}"])], intercept_discovery=False
    )
    url = server.url
    server.close()  # nothing listens there any more
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        client.call(
            "models.add", {"id": "dead", "kind": "openai_compatible", "model": "m", "base_url": url}
        )
        tested = client.call("models.test", {"id": "dead"})
        unknown = client.call("models.test", {"id": "nope"})
    finally:
        host.kill()
    assert tested["result"]["answers"] is False
    assert tested["result"]["detail"].startswith("no answer")
    assert tested["result"]["latency_ms"] < 10_000
    assert unknown["error"]["code"] == "not_found"
