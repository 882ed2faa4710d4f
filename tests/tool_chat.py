"""Helpers for the tool-loop tests: a recording model server that replays LLMCP replies with
tool calls, and a native client that keeps several requests in flight (a chat waits for a
`tool.decide` sent while it runs)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from laika_host.llm.config import ProviderConfig, save_providers

from llm_servers import ProviderServer, Reply, openai_sse
from native_client import HostProcess

WINDOW = 32_000
"""A context window with room for the tool list (the default 2,048 offers no tools)."""


def reply(markdown: str, calls: list[Any] | None = None, citations: list[Any] | None = None) -> str:
    """One model reply in JSON mode, with `tool_calls` as given (valid or not)."""
    packet: dict[str, Any] = {"assistant": {"markdown": markdown}, "citations": citations or []}
    if calls is not None:
        packet["tool_calls"] = calls
    return json.dumps(packet)


def model_server(texts: list[str]) -> ProviderServer:
    """Replays `texts` to the chat requests, in order (the last repeats); anything else (a
    turn's llama.cpp `/tokenize`) is answered 404, so the turn's own estimate stands."""
    replies = [Reply(chunks=openai_sse([text])) for text in texts]
    return ProviderServer(replies, only="/chat/completions")


def chat_bodies(server: ProviderServer) -> list[dict[str, Any]]:
    """The chat requests the server received, in order."""
    return [r.body for r in server.received if r.path.endswith("/chat/completions")]


def last_message(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool results the model was told in this request's last message."""
    packet = json.loads(last_message(body))
    assert packet["sender"] == {"role": "tool"}
    results: list[dict[str, Any]] = packet["tool_results"]
    return results


def provider(server: ProviderServer, home: Path, provider_id: str = "rec") -> ProviderConfig:
    config = ProviderConfig(
        id=provider_id,
        kind="openai_compatible",
        model="m",
        base_url=server.url,
        context_window=WINDOW,
    )
    save_providers([config], home / "providers.json")
    return config


def tool_rows(home: Path) -> list[dict[str, Any]]:
    """Every row of the `tool_calls` table, oldest first (read with sqlite3 directly)."""
    with contextlib.closing(sqlite3.connect(home / "laika.db")) as db, db:
        db.row_factory = sqlite3.Row
        rows = db.execute("SELECT * FROM tool_calls ORDER BY created_at, rowid").fetchall()
    return [dict(row) for row in rows]


class Session:
    """A native host with several requests in flight: frames for other requests are kept
    until asked for."""

    def __init__(self, host: HostProcess) -> None:
        self.host = host
        self.frames: list[dict[str, Any]] = []
        self.number = 0

    def send(self, type_: str, payload: dict[str, Any] | None = None) -> str:
        self.number += 1
        request_id = f"t{self.number}"
        self.host.send({"id": request_id, "type": type_, "payload": payload or {}})
        return request_id

    def call(self, type_: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.reply(self.send(type_, payload))

    def _next(self, match: Any, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for index, frame in enumerate(self.frames):
                if match(frame):
                    return self.frames.pop(index)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching frame; kept: {self.frames[-5:]}")
            self.frames.append(self.host.recv(timeout=left))

    def event(self, request_id: str, status: str, timeout: float = 30) -> dict[str, Any]:
        """The next `tool_call` event of `request_id` with this status (earlier ones of
        other statuses are dropped)."""

        def match(frame: dict[str, Any]) -> bool:
            return frame.get("id") == request_id and frame.get("event") == "tool_call"

        while True:
            found = self._next(match, timeout)["data"]
            if found["status"] == status:
                return dict(found)

    def reply(self, request_id: str, timeout: float = 60) -> dict[str, Any]:
        def match(frame: dict[str, Any]) -> bool:
            return frame.get("id") == request_id and "ok" in frame

        return self._next(match, timeout)

    def events(self, request_id: str) -> list[dict[str, Any]]:
        """The `tool_call` events of `request_id` still kept (after its reply)."""
        return [
            frame["data"]
            for frame in self.frames
            if frame.get("id") == request_id and frame.get("event") == "tool_call"
        ]
