"""A real loopback HTTP server for test pages: `serve(page_for)` where `page_for(path)` gives
the HTML for a request path (None: 404), (body, Content-Type) for anything else, or a
`Redirect`. `serve_at` binds a chosen loopback address and port (127.0.0.2 is loopback too)
and counts the connections it accepted."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Redirect:
    location: str
    status: int = 302


PageFor = Callable[[str], str | bytes | tuple[bytes, str] | Redirect | None]


@dataclass
class Served:
    base: str
    """`http://ADDRESS:PORT`."""
    port: int
    connections: list[str] = field(default_factory=list)
    """The peer address of every connection accepted, in order."""
    paths: list[str] = field(default_factory=list)
    """Every request path served, in order."""
    hosts: list[str] = field(default_factory=list)
    """Every request's Host header, in order."""


@contextmanager
def serve(page_for: PageFor) -> Iterator[str]:
    """Yield the base URL (`http://127.0.0.1:PORT`) while the server runs."""
    with serve_at(page_for) as served:
        yield served.base


@contextmanager
def serve_at(page_for: PageFor, address: str = "127.0.0.1", port: int = 0) -> Iterator[Served]:
    """Serve on `address:port` (0: any free port) and record what reached the server."""
    served = Served(base="", port=0)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.paths.append(self.path)
            served.hosts.append(self.headers.get("Host", ""))
            page = page_for(self.path)
            if page is None:
                self.send_error(404)
                return
            if isinstance(page, Redirect):
                self.send_response(page.status)
                self.send_header("Location", page.location)
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                return
            kind = "text/html; charset=utf-8"
            if isinstance(page, tuple):
                page, kind = page
            body = page.encode() if isinstance(page, str) else page
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        def verify_request(self, request: object, client_address: object) -> bool:
            served.connections.append(str(client_address))
            return True

    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    Server.address_family = family
    server = Server((address, port), Handler)
    served.port = server.server_address[1]
    host = f"[{address}]" if family == socket.AF_INET6 else address
    served.base = f"http://{host}:{served.port}"
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
