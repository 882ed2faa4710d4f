"""A loopback forwarder that records what a client sent a real server.

A real model server does not show the prompt it was given; this sits in front of it (any
path, any method), passes each request through unchanged, streams the reply back, and keeps
each request's path and JSON body, so a test can read the prompt a real model answered.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

HOP_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection"})


class RecordingProxy(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, target: str) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.target = target.rstrip("/")
        self.received: list[tuple[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def bodies(self, path_end: str) -> list[Any]:
        return [body for path, body in self.received if path.endswith(path_end)]


class _Forward(http.server.BaseHTTPRequestHandler):
    server: RecordingProxy

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a test's output is its own."""

    def do_GET(self) -> None:
        self._forward(b"")

    def do_POST(self) -> None:
        self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _forward(self, body: bytes) -> None:
        try:
            parsed: Any = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        self.server.received.append((self.path, parsed))
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
        with (
            httpx.Client(timeout=300) as client,
            client.stream(
                self.command, self.server.target + self.path, content=body, headers=headers
            ) as reply,
        ):
            self.send_response(reply.status_code)
            for name, value in reply.headers.items():
                if name.lower() not in HOP_HEADERS | {"content-encoding"}:
                    self.send_header(name, value)
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in reply.iter_bytes():
                self.wfile.write(chunk)
                self.wfile.flush()


@contextmanager
def recording(target: str) -> Iterator[RecordingProxy]:
    proxy = RecordingProxy(target)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()
