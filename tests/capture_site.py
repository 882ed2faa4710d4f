"""Loopback fixture pages for the capture tests: each block of the observatory page shows one
thing the serializer must keep (shadow DOM, a same-origin frame, a lazy image, closed details)
or drop (hidden blocks, a cross-origin frame, scripts); a long article; a page served only
with a session cookie. Every marker phrase is unique, so a test can look for it anywhere."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

SESSION_COOKIE = "laika_session=moonlit-harbour-7"
"""`name=value` the private page needs; without it the server answers 403."""

KEPT = {
    "shadow": "Shadow starlight spreads across the northern ridge every clear night",
    "slotted": "Slotted comet notes stay visible inside the shadow card",
    "declarative": "Declarative nebula text lives in a server rendered shadow root",
    "frame": "Framed meteor logs record the brightest trails of the season",
    "details": "Folded eclipse timings wait inside a closed disclosure widget",
    "visible_child": "A visible child of an invisible parent still shows its aurora",
}
"""Phrases the user can see (or reveal): the stored Markdown must hold each one."""

DROPPED = {
    "display": "Suppressed display block about lunar dust",
    "attribute": "Suppressed hidden attribute block about solar wind",
    "aria": "Suppressed aria hidden block about planetary rings",
    "visibility": "Suppressed visibility block about galactic haze",
    "foreign": "Foreign frame text from another origin about quasars",
    "script": "scriptMarkerQuasarPulse",
    "noscript": "Suppressed noscript block about dark matter",
    "template": "Suppressed template block about cosmic strings",
    "unslotted": "Suppressed unslotted light child about pulsars",
}
"""Phrases that are in the page but not on screen: the stored Markdown must hold none."""

LAZY_IMAGE = "/img/lazy-telescope.jpg"
SRCSET_LARGE = "/img/observatory-1600.jpg"

_PARAGRAPH = (
    "<p>{extra} Observers at the mountain station keep a careful record of each night under "
    "the dome, noting the seeing, the transparency and the objects they followed.</p>"
)

OBSERVATORY = f"""<!doctype html><html lang="en-GB"><head><title>Observatory notes</title>
<link rel="canonical" href="/notes/observatory">
<link rel="stylesheet" href="/missing.css">
<style>.gone {{ display: none }} .ghost {{ visibility: hidden }} .ghost p {{ visibility: visible }}</style>
<script>document.title = "Observatory notes"; var marker = "{DROPPED["script"]}";</script>
</head><body>
<nav><a href="/">Home</a> <a href="/archive">Archive</a></nav>
<article><h1>Observatory notes</h1>
{_PARAGRAPH.format(extra="The first entries describe the winter sky and its long clear nights.")}
<sky-card><span>{DROPPED["unslotted"]}</span><em slot="note">{KEPT["slotted"]}</em></sky-card>
<nebula-box><template shadowrootmode="open"><p>{KEPT["declarative"]}, kept.</p></template></nebula-box>
{_PARAGRAPH.format(extra="The logs below come from the station's own frame.")}
<iframe src="/frame" title="logs" width="600" height="200"></iframe>
<iframe src="FOREIGN/foreign" title="foreign" width="600" height="100"></iframe>
<div class="gone"><p>{DROPPED["display"]}, never shown.</p></div>
<div hidden><p>{DROPPED["attribute"]}, never shown.</p></div>
<div aria-hidden="true"><p>{DROPPED["aria"]}, never shown.</p></div>
<div class="ghost">{DROPPED["visibility"]}, never shown.<p>{KEPT["visible_child"]}.</p></div>
<noscript><p>{DROPPED["noscript"]}</p></noscript>
<template><p>{DROPPED["template"]}</p></template>
<figure><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="{LAZY_IMAGE}"
 alt="The lazy telescope" width="640" height="480"><figcaption>The main telescope</figcaption></figure>
<figure><img src="/img/observatory-400.jpg" alt="The dome at dusk" width="640" height="480"
 srcset="/img/observatory-400.jpg 400w, {SRCSET_LARGE} 1600w, /img/observatory-800.jpg 800w">
<figcaption>The dome at dusk</figcaption></figure>
<details><summary>Eclipse timings</summary><p>{KEPT["details"]}, with every contact time.</p></details>
{_PARAGRAPH.format(extra="The last entries close the season with a note on the spring equinox.")}
<p><button onclick="alert(1)">Subscribe</button></p>
</article>
<footer>Station office</footer>
<script>
customElements.define("sky-card", class extends HTMLElement {{
  constructor() {{
    super();
    const root = this.attachShadow({{ mode: "open" }});
    root.innerHTML = '<style>p {{ color: navy }}</style><p>{KEPT["shadow"]}.</p>'
      + '<p class="slot-line"><slot name="note"></slot></p>';
  }}
}});
</script>
</body></html>"""

FRAME = f"""<!doctype html><html><head><title>Logs</title></head><body>
<p>{KEPT["frame"]}, one line per trail.</p><p>Each trail gets its time, its length and its
colour, so the season's summary can be written from the logs alone.</p></body></html>"""

FOREIGN = f"<!doctype html><html><body><p>{DROPPED['foreign']}.</p></body></html>"

PRIVATE_TEXT = "Members only: the private star charts of the mountain station"
PRIVATE = f"""<!doctype html><html><head><title>Private charts</title></head><body><article>
<h1>Private charts</h1><p>{PRIVATE_TEXT}, shared with those who hold a session.</p>
<p>These charts list the variable stars the members follow, with the dates of their maxima and
the comparison stars used for each estimate.</p></article></body></html>"""


def long_article(target_bytes: int) -> str:
    """A plain article of about `target_bytes` of HTML: numbered paragraphs and sections."""
    parts = ["<!doctype html><html lang='en'><head><title>Long survey</title></head><body>"]
    parts.append("<article><h1>Long survey</h1>")
    size, index = 0, 0
    while size < target_bytes:
        index += 1
        block = (
            (f"<h2>Section {index}</h2>" if index % 20 == 1 else "")
            + f"<p>Survey paragraph {index} describes field {index * 7} of the sky, its "
            + f"<a href='/field/{index}'>brightest stars</a>, the <em>nebulae</em> nearby and "
            + "the weather during the exposure, which decides how deep the images go.</p>"
        )
        parts.append(block)
        size += len(block)
    parts.append("</article></body></html>")
    return "".join(parts)


@dataclass(frozen=True)
class Site:
    base: str
    """`http://127.0.0.1:PORT`: the pages' own origin."""
    foreign: str
    """`http://localhost:PORT`: the same server under another origin."""


@contextmanager
def serve_site(long_bytes: int = 1_000_000) -> Iterator[Site]:
    """Serve the fixture pages on loopback while the block runs."""
    long_page = long_article(long_bytes)
    double_page = long_article(2 * long_bytes)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            port = self.server.server_address[1]
            path = self.path.split("?", 1)[0]
            status, body = 200, None
            if path.startswith("/notes/observatory"):
                body = OBSERVATORY.replace("FOREIGN", f"http://localhost:{port}")
            elif path == "/frame":
                body = FRAME
            elif path == "/foreign":
                body = FOREIGN
            elif path == "/long":
                body = long_page
            elif path == "/long2":
                body = double_page
            elif path == "/private":
                allowed = SESSION_COOKIE in (self.headers.get("Cookie") or "")
                status, body = (200, PRIVATE) if allowed else (403, "<p>Sign in first.</p>")
            if body is None:
                self.send_error(404)
                return
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    port = server.server_address[1]
    try:
        yield Site(base=f"http://127.0.0.1:{port}", foreign=f"http://localhost:{port}")
    finally:
        server.shutdown()
        server.server_close()
