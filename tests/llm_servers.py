"""Loopback HTTP servers that speak each provider's documented stream format, record every
request they receive, and misbehave on cue (stall, drop, error statuses, bad lines)."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """One scripted response. `chunks` are written one by one as HTTP/1.1 chunks."""

    status: int = 200
    content_type: str = "text/event-stream"
    chunks: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    delay_before: float = 0.0  # seconds before the first chunk (after the headers)
    delay_between: float = 0.0
    stall_after: int | None = None  # stop sending after this many chunks, keep the socket open
    stall_seconds: float = 0.0
    drop_after: int | None = None  # close the connection after this many chunks


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


WINDOW_PATHS = ("/props", "/models", "/api/show", "/api/v0/models")
"""Where `llm/window.py` asks a server for its model's context window."""


class ProviderServer:
    """Serves the scripted replies in order (the last one repeats)."""

    def __init__(
        self,
        replies: list[Reply],
        *,
        only: str | None = None,
        windows: dict[str, Any] | None = None,
        intercept_discovery: bool = True,
    ) -> None:
        """`only`: replies go to POSTs whose path ends with it; other POSTs get a 404 (and
        are recorded) without using up a reply (llama.cpp's `/tokenize`, say)."""
        self.replies = replies
        self.received: list[Received] = []
        self.windows = windows or {}
        """Bodies for the context-window questions (`llm/window.py`: `/props`, `/models`,
        `/api/show`, ...) by path ending; each unlisted one gets a 404. Neither is recorded
        in `received` nor uses up a reply: they are in `discovery`."""
        self.discovery: list[str] = []
        self.intercept_discovery = intercept_discovery
        """False: a GET of `/models` is served from `replies` like any request (a probe)."""
        self.only = only
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if server.discovery_asked(self):
                    return
                server.received.append(
                    Received(
                        self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw)
                    )
                )
                if server.only is not None and not self.path.endswith(server.only):
                    server.play(self, Reply(status=404, content_type="application/json"))
                    return
                answered = [r for r in server.received if r.path.endswith(server.only or "")]
                index = min(len(answered), len(server.replies)) - 1
                server.play(self, server.replies[index])

            def do_GET(self) -> None:
                if server.discovery_asked(self):
                    return
                server.received.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, {})
                )
                index = min(len(server.received), len(server.replies)) - 1
                server.play(self, server.replies[index])

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def play(self, handler: http.server.BaseHTTPRequestHandler, reply: Reply) -> None:
        handler.send_response(reply.status)
        handler.send_header("Content-Type", reply.content_type)
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        if reply.status >= 400:
            body = "".join(reply.chunks).encode()
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.flush()
        time.sleep(reply.delay_before)
        for number, chunk in enumerate(reply.chunks):
            if reply.stall_after is not None and number == reply.stall_after:
                time.sleep(reply.stall_seconds)
                return
            if reply.drop_after is not None and number == reply.drop_after:
                handler.wfile.flush()
                handler.connection.shutdown(socket.SHUT_RDWR)
                return
            data = chunk.encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
            time.sleep(reply.delay_between)
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()

    def discovery_asked(self, handler: http.server.BaseHTTPRequestHandler) -> bool:
        path = handler.path
        if not path.endswith(WINDOW_PATHS) or not self.intercept_discovery:
            return False
        self.discovery.append(path)
        body = next((v for k, v in self.windows.items() if path.endswith(k)), None)
        if body is None:
            self.play(handler, Reply(status=404, content_type="application/json"))
        else:
            self.play(handler, Reply(content_type="application/json", chunks=[json.dumps(body)]))
        return True

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _QuietServer(http.server.ThreadingHTTPServer):
    """Clients that hang up early (timeouts, drops under test) are expected, not errors."""

    def handle_error(self, request: object, client_address: object) -> None:
        pass


def closed_port_url() -> str:
    """A loopback address where nothing listens (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- documented stream shapes -------------------------------------------------------------


def openai_sse(
    pieces: list[str],
    *,
    finish: str = "stop",
    usage: tuple[int, int] | None = (12, 5),
    tool_calls: list[dict[str, Any]] | None = None,
) -> list[str]:
    chunks = []
    for piece in pieces:
        delta = {"content": piece}
        chunks.append(
            _data(
                {
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
            )
        )
    for number, call in enumerate(tool_calls or []):
        delta = {"tool_calls": [{"index": number, **call}]}
        chunks.append(_data({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}))
    chunks.append(_data({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}))
    if usage is not None:
        chunks.append(
            _data(
                {"choices": [], "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}
            )
        )
    chunks.append("data: [DONE]\n\n")
    return chunks


def anthropic_sse(
    pieces: list[str],
    *,
    stop_reason: str = "end_turn",
    usage: tuple[int, int] = (20, 7),
    tool: tuple[str, str, list[str]] | None = None,
) -> list[str]:
    chunks = [
        _event(
            "message_start",
            {
                "type": "message_start",
                "message": {"id": "msg_1", "usage": {"input_tokens": usage[0], "output_tokens": 1}},
            },
        ),
        _event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        _event("ping", {"type": "ping"}),
    ]
    chunks += [
        _event(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": piece},
            },
        )
        for piece in pieces
    ]
    chunks.append(_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
    if tool is not None:
        tool_id, name, parts = tool
        chunks.append(
            _event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 1,
                    "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}},
                },
            )
        )
        chunks += [
            _event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 1,
                    "delta": {"type": "input_json_delta", "partial_json": part},
                },
            )
            for part in parts
        ]
        chunks.append(_event("content_block_stop", {"type": "content_block_stop", "index": 1}))
    chunks.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason},
                "usage": {"output_tokens": usage[1]},
            },
        )
    )
    chunks.append(_event("message_stop", {"type": "message_stop"}))
    return chunks


def ollama_ndjson(
    pieces: list[str], *, done_reason: str = "stop", counts: tuple[int, int] = (30, 9)
) -> list[str]:
    lines = [
        json.dumps(
            {
                "model": "m",
                "created_at": "2026-11-22T00:00:00Z",
                "message": {"role": "assistant", "content": piece},
                "done": False,
            }
        )
        + "\n"
        for piece in pieces
    ]
    lines.append(
        json.dumps(
            {
                "model": "m",
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": done_reason,
                "prompt_eval_count": counts[0],
                "eval_count": counts[1],
            }
        )
        + "\n"
    )
    return lines


def _data(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload)}\n\n"


def _event(name: str, payload: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(payload)}\n\n"


def serve(replies: list[Reply]) -> Iterator[ProviderServer]:
    server = ProviderServer(replies)
    try:
        yield server
    finally:
        server.close()
