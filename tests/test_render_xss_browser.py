"""Public XSS corpora through the safe render path, shown in real headless Chromium.

Every vector is treated as model output: rendered with `markdown_to_safe_html` as it is, and
as a link and an image target (those two with images allowed). The outputs are put into a few
pages, each in its own container, loaded from file:// and driven: every element is hovered,
focused and clicked. A script execution is any script Chromium compiles that the test did not
send itself (CDP `Debugger.scriptParsed`), or any call of alert/confirm/prompt/print (hooked
before the page's own code runs). The DOM is then scanned for tags outside the allowlist, `on*`
attributes and URL attributes whose scheme is not http, https or mailto, and the network log
for requests the page made. A raw `<img src=x onerror=...>` page first proves the detector sees
what it should.

The corpus is `$LAIKA_XSS_CORPUS` or `shared/corpora/xss/*.json` beside the repository (JSON
lists of strings); without it the test is skipped. In CI (`CI=true`) a missing Chromium fails.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from laika_host.render import markdown_to_safe_html
from laika_host.render.html import ALLOWED_TAGS

from cdp_pipe import HEADLESS_FLAGS, DevTools
from support import xss_corpus

pytestmark = pytest.mark.browser  # every test here starts Chromium or Firefox

CHROMIUM = "/usr/lib/chromium/chromium"  # Debian's real binary (/usr/bin/chromium is a wrapper)
HARNESS = "laika-xss-harness"
"""The sourceURL of every script the test runs itself; any other compiled script is the page's."""
PAGE_SIZE = 150

HOOKS = f"""window.__hits = 0;
for (const name of ["alert", "confirm", "prompt", "print"]) {{
  window[name] = function () {{ window.__hits += 1; }};
}}
//# sourceURL={HARNESS}"""

SCAN = """(allowed) => {
  // Prototype getters, not element properties: a clobbering vector must not blind the scan.
  const getter = (type, name) => Object.getOwnPropertyDescriptor(type.prototype, name).get;
  const attributesOf = getter(Element, "attributes"), tagOf = getter(Element, "localName");
  const idOf = getter(Element, "id"), baseURI = getter(Node, "baseURI").call(document);
  const select = (root, selector) => Element.prototype.querySelectorAll.call(root, selector);
  const urlAttributes = new Set(["href", "src", "action", "formaction", "xlink:href", "poster",
    "background", "data", "ping", "cite", "srcset", "lowsrc", "dynsrc", "codebase"]);
  const found = {foreignTags: [], onAttributes: [], badUrls: []};
  for (const box of Document.prototype.querySelectorAll.call(document, "body > .vector")) {
    const boxId = idOf.call(box);
    for (const element of select(box, "*")) {
      const tag = tagOf.call(element);
      if (!allowed.includes(tag)) found.foreignTags.push(`${boxId}: ${tag}`);
      for (const attribute of attributesOf.call(element)) {
        const name = attribute.name.toLowerCase();
        if (name.startsWith("on")) found.onAttributes.push(`${boxId}: ${tag}[${name}]`);
        if (urlAttributes.has(name) || name.endsWith(":href")) {
          let scheme;
          try { scheme = new URL(attribute.value, baseURI).protocol; }
          catch (error) { scheme = "unparsable:"; }
          if (!["http:", "https:", "mailto:"].includes(scheme)) {
            found.badUrls.push(`${boxId}: ${tag}[${name}]=${attribute.value.slice(0, 60)}`);
          }
        }
      }
    }
  }
  return found;
}"""

INTERACT = """() => {
  // Stay on the page: ordinary links must not navigate away, javascript: ones may run.
  addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("[href]");
    const href = link ? link.getAttribute("href").trim().toLowerCase() : "";
    if (link && !href.startsWith("javascript:")) event.preventDefault();
  }, true);
  addEventListener("submit", (event) => event.preventDefault(), true);
  const elements = Array.from(document.querySelectorAll("body *"));
  for (const element of elements) {
    for (const type of ["pointerover", "mouseover", "mouseenter", "mousemove", "pointerdown",
                        "mousedown", "mouseup", "dblclick", "contextmenu"]) {
      element.dispatchEvent(new MouseEvent(type, {bubbles: true, cancelable: true, view: window}));
    }
    for (const method of ["focus", "blur", "click"]) {
      try { element[method](); } catch (error) {}
    }
  }
  return elements.length;
}"""


@dataclass
class PageReport:
    """What one page did and holds; `clean` when none of it points at script or a fetch."""

    scripts: list[str]
    hits: int
    foreign_tags: list[str]
    on_attributes: list[str]
    bad_urls: list[str]
    requests: list[str]
    final_url: str
    interacted: int
    url: str = field(repr=False)

    @property
    def executions(self) -> int:
        return len(self.scripts) + self.hits


class Browser:
    """One headless Chromium tab, loaded page by page and inspected through CDP."""

    def __init__(self, devtools: DevTools) -> None:
        self.devtools = devtools
        target = devtools.call("Target.createTarget", url="about:blank")["targetId"]
        attached = devtools.call("Target.attachToTarget", targetId=target, flatten=True)
        self.session = str(attached["sessionId"])
        for method in ("Page.enable", "Network.enable", "Debugger.enable"):
            self._call(method)
        self._call("Debugger.setSkipAllPauses", skip=True)
        self._call("Page.addScriptToEvaluateOnNewDocument", source=HOOKS)

    def _call(self, method: str, **params: object) -> dict[str, object]:
        return self.devtools.call(method, self.session, **params)

    def _evaluate(self, expression: str) -> object:
        reply = self._call(
            "Runtime.evaluate",
            expression=f"{expression}\n//# sourceURL={HARNESS}",
            returnByValue=True,
            awaitPromise=True,
        )
        if "exceptionDetails" in reply:
            pytest.fail(f"harness script failed: {reply['exceptionDetails']}")
        result = reply["result"]
        assert isinstance(result, dict)
        return result.get("value")

    def inspect(self, page: Path, allowed: frozenset[str] = ALLOWED_TAGS) -> PageReport:
        url = page.as_uri()
        self.devtools.events.clear()
        self._call("Page.navigate", url=url)
        loaded = f"location.href === {json.dumps(url)} && document.readyState === 'complete'"
        deadline = time.monotonic() + 30
        while self._evaluate(loaded) is not True:
            if time.monotonic() > deadline:
                pytest.fail(f"{page.name} did not load within 30 s")
            time.sleep(0.05)
        time.sleep(0.2)  # timers, image errors, autofocus
        found = self._evaluate(f"({SCAN})({json.dumps(sorted(allowed))})")
        interacted = self._evaluate(f"({INTERACT})()")
        time.sleep(0.3)  # javascript: navigations run after the click returns
        state = self._evaluate("[window.__hits, location.href]")
        assert isinstance(found, dict)
        assert isinstance(interacted, int)
        assert isinstance(state, list)
        hits, final_url = state
        return PageReport(
            scripts=[_describe(event) for event in self._page_scripts()],
            hits=int(hits or 0),
            foreign_tags=found["foreignTags"],
            on_attributes=found["onAttributes"],
            bad_urls=found["badUrls"],
            requests=[
                requested
                for event in self.devtools.take_events("Network.requestWillBeSent")
                if (requested := _requested_url(event)) != url
            ],
            final_url=str(final_url),
            interacted=interacted,
            url=url,
        )

    def outer_html(self) -> str:
        """The current document as Chromium parsed it (and the page may have changed it)."""
        value = self._evaluate("document.documentElement.outerHTML")
        assert isinstance(value, str)
        return value

    def _page_scripts(self) -> list[dict[str, object]]:
        return [
            event
            for event in self.devtools.take_events("Debugger.scriptParsed")
            if _params(event).get("url") != HARNESS
        ]


def _params(event: dict[str, object]) -> dict[str, object]:
    params = event.get("params", {})
    assert isinstance(params, dict)
    return params


def _requested_url(event: dict[str, object]) -> str:
    request = _params(event)["request"]
    assert isinstance(request, dict)
    return str(request["url"])


def _describe(event: dict[str, object]) -> str:
    params = _params(event)
    return f"{params.get('url') or '(no url)'}@{params.get('startLine')}+{params.get('length')}"


def _need_chromium() -> str:
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed; .ci/run must apt-get install it")
    pytest.skip("chromium is not installed here (CI installs it; apt-get install chromium)")


def _write_pages(folder: Path, name: str, boxes: list[tuple[str, str]]) -> list[Path]:
    """Pages of at most PAGE_SIZE outputs, each output in its own `div.vector` container."""
    pages = []
    for start in range(0, len(boxes), PAGE_SIZE):
        body = "".join(
            f'<div class="vector" id="{box_id}">{html}</div>\n'
            for box_id, html in boxes[start : start + PAGE_SIZE]
        )
        page = folder / f"{name}-{start // PAGE_SIZE}.html"
        page.write_text(
            f'<!doctype html><html><head><meta charset="utf-8"><title>{name}</title></head>'
            f"<body>\n{body}</body></html>",
            encoding="utf-8",
        )
        pages.append(page)
    return pages


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    chromium = _need_chromium()
    devtools = DevTools(
        chromium,
        [
            *HEADLESS_FLAGS,
            "--host-resolver-rules=MAP * ~NOTFOUND",  # allowed images must not reach the net
            f"--user-data-dir={tmp_path / 'profile'}",
            "about:blank",
        ],
        dict(os.environ),
        timeout=60,
    )
    try:
        yield Browser(devtools)
    finally:
        devtools.close()


CONTROL = [
    ("img-onerror", '<img src="x" onerror="alert(1)">'),
    ("hover", '<div onmouseover="window.hovered = 1">hover me</div>'),
    ("javascript-link", '<a href="javascript:void(window.clicked = 1)">click me</a>'),
]


@pytest.mark.corpus
def test_corpus_renders_to_html_that_never_runs_script(browser: Browser, tmp_path: Path) -> None:
    vectors = xss_corpus()

    # The detector works: raw, unsanitized HTML is caught by every signal.
    [control] = [browser.inspect(page) for page in _write_pages(tmp_path, "control", CONTROL)]
    assert control.hits >= 1, control  # the onerror handler called alert
    assert len(control.scripts) >= 3, control  # onerror, the hover handler, the javascript: URL
    assert len(control.on_attributes) == 2, control
    assert control.bad_urls == [
        "img-onerror: img[src]=x",  # file:, relative to the page
        "javascript-link: a[href]=javascript:void(window.clicked = 1)",
    ]
    assert control.foreign_tags == ["img-onerror: img", "hover: div"]
    assert any(request.endswith("/x") for request in control.requests), control

    as_markdown = [(name, markdown_to_safe_html(vector)) for name, vector in vectors]
    as_targets = [
        (f"{name}-{shape}", markdown_to_safe_html(template.format(vector), allow_images=True))
        for name, vector in vectors
        for shape, template in (("link", "[x](<{0}>) [y]({0})"), ("image", "![x](<{0}>) ![y]({0})"))
    ]
    reports = {
        page.name: browser.inspect(page) for page in _write_pages(tmp_path, "markdown", as_markdown)
    }
    reports |= {
        page.name: browser.inspect(page, ALLOWED_TAGS | {"img"})
        for page in _write_pages(tmp_path, "targets", as_targets)
    }

    executions = {name: report.scripts for name, report in reports.items() if report.executions}
    assert executions == {}, f"script ran on {len(executions)} page(s): {executions}"
    for name, report in reports.items():
        assert report.on_attributes == [], name
        assert report.bad_urls == [], name
        assert report.foreign_tags == [], name
        assert report.final_url == report.url, f"{name} navigated away"
        if name.startswith("markdown"):
            assert report.requests == [], f"{name} fetched {report.requests}"
        else:  # images were allowed: only http(s) fetches
            assert all(url.startswith(("http://", "https://")) for url in report.requests), name
        assert report.interacted > 0, name
    print(
        f"{len(vectors)} vectors, {len(as_markdown) + len(as_targets)} renderings on "
        f"{len(reports)} pages: 0 executions"
    )
