"""Real pages for the end-to-end tests of the panel (`test_realpages_e2e.py`): pages of the
capture-dev corpus (their original markup, read at run time from the shared corpora), served
on loopback AT THEIR ORIGINAL ADDRESSES through a loopback HTTP proxy the browser is pointed
at, so each page runs on its own origin and its own links resolve as they did on its site
(a page the corpus lacks, an image, a script: 404 from the proxy, at once; nothing leaves the
machine). Also: the native tap that checks every message the extension sends against
schema/native (`native_tap.py`), and the per-action timings the suite prints."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import re
import statistics
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from support import REPO, SCHEMA_DIR

FEATURES = (
    "broken-lang",
    "cookie-banner",
    "iframe",
    "lazy-images",
    "long",
    "odd-lang",
    "canonical",
)
"""What the chosen pages are picked for, in turn, so that each is well represented."""

BANNER = re.compile(rb"cookie", re.IGNORECASE)
CONSENT = re.compile(rb"consent|accept|akzept|zustimm|einverstanden|aceptar", re.IGNORECASE)
HTML_LANG = re.compile(rb"<html\b[^>]*?\slang\s*=\s*[\"']?([^\"'\s>]*)", re.IGNORECASE)
PLAIN_LANG = re.compile(rb"^[a-z]{2}(?:-[A-Z]{2})?$")
LANG_TAG = re.compile(rb"^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$")  # the host's (schema/native)
CANONICAL = re.compile(rb"<link\b[^>]*rel\s*=\s*[\"']?canonical", re.IGNORECASE)
LAZY = re.compile(rb"data-src|data-lazy|loading\s*=\s*[\"']?lazy", re.IGNORECASE)
WORD = re.compile(r"\w{3,}")
LONG_WORD = re.compile(r"\w{4,}")


@dataclass
class RealPage:
    name: str
    """The file name in the corpus's html/."""
    body: bytes
    url: str
    """Where it is served: its original address, as http (the proxy speaks no TLS)."""
    snippets: list[str]
    """The corpus's `with` snippets: main text a good capture keeps."""
    features: set[str] = field(default_factory=set)

    def question(self, saved_text: str) -> str:
        """A question a reader could ask, in the page's own words: four to six of the longer
        words of its longest snippet that the saved capture kept and that has four, else of
        the saved text's longest sentence (a capture can miss a snippet: the corpus scores
        extraction, not this panel)."""
        flat = " ".join(saved_text.split())
        kept = [s for s in self.snippets if " ".join(s.split()) in flat]
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", flat) if len(WORD.findall(s)) >= 4]
        candidates = sorted(kept, key=len, reverse=True) + sorted(sentences, key=len, reverse=True)
        for candidate in candidates:
            words = LONG_WORD.findall(candidate)[:6]
            if len(words) >= 4:
                return f"What does this page say about {' '.join(words)}?"
        return f"What does this page say about {' '.join(WORD.findall(flat)[:6])}?"


def features_of(body: bytes) -> set[str]:
    found = set()
    if BANNER.search(body) and CONSENT.search(body):
        found.add("cookie-banner")
    if b"<iframe" in body.lower():
        found.add("iframe")
    if LAZY.search(body):
        found.add("lazy-images")
    if len(body) >= 90_000 or body.lower().count(b"<p") >= 40:
        found.add("long")
    lang = HTML_LANG.search(body[:8192])
    if lang is None or not PLAIN_LANG.match(lang.group(1)):
        found.add("odd-lang")  # none, empty, region in lower case, `_`, broken
    if lang is not None and lang.group(1) and not LANG_TAG.match(lang.group(1)):
        found.add("broken-lang")  # dobszay.ch: <html lang="lang="de-DE"">
    if CANONICAL.search(body):
        found.add("canonical")
    return found


def choose_pages(corpus: Path, count: int) -> list[RealPage]:
    """`count` pages, the same every run: in turn one page of each feature (the first by a
    hash of its name, so the corpus's alphabet does not decide), each page once, each at its
    own address; only pages whose source is a real URL and that have a usable snippet."""
    expectations = json.loads((corpus / "expectations.json").read_text(encoding="utf-8"))
    candidates: list[RealPage] = []
    addresses: set[str] = set()
    for name in sorted(expectations, key=lambda n: hashlib.sha256(n.encode()).hexdigest()):
        entry = expectations[name]
        key = str(entry.get("source_key") or "")
        parts = urlsplit(key)
        snippets = [s for s in entry.get("with") or [] if len(WORD.findall(s)) >= 3]
        if parts.scheme not in ("http", "https") or not parts.netloc or not snippets:
            continue
        if parts.netloc == "web.archive.org":
            continue  # one host for many sites: their addresses would not be their own
        url = as_browser_sends(parts._replace(scheme="http", fragment="").geturl())
        if url in addresses:
            continue
        addresses.add(url)
        body = (corpus / "html" / name).read_bytes()
        candidates.append(RealPage(name, body, url, snippets, features_of(body)))
    chosen: list[RealPage] = []
    while len(chosen) < count:
        before = len(chosen)
        for feature in FEATURES:
            page = next((p for p in candidates if feature in p.features and p not in chosen), None)
            if page is not None and len(chosen) < count:
                chosen.append(page)
        if len(chosen) == before:
            break
    return chosen


def as_browser_sends(url: str) -> str:
    """The address as a browser puts it in its request: trimmed, spaces and other characters
    outside a URL percent-encoded (UTF-8), what is encoded already left as it is."""
    return quote(url.strip(), safe=":/?#[]@!$&'()*+,;=%~")


# --- the loopback proxy ----------------------------------------------------------------


@dataclass
class Proxy:
    """An HTTP proxy on loopback that serves the chosen pages at their own addresses."""

    pages: dict[str, RealPage]
    port: int = 0
    served: list[str] = field(default_factory=list)
    """Every page address served, in order."""
    misses: int = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def page_for(self, url: str) -> RealPage | None:
        parts = urlsplit(as_browser_sends(url))
        return self.pages.get(parts._replace(fragment="").geturl())


@contextmanager
def serve_proxy(pages: list[RealPage]) -> Iterator[Proxy]:
    proxy = Proxy({page.url: page for page in pages})

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, body: bool) -> None:
            page = proxy.page_for(self.path) if self.path.startswith("http://") else None
            if page is None:
                proxy.misses += 1
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            proxy.served.append(page.url)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")  # the page's own <meta charset> decides
            self.send_header("Content-Length", str(len(page.body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if body:
                self.wfile.write(page.body)

        def do_GET(self) -> None:
            self.answer(True)

        def do_HEAD(self) -> None:
            self.answer(False)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self.answer(False)

        def do_CONNECT(self) -> None:  # https: no TLS here, refused at once
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    proxy.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()


# --- the native tap: every message checked against schema/native -----------------------


def install_tap(manifest: Path, log: Path) -> Path:
    """Point the host manifest at a launcher that runs `native_tap.py` in front of the one
    `laika install` wrote; returns the tap's log."""
    data = json.loads(manifest.read_text(encoding="utf-8"))
    real = data["path"]
    tap = manifest.with_name("laika-tap.sh")
    script = REPO / "tests" / "native_tap.py"
    tap.write_text(
        "#!/bin/sh\n"
        f'exec "{sys.executable}" "{script}" "{log}" "{SCHEMA_DIR / "native"}" "{real}" "$@"\n',
        encoding="utf-8",
    )
    tap.chmod(0o755)
    data["path"] = str(tap)
    manifest.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return log


def tap_records(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]


def refused(records: list[dict[str, Any]]) -> list[str]:
    """Every request that breaks the schema, and every reply refusing a request as bad."""
    found = [
        f"{r.get('type')} {r.get('id')}: {'; '.join(r['problems'])}"
        for r in records
        if r["dir"] == "request" and r["problems"]
    ]
    types = {r.get("id"): r.get("type") for r in records if r["dir"] == "request"}
    found += [
        f"{types.get(r['id'])} {r['id']}: {r['outcome']}: {r.get('message')}"
        for r in records
        if r["dir"] == "reply" and r["outcome"] in ("bad_request", "bad_json", "unknown_type")
    ]
    return found


# --- timings -----------------------------------------------------------------------------


@dataclass
class Timings:
    """Milliseconds from a click to its result in the panel, per action."""

    browser: str
    samples: dict[str, list[tuple[float, str]]] = field(default_factory=dict)

    def add(self, action: str, ms: float, page: str) -> None:
        self.samples.setdefault(action, []).append((ms, page))

    def lines(self, pages: int) -> list[str]:
        lines = [f"{self.browser}: click to result over {pages} real pages (ms)"]
        lines.append(f"  {'action':<22} {'n':>3} {'median':>8} {'worst':>8}  worst page")
        for action, samples in self.samples.items():
            values = [ms for ms, _ in samples]
            worst = max(samples)
            lines.append(
                f"  {action:<22} {len(values):>3} {statistics.median(values):>8.0f}"
                f" {worst[0]:>8.0f}  {worst[1]}"
            )
        return lines

    def write(self, folder: Path, pages: int) -> Path:
        path = folder / f"timings-{self.browser.lower().replace(' ', '-')}.txt"
        path.write_text("\n".join(self.lines(pages)) + "\n", encoding="utf-8")
        data = {action: [ms for ms, _ in samples] for action, samples in self.samples.items()}
        path.with_suffix(".json").write_text(json.dumps(data, indent=1), encoding="utf-8")
        return path


def shots_folder(default: Path) -> Path:
    """Where screenshots go: `$LAIKA_SHOTS_DIR` (e.g. /tmp/laika-shots), else `default`."""
    folder = Path(os.environ.get("LAIKA_SHOTS_DIR") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def page_count() -> int:
    """How many real pages the suite visits (`$LAIKA_REALPAGES`, default 40)."""
    return int(os.environ.get("LAIKA_REALPAGES") or 40)


# In-page helpers (evaluated in a tab): select a snippet, find where the quote is shown.

SELECT_SNIPPET = """(snippets) => {
  const norm = (s) => s.replace(/\\s+/g, ' ').trim();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.data;
    for (const snippet of snippets) {
      const probe = norm(snippet).slice(0, 40);
      const at = norm(text).indexOf(probe);
      if (probe.length < 12 || at < 0 || !node.parentElement?.offsetParent) continue;
      const element = node.parentElement.closest('p, li, td, blockquote, h1, h2, h3, div') ?? node.parentElement;
      const range = document.createRange();
      range.selectNodeContents(element);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      return norm(selection.toString()).slice(0, 200);
    }
  }
  const paragraph = [...document.querySelectorAll('p')].find((p) => p.offsetParent && norm(p.textContent).length > 60);
  if (!paragraph) return null;
  const range = document.createRange();
  range.selectNodeContents(paragraph);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
  return norm(getSelection().toString()).slice(0, 200);
}"""
"""Select the element holding the first visible `with` snippet (else the first paragraph);
returns the selected text (null: nothing to select)."""

QUOTE_SHOWN = """(quote) => {
  // what the page shows selected (the extension's own highlight of a cited quote) and where:
  // {same: the selection holds the quote's words, top of its box in the viewport, ...}
  const words = (s) => String(s ?? '').toLowerCase().replace(/[^\\p{L}\\p{N}]+/gu, ' ').trim();
  const selection = getSelection();
  const text = selection && selection.rangeCount ? selection.toString() : '';
  const result = {same: Boolean(text) && words(text) === words(quote), selected: text.slice(0, 300),
    top: null, viewport: innerHeight, scrollY: Math.round(scrollY), url: location.href};
  if (!result.same) return result;
  const box = selection.getRangeAt(0).getBoundingClientRect();
  result.top = Math.round(box.top);
  result.bottom = Math.round(box.bottom);
  return result;
}"""
"""What the page shows selected (the extension marks a cited quote so) and where it is drawn:
`same` and `top` within [0, viewport) mean the page shows the quote, marked."""
