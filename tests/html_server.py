"""A real loopback HTTP server for test pages: `serve(page_for)` where `page_for(path)` gives
the HTML for a request path (None: 404), or (body, Content-Type) for anything else."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

PageFor = Callable[[str], str | bytes | tuple[bytes, str] | None]


@contextmanager
def serve(page_for: PageFor) -> Iterator[str]:
    """Yield the base URL (`http://127.0.0.1:PORT`) while the server runs."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = page_for(self.path)
            if page is None:
                self.send_error(404)
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

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
