"""`extension/lib/capture.js` in real Chromium, saved by a real host.

The serializer is injected the way `chrome.scripting.executeScript({func})` injects it: only
the function's source text (`func.toString()`, read with node), run in an isolated world of
the page, so a helper that leaked out of the function would fail here. Its result goes to a
real `laika` host over native-messaging frames, and the stored Markdown is checked: what the
user sees is kept (shadow DOM, a same-origin frame, closed details, lazy images' real URLs),
what is not rendered is not. The last test goes through the extension itself:
`globalThis.laika.savePage` in the background service worker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capture_site import (
    DROPPED,
    KEPT,
    LAZY_IMAGE,
    PRIVATE_TEXT,
    SESSION_COOKIE,
    SRCSET_LARGE,
    Site,
    serve_site,
)
from cdp_pipe import HEADLESS_FLAGS, DevTools
from marionette import Marionette
from native_client import Client, HostProcess
from support import REPO, SCHEMA_DIR

pytestmark = pytest.mark.browser  # every test here starts Chromium or Firefox

CAPTURE_JS = REPO / "extension" / "lib" / "capture.js"
CHROMIUM = "/usr/lib/chromium/chromium"
SAVE_KEYS = set(
    json.loads((SCHEMA_DIR / "native/types/sources.save_page.payload.schema.json").read_text())[
        "properties"
    ]
)
"""What this host's `sources.save_page` accepts (it rejects unknown keys)."""
TALL = (1280, 6000)
"""The viewport (CSS px) the tests give a page unless they say otherwise: tall enough to hold
each fixture whole. Capture keeps a transparent or flattened box that starts below the fold
(reveal on scroll), so a "dropped" block must be in view for its check to mean anything."""
FOLD = (800, 600)
"""An ordinary window, for the tests about the fold itself."""
MEASURE = "[innerWidth, innerHeight, document.documentElement.scrollHeight]"
"""What a test reads to check the viewport it asked for took effect and holds the page."""


def _need(binary: str | None, name: str) -> str:
    if binary and os.path.exists(binary):
        return binary
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed; .ci/run must apt-get install it")
    pytest.skip(f"{name} is not installed here (CI installs it; apt-get install {name})")


def emulate_viewport(devtools: DevTools, session_id: str, viewport: tuple[int, int]) -> None:
    """Give the tab of `session_id` a viewport of `viewport` CSS px (as a window that size)."""
    width, height = viewport
    devtools.call(
        "Emulation.setDeviceMetricsOverride",
        session_id,
        width=width,
        height=height,
        deviceScaleFactor=1,
        mobile=False,
    )


def assert_holds_page(measured: list[int], viewport: tuple[int, int] | None = None) -> None:
    """`measured` (MEASURE read in the page): a viewport holding the whole page, and exactly
    `viewport` if given (Firefox's window size also holds its toolbars: none given there)."""
    width, height, page_height = measured
    assert viewport is None or (width, height) == viewport, f"the viewport is {width}x{height}"
    assert page_height <= height, (
        f"the page ({page_height} px) is taller than its {height} px viewport"
    )


def firefox_open(marionette: Marionette, url: str) -> None:
    """Load `url` in Firefox's current tab, its window TALL, and check the page fits in it
    (the window holds the toolbars too, so the viewport is a little shorter)."""
    width, height = TALL
    marionette.call("WebDriver:SetWindowRect", width=width, height=height)
    marionette.call("WebDriver:Navigate", url=url)
    assert_holds_page(
        marionette.call("WebDriver:ExecuteScript", script=f"return {MEASURE};")["value"]
    )


def page_function(name: str) -> str:
    """The source text of one exported function of capture.js, as executeScript sends it."""
    node = _need(shutil.which("node"), "nodejs")
    script = (
        "import(require('url').pathToFileURL(process.argv[1]))"
        f".then((m) => process.stdout.write(m.{name}.toString()))"
    )
    done = subprocess.run(
        [node, "-e", script, str(CAPTURE_JS)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


class Browser:
    """Headless Chromium over the CDP pipe; `open` gives a page to run functions in."""

    def __init__(self, profile: Path) -> None:
        chromium = _need(CHROMIUM, "chromium")
        args = [*HEADLESS_FLAGS, f"--user-data-dir={profile}", "about:blank"]
        self.devtools = DevTools(chromium, args, dict(os.environ), timeout=60)

    def open(self, url: str, viewport: tuple[int, int] = TALL) -> str:
        """A session attached to a new tab with a `viewport` window that has loaded `url`
        (frames included)."""
        target = self.devtools.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.devtools.call("Target.attachToTarget", targetId=target, flatten=True)
        session_id = str(session["sessionId"])
        emulate_viewport(self.devtools, session_id, viewport)
        self.navigate(session_id, url)
        return session_id

    def navigate(self, session_id: str, url: str) -> None:
        self.devtools.call("Page.navigate", session_id, url=url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            state = self.evaluate(session_id, "[location.href, document.readyState]")
            if state == [url, "complete"]:
                return
            time.sleep(0.05)
        pytest.fail(f"{url} did not load within 30 s")

    def evaluate(self, session_id: str, expression: str, context: int | None = None) -> Any:
        params: dict[str, object] = {"expression": expression, "returnByValue": True}
        if context is not None:
            params["contextId"] = context
        reply = self.devtools.call("Runtime.evaluate", session_id, **params)
        if "exceptionDetails" in reply:
            pytest.fail(f"the page threw: {json.dumps(reply['exceptionDetails'])[:2000]}")
        result = reply["result"]
        assert isinstance(result, dict)
        return result.get("value")

    def run_isolated(self, session_id: str, function: str, *args: object) -> Any:
        """`function(...args)` in a fresh isolated world (as content scripts run), timed in
        the page: the result, with `ms` added when it is an object."""
        tree = self.devtools.call("Page.getFrameTree", session_id)["frameTree"]
        assert isinstance(tree, dict)
        world = self.devtools.call(
            "Page.createIsolatedWorld", session_id, frameId=tree["frame"]["id"]
        )
        arguments = ", ".join(json.dumps(arg) for arg in args)
        expression = (
            f"(() => {{ const run = ({function}); const started = performance.now();"
            f" const result = run({arguments}); const ms = performance.now() - started;"
            " return result && typeof result === 'object' && !Array.isArray(result)"
            " ? { ...result, ms } : result; })()"
        )
        return self.evaluate(session_id, expression, context=int(world["executionContextId"]))

    def close(self) -> None:
        self.devtools.close()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_site() as served:
        yield served


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    opened = Browser(tmp_path_factory.mktemp("capture-profile"))
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="module")
def serialize_page() -> str:
    return page_function("serializePage")


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Client]:
    process = HostProcess(tmp_path / "laika-home")
    try:
        yield Client(process)
    finally:
        process.close()


def save_and_get(host: Client, page: dict[str, Any], collection: str) -> dict[str, Any]:
    """Save the serialized page through the host, return its stored source (sources.get)."""
    payload = {key: value for key, value in page.items() if key in SAVE_KEYS}
    saved = host.call("sources.save_page", {**payload, "collection": collection})
    assert saved["ok"], saved
    got = host.call("sources.get", {"source_id": saved["result"]["source"]["id"]})
    assert got["ok"], got
    result = got["result"]
    assert isinstance(result, dict)
    return result


def test_serializer_keeps_what_the_user_sees(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    url = f"{site.base}/notes/observatory?ref=feed"
    session = browser.open(url)
    assert_holds_page(browser.evaluate(session, MEASURE), TALL)
    page = browser.run_isolated(session, serialize_page, {"mode": "auto"})
    html = page["html"]
    assert page["url"] == url
    assert page["title"] == "Observatory notes"
    assert page["canonical_url"] == f"{site.base}/notes/observatory"
    assert page["lang"] == "en-GB"
    assert page["mode"] == "auto"
    assert page["truncated"] is False
    assert page["selection_html"] is None
    for name, phrase in KEPT.items():
        assert phrase in html, f"{name}: {phrase!r} is on screen but not serialized"
    for name, phrase in DROPPED.items():
        assert phrase not in html, f"{name}: {phrase!r} is not on screen but was serialized"
    assert f'src="{site.base}{LAZY_IMAGE}"' in html
    assert f'src="{site.base}{SRCSET_LARGE}"' in html
    assert "data:image/gif" not in html
    assert "srcset" not in html
    assert "onclick" not in html
    assert "<style" not in html
    assert "stylesheet" not in html
    assert "<details open>" in html
    assert f'data-laika-frame="{site.base}/frame"' in html

    source = save_and_get(host, page, "Observatory")
    markdown = source["markdown"]
    for name, phrase in KEPT.items():
        assert phrase in markdown, f"{name}: {phrase!r} not stored:\n{markdown}"
    for name, phrase in DROPPED.items():
        assert phrase not in markdown, f"{name}: {phrase!r} stored:\n{markdown}"
    media = {item["url"] for item in source["media"]}
    assert {f"{site.base}{LAZY_IMAGE}", f"{site.base}{SRCSET_LARGE}"} <= media, media


def test_a_page_behind_a_session_cookie_is_saved_as_the_user_sees_it(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    session = browser.open(f"{site.base}/private")
    assert "Sign in first" in browser.evaluate(session, "document.body.textContent")
    name, value = SESSION_COOKIE.split("=", 1)
    browser.devtools.call("Network.setCookie", session, name=name, value=value, url=site.base)
    browser.navigate(session, f"{site.base}/private")
    page = browser.run_isolated(session, serialize_page, {})
    assert PRIVATE_TEXT in page["html"]
    source = save_and_get(host, page, "Private")
    assert source["title"] == "Private charts"
    assert PRIVATE_TEXT in source["markdown"]


def test_a_one_megabyte_page_serializes_in_linear_time(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    timings: dict[str, float] = {}
    for path in ("/long", "/long2"):
        session = browser.open(f"{site.base}{path}")
        size = browser.evaluate(session, "document.documentElement.outerHTML.length")
        runs = [browser.run_isolated(session, serialize_page, {}) for _ in range(3)]
        page = runs[-1]
        assert page["truncated"] is False
        assert len(page["html"]) >= 0.9 * size  # the article is all visible: nearly all kept
        timings[path] = min(run["ms"] for run in runs)
    print(f"serializePage: 1 MB page {timings['/long']:.0f} ms, 2 MB {timings['/long2']:.0f} ms")
    # the 1 s goal is a latency (bench/); with other work on the cores only the ratio of two
    # timings taken side by side holds
    assert timings["/long2"] < 3.5 * max(timings["/long"], 50)  # linear, not quadratic
    source = save_and_get(host, page, "Survey")
    assert "Survey paragraph 1 describes field 7" in source["markdown"]


@pytest.mark.parametrize(
    ("options", "bound"),
    [({"maxNodes": 500}, "maxNodes"), ({"maxChars": 20_000}, "maxChars")],
)
def test_budgets_cut_the_page_into_well_formed_html(
    browser: Browser, site: Site, serialize_page: str, options: dict[str, int], bound: str
) -> None:
    session = browser.open(f"{site.base}/long")
    page = browser.run_isolated(session, serialize_page, options)
    assert page["truncated"] is True, bound
    html = page["html"]
    if bound == "maxChars":
        assert len(html) <= options["maxChars"] + 200  # + the closing tags of open elements
    else:
        assert html.count("<p>") <= options["maxNodes"]
    assert html.startswith("<!DOCTYPE html>")
    assert html.endswith("</article></body></html>")
    # the browser's own parser reads it back as written: nothing left open or misnested
    reparsed = browser.evaluate(
        session,
        "(() => { const doc = new DOMParser().parseFromString("
        f"{json.dumps(html)}, 'text/html'); return doc.body.outerHTML; }})()",
    )
    assert html.endswith(reparsed + "</html>")


HOSTILE_SHAPES = """(() => {
  let node = document.body.appendChild(document.createElement("div"));
  for (let i = 0; i < 1000; i++) node = node.appendChild(document.createElement("div"));
  node.textContent = "deepest words";
  const image = document.body.appendChild(document.createElement("img"));
  image.setAttribute("srcset", "a.jpg " + "(".repeat(4000) + "," + ",".repeat(4000));
  const other = document.body.appendChild(document.createElement("img"));
  other.setAttribute("srcset", ",".repeat(4000) + " b.jpg 2x " + " ".repeat(4000));
})()"""
"""A deep tree (the HTML parser stops nesting at 512; script does not. Chromium's own
rendering stalls for minutes on a 4,000-deep one, so 1,000 it is: the serializer itself keeps
an explicit stack, no recursion) and srcset values made of what a backtracking parser
chokes on."""


def test_hostile_shapes_serialize_in_one_linear_pass(
    browser: Browser, site: Site, serialize_page: str
) -> None:
    session = browser.open(f"{site.base}/frame")
    browser.evaluate(session, HOSTILE_SHAPES)
    page = browser.run_isolated(session, serialize_page, {})
    assert page["truncated"] is False
    assert "deepest words" in page["html"]
    assert page["html"].count("<div>") == 1001
    assert f'src="{site.base}/b.jpg"' in page["html"]
    assert page["ms"] < 2000, page["ms"]  # one pass (here: ~60 ms)


# --- the head counts too: a page cannot make its own capture too big to save --------------

BIG_HEAD = """(() => {
  const add = (name, props) => document.head.appendChild(Object.assign(document.createElement(name), props));
  add("script", { type: "application/ld+json",
    text: JSON.stringify({ "@type": "Article", headline: "Kept headline of the harbour survey" }) });
  for (let i = 0; i < 110; i++)
    add("script", { type: "application/ld+json", text: JSON.stringify({ a: "x".repeat(490000) }) });
  for (let i = 0; i < 3000; i++) {
    const meta = add("meta", {});
    meta.setAttribute("name", "filler" + i);
    meta.setAttribute("content", "y".repeat(8000));
  }
})()"""
"""A head of 54 M characters of JSON-LD and 24 M of meta tags (as a hostile or careless page
has it), added by script so the test does not move 78 MB over loopback."""


def test_an_oversized_head_is_cut_and_the_page_saves(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    session = browser.open(f"{site.base}/frame")
    browser.evaluate(session, BIG_HEAD)
    page = browser.run_isolated(session, serialize_page, {})
    assert page["truncated"] is True
    assert len(page["html"]) <= 8_000_000 + 200
    assert "Kept headline of the harbour survey" in page["html"]  # small blocks stay
    assert page["html"].count("application/ld+json") == 1  # 490k-char blocks go
    assert KEPT["frame"] in page["html"]
    stored = save_and_get(host, page, "Heads")
    assert KEPT["frame"] in stored["markdown"]


@st.composite
def heads_and_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """JSON-LD blocks, meta tags and paragraphs of random sizes, and a budget to fit them in."""
    return {
        "blocks": draw(
            st.lists(st.sampled_from([40, 400, 4_000, 40_000, 120_000, 300_000]), max_size=5)
        ),
        "metas": draw(st.lists(st.integers(1, 8_000), max_size=30)),
        "paragraphs": draw(st.integers(1, 30)),
        "maxChars": draw(
            st.one_of(
                st.integers(1_000, 100_000), st.integers(100_000, 8_000_000), st.just(8_000_000)
            )
        ),
    }


PLANT = """((spec) => {
  document.head.querySelectorAll("[data-planted]").forEach((node) => node.remove());
  spec.blocks.forEach((size, i) => {
    const script = document.head.appendChild(document.createElement("script"));
    script.type = "application/ld+json";
    script.dataset.planted = "";
    script.text = JSON.stringify({ block: `block${i}end`, pad: "b".repeat(size) });
  });
  spec.metas.forEach((size, i) => {
    const meta = document.head.appendChild(document.createElement("meta"));
    meta.dataset.planted = "";
    meta.setAttribute("name", `meta${i}end`);
    meta.setAttribute("content", "m".repeat(size));
  });
  document.body.innerHTML = Array.from({ length: spec.paragraphs },
    (_, i) => `<p>para${i}end ${"p ".repeat(200)}</p>`).join("");
})"""


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(spec=heads_and_bodies())
def test_everything_counts_against_the_budget_and_a_cut_says_so(
    browser: Browser, site: Site, serialize_page: str, spec: dict[str, Any]
) -> None:
    session = _blank_session(browser, site)
    browser.evaluate(session, f"{PLANT}({json.dumps(spec)})")
    page = browser.run_isolated(session, serialize_page, {"maxChars": spec["maxChars"]})
    html = page["html"]
    assert len(html) <= spec["maxChars"] + 200  # + the document's frame and closing tags
    markers = [
        *(f"block{i}end" for i in range(len(spec["blocks"]))),
        *(f"meta{i}end" for i in range(len(spec["metas"]))),
        *(f"para{i}end" for i in range(spec["paragraphs"])),
    ]
    missing = [marker for marker in markers if marker not in html]
    if missing:
        assert page["truncated"] is True, missing  # nothing is left out silently
    if _fits_with_room(spec):
        assert page["truncated"] is False  # the caps cut only what is over them
        assert not missing


def _fits_with_room(spec: dict[str, Any]) -> bool:
    """Whether the planted page fits every cap of capture.js, with room (sizes over-estimated)."""
    budget = spec["maxChars"]
    json_ld = sum(size + 100 for size in spec["blocks"])
    metas = sum(size + 60 for size in spec["metas"])
    body = spec["paragraphs"] * 450
    return (
        all(size + 40 <= 262_144 for size in spec["blocks"])
        and json_ld <= min(1_048_576, budget // 4)
        and metas <= min(262_144, budget // 8)
        and json_ld + metas + body + 500 <= budget
    )


# --- JSON-LD is data: nothing in it may change how the rest of the page parses ----------------

PLANT_JSON_LD = """((texts) => {
  document.body.replaceChildren();
  texts.forEach((value, i) => {
    const script = document.body.appendChild(document.createElement("script"));
    script.type = "application/ld+json";
    script.text = JSON.stringify({ "@type": "Article", headline: value });
    document.body.appendChild(document.createElement("p")).textContent = `after${i}end`;
  });
})"""

READ_BACK = """((html) => {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const scripts = [...doc.body.querySelectorAll('script[type="application/ld+json"]')];
  return { headlines: scripts.map((s) => JSON.parse(s.textContent).headline),
           paragraphs: [...doc.body.querySelectorAll("p")].map((p) => p.textContent) };
})"""
"""The browser's own HTML parser (the HTML5 algorithm, script double-escape state included)
reads the serialized page back."""

_SCRIPT_BITS = ["<!--", "-->", "<script>", "</script>", "</SCRIPT ", "<", ">", "/", "-", "!"]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    texts=st.lists(
        st.lists(st.one_of(st.sampled_from(_SCRIPT_BITS), st.text(max_size=4))).map("".join),
        min_size=1,
        max_size=4,
    )
)
def test_json_ld_is_inert_and_round_trips(
    browser: Browser, site: Site, serialize_page: str, texts: list[str]
) -> None:
    session = _blank_session(browser, site)
    browser.evaluate(session, f"{PLANT_JSON_LD}({json.dumps(texts)})")
    page = browser.run_isolated(session, serialize_page, {})
    assert "<" not in "".join(
        block.split("</script>", 1)[0] for block in page["html"].split('ld+json">')[1:]
    )
    back = browser.evaluate(session, f"{READ_BACK}({json.dumps(page['html'])})")
    assert back == {
        "headlines": texts,
        "paragraphs": [f"after{i}end" for i in range(len(texts))],
    }


def test_a_json_ld_comment_opener_does_not_hide_the_page_from_the_host(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    session = browser.open(f"{site.base}/frame")
    browser.evaluate(
        session,
        "(() => { const s = document.createElement('script'); s.type = 'application/ld+json';"
        ' s.text = \'{"x": "<!--<script>"}\'; const first = document.body.firstElementChild;'
        " first.after(s); })()",
    )
    page = browser.run_isolated(session, serialize_page, {})
    assert '{"x": "\\u003c!--\\u003cscript>"}' in page["html"]
    stored = save_and_get(host, page, "Frames")
    assert "Each trail gets its time" in stored["markdown"]  # the paragraph after the block


# --- property: the serialized text is exactly the text the page renders ----------------------

HIDERS = {
    "plain": ("", None),
    "display-none": (' style="display: none"', "gone"),
    "hidden-attribute": (" hidden", "gone"),
    "aria-hidden": (' aria-hidden="true"', "gone"),
    "opacity-zero": (' style="opacity: 0"', "gone"),
    "opacity-faint": (' style="opacity: 0.01"', "gone"),
    "content-visibility": (' style="content-visibility: hidden"', "gone-box"),
    "transform-scale-zero": (' style="transform: scale(0)"', "gone-box"),
    "scale-zero": (' style="scale: 0 1"', "gone-box"),
    "rotated-edge-on": (' style="transform: rotateX(90deg)"', "gone-box"),
    "zero-height-clip": (' style="height: 0; overflow: hidden"', "gone-box"),
    "zero-width-clip": (' style="width: 0; overflow-x: clip"', "gone-box"),
    "visibility-hidden": (' style="visibility: hidden"', "hidden"),
    "visibility-visible": (' style="visibility: visible"', "visible"),
    "font-size-zero": (' style="font-size: 0"', "unsized"),
    "font-size-back": (' style="font-size: 16px"', "sized"),
    "transparent-colour": (' style="color: transparent"', "unpainted"),
    "colour-back": (' style="color: rgb(20, 20, 20)"', "painted"),
    "screen-reader-only": (
        ' style="position: absolute; width: 1px; height: 1px; overflow: hidden;'
        ' clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap"',
        None,
    ),
    "off-screen": (' style="position: absolute; left: -10000px"', None),
    "until-found": (' hidden="until-found"', None),
    "fading-in": (
        ' style="opacity: 0; transform: translateY(20px); transition: opacity .6s, transform .6s"',
        None,
    ),
    "fading-in-all": (' style="opacity: 0.01; transition: all 1s"', None),
    "animated-in": (' style="opacity: 0; animation: laika-rise 1s paused"', None),
    "popping-in": (' style="transform: scale(0); transition: transform .2s"', None),
    "accordion": (' style="max-height: 0; overflow: hidden; transition: max-height .3s"', None),
    "sliding-open": (' style="width: 0; overflow-x: clip; transition: color 1s, width .4s"', None),
    "fade-elsewhere": (' style="opacity: 0; transition: color .6s"', "gone"),
    "fade-instant": (' style="opacity: 0; transition: opacity 0s"', "gone"),
    "accordion-instant": (
        ' style="height: 0; overflow: hidden; transition: max-height 0s, opacity .3s"',
        "gone-box",
    ),
}
"""Each way a page hides (or shows again) text, with its effect: "gone" drops the subtree,
"gone-box" too except on inline elements (the browser ignores those properties there), the
others set what children inherit for their own text. Screen-reader-only, off-screen and
until-found text is kept on purpose, and so is a box about to appear: one that animates, or
transitions for a non-zero time the very property that hides it (the "-elsewhere" and
"-instant" shapes do not, so they stay hidden)."""

INLINE = {"span", "em"}


@dataclass
class _Ink:
    """What a node passes down: whether its own text would be painted."""

    shown: bool = True
    visible: bool = True
    sized: bool = True
    painted: bool = True

    def after(self, effect: str | None, tag: str) -> _Ink:
        if effect == "gone-box":
            effect = None if tag in INLINE else "gone"
        flags = {
            "gone": {"shown": False},
            "hidden": {"visible": False},
            "visible": {"visible": True},
            "unsized": {"sized": False},
            "sized": {"sized": True},
            "unpainted": {"painted": False},
            "painted": {"painted": True},
        }.get(effect or "", {})
        return replace(self, **flags)

    @property
    def text_shows(self) -> bool:
        return self.shown and self.visible and self.sized and self.painted


@st.composite
def styled_trees(draw: st.DrawFn, depth: int = 3) -> tuple[str, list[str], list[str]]:
    """(html, all words, words on screen) for a random tree of styled blocks and spans."""
    counter = [0]

    def word() -> str:
        counter[0] += 1
        return f"w{counter[0]}x"

    def node(level: int, ink: _Ink) -> tuple[str, list[str], list[str]]:
        tag = draw(st.sampled_from(["div", "span", "section", "em"] if level else ["div"]))
        attribute, effect = HIDERS[draw(st.sampled_from(sorted(HIDERS)))]
        ink = ink.after(effect, tag)
        parts, every, seen = [], [], []
        for _ in range(draw(st.integers(0 if level < depth else 1, 3))):
            if level < depth and draw(st.booleans()):
                html, all_words, on_screen = node(level + 1, ink)
            else:
                text = word()
                html, all_words = f" {text} ", [text]
                on_screen = [text] if ink.text_shows else []
            parts.append(html)
            every += all_words
            seen += on_screen
        return f"<{tag}{attribute}>{''.join(parts)}</{tag}>", every, seen

    return node(0, _Ink())


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(tree=styled_trees())
def test_serialized_words_are_the_rendered_words(
    browser: Browser, site: Site, serialize_page: str, tree: tuple[str, list[str], list[str]]
) -> None:
    html, every, on_screen = tree
    session = _blank_session(browser, site)
    browser.evaluate(session, f"document.body.innerHTML = {json.dumps(html)}")
    assert_holds_page(browser.evaluate(session, MEASURE), TALL)  # all in view: judged as rendered
    page = browser.run_isolated(session, serialize_page, {})
    words = [w for w in lxml.html.fromstring(page["html"]).text_content().split() if w in every]
    assert words == on_screen


_SESSIONS: dict[int, str] = {}


def _blank_session(browser: Browser, site: Site) -> str:
    """One reusable page on the fixture origin per browser (a tab per example is slow)."""
    if id(browser) not in _SESSIONS:
        _SESSIONS[id(browser)] = browser.open(f"{site.base}/frame")
    return _SESSIONS[id(browser)]


# --- the fold: what waits below the viewport is kept (reveal on scroll) ------------------------

_FOLD_SESSIONS: dict[int, str] = {}


def _fold_session(browser: Browser, site: Site, html: str, scroll: int = 0) -> str:
    """A page with an ordinary FOLD viewport showing `html`, scrolled down `scroll` px."""
    if id(browser) not in _FOLD_SESSIONS:
        _FOLD_SESSIONS[id(browser)] = browser.open(f"{site.base}/frame", viewport=FOLD)
    session = _FOLD_SESSIONS[id(browser)]
    browser.evaluate(
        session,
        f"document.body.style.margin = '0'; document.body.innerHTML = {json.dumps(html)};"
        f" scrollTo(0, {scroll}); scrollY",
    )
    width, height, _ = browser.evaluate(session, MEASURE)
    assert (width, height) == FOLD, f"the viewport is {width}x{height}, not {FOLD}"
    assert browser.evaluate(session, "scrollY") == scroll
    return session


def test_a_hidden_box_below_the_fold_is_kept_and_one_in_view_is_not(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    """Script-driven reveal on scroll (framer-motion, GSAP) sets opacity:0 or scale(0) inline
    with no CSS transition; below the fold that is a section waiting, in view it is hidden."""
    in_view = "Suppressed transparent opening lines about the Oort cloud"
    faded = "Scripted fade reveals a section about the Kuiper belt"
    scaled = "Scripted zoom reveals a section about trojan asteroids"
    html = (
        f'<p style="opacity: 0">{in_view}</p><div style="height: 2000px"></div>'
        f'<section style="opacity: 0"><h2>Kuiper belt</h2><p>{faded}.</p></section>'
        f'<section style="transform: scale(0)"><p>{scaled}.</p></section>'
    )
    session = _fold_session(browser, site, html)
    page = browser.run_isolated(session, serialize_page, {})
    assert in_view not in page["html"]
    assert faded in page["html"]
    assert scaled in page["html"]
    markdown = save_and_get(host, page, "Fold")["markdown"]
    assert in_view not in markdown
    assert faded in markdown
    assert scaled in markdown


FOLD_HIDERS = {
    "opacity: 0": 0,
    "opacity: 0.01": 0,
    "transform: scale(0)": 20,  # flattened to its centre, 20 px down its 40 px box
    "transform: rotateX(90deg)": 20,
    "scale: 1 0": 20,
}
"""Styles hiding a 40 px box, and where its box then starts (getBoundingClientRect().top)
relative to the box's place in the flow."""


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    hider=st.sampled_from(sorted(FOLD_HIDERS)),
    place=st.integers(0, 1600),
    scroll=st.integers(0, 800),
)
def test_a_hidden_box_is_kept_exactly_when_it_starts_below_the_viewport(
    browser: Browser, site: Site, serialize_page: str, hider: str, place: int, scroll: int
) -> None:
    """Above the viewport (scrolled past) and in it: dropped; at or past its bottom: kept."""
    words = "Boundary marker about the heliopause"
    html = (
        f'<div style="height: {place}px"></div>'
        f'<p style="margin: 0; height: 40px; {hider}">{words}</p>'
        '<div style="height: 3000px"></div>'
    )
    session = _fold_session(browser, site, html, scroll)
    page = browser.run_isolated(session, serialize_page, {})
    below = place + FOLD_HIDERS[hider] - scroll >= FOLD[1]
    assert (words in page["html"]) is below


# --- the layer over the page (`data-laika-overlay`, the host's `overlay_blocking`) -------------

_ARTICLE = "".join(
    f"<p>Entry {n}: the observers followed the comet from dusk to dawn, noting its tail, its "
    "brightness against the nearby stars and the seeing of every hour under the dome.</p>"
    for n in range(12)
)
_ASK = "<h2>We value your privacy</h2><p>We use cookies on this site. Accept them all?</p>"
OVERLAYS: dict[str, tuple[str, str, bool, bool]] = {
    "consent wall": (
        '<div style="position: fixed; inset: 0; background: rgba(0, 0, 0, .5); z-index: 9">'
        f'<div style="margin: 150px auto; width: 400px; background: #fff">{_ASK}</div></div>',
        "",
        True,
        True,
    ),
    "modal <dialog>": (
        f"<dialog>{_ASK}</dialog>",
        "document.querySelector('dialog').showModal()",
        True,
        True,
    ),
    "popup over a backdrop": (
        '<div style="position: fixed; inset: 0; background: rgba(0, 0, 0, .6)"></div>'
        '<div class="popup" style="position: fixed; top: 200px; left: 200px; width: 400px;'
        " height: 200px; background: #fff\"><h2>Subscribe</h2><p>Get the observers' notes"
        " every morning.</p></div>",
        "",
        True,
        True,
    ),
    "closed modal": (
        '<style>.modal { display: none; position: fixed; inset: 0 }</style><div class="modal"'
        f' role="dialog" aria-modal="true">{_ASK}</div>',
        "",
        False,
        False,
    ),
    "cookie bar at the bottom": (
        '<div role="dialog" style="position: fixed; bottom: 0; left: 0; right: 0; height:'
        f' 100px; background: #eee">{_ASK}</div>',
        "",
        False,
        False,
    ),
    "fixed header": (
        '<header style="position: fixed; top: 0; left: 0; right: 0; height: 60px">'
        "<a href='/'>Station</a> <a href='/archive'>Archive</a></header>",
        "",
        False,
        False,
    ),
    "click-through layer": (
        '<div class="overlay" style="position: fixed; inset: 0; pointer-events: none">'
        "<p>Snowfall effect credits</p></div>",
        "",
        False,
        False,
    ),
    "closed off-canvas menu": (
        '<div role="dialog" aria-modal="true" style="position: fixed; top: 0; bottom: 0; left:'
        ' 0; width: 300px; transform: translateX(-100%)"><a href="/">Home</a> <a'
        ' href="/archive">Archive</a></div>',
        "",
        False,
        False,
    ),
    "page scrolled in a fixed box": ("", "WRAP", True, False),
}
"""Each: markup beside the article; a script run once it is in place (WRAP: the whole page
goes into a fixed box that scrolls); whether the capture marks a layer over the page's
middle; whether the host signals `overlay_blocking` (a layer that holds the page's own text
is the page, not a layer over it)."""


def test_the_layer_over_the_page_is_marked_and_signalled(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    """In a real window (FOLD): what the reader meets over the text is marked and signalled;
    a closed modal, an edge bar, a header, a click-through layer or a menu moved off screen
    is not."""
    wrong = []
    for name, (markup, script, marked, signalled) in OVERLAYS.items():
        html = f"<article><h1>Comet nights</h1>{_ARTICLE}</article>{markup}"
        if script == "WRAP":
            html = f'<div style="position: fixed; inset: 0; overflow: auto">{html}</div>'
        session = _fold_session(browser, site, html)
        if script and script != "WRAP":
            browser.evaluate(session, script)
        page = browser.run_isolated(session, serialize_page, {})
        marks = page["html"].count("data-laika-overlay")
        signals = save_and_get(host, page, f"Overlay: {name}")["signals"]  # one source each
        if marks != int(marked) or ("overlay_blocking" in signals) is not signalled:
            wrong.append((name, marks, signals))
    assert wrong == []


# --- selection ---------------------------------------------------------------------------------


def _select(browser: Browser, session: str, start: str, end: str) -> None:
    """Select from the start of the first element matching `start` to the end of `end`."""
    browser.evaluate(
        session,
        "(() => { const range = document.createRange();"
        f" range.setStartBefore(document.querySelector({json.dumps(start)}));"
        f" range.setEndAfter(document.querySelector({json.dumps(end)}));"
        " const selection = getSelection(); selection.removeAllRanges();"
        " selection.addRange(range); })()",
    )


def test_selection_mode_sends_only_the_visible_selection(
    browser: Browser, site: Site, serialize_page: str, host: Client
) -> None:
    session = browser.open(f"{site.base}/notes/observatory")
    _select(browser, session, "article h1", "div.ghost")
    page = browser.run_isolated(session, serialize_page, {"mode": "selection"})
    selection = page["selection_html"]
    assert selection is not None
    assert "Observatory notes" in selection
    assert KEPT["shadow"] in selection
    assert KEPT["visible_child"] in selection
    for name in ("display", "attribute", "aria", "visibility"):
        assert DROPPED[name] not in selection
    assert KEPT["details"] not in selection  # after the selection's end
    assert "Station office" not in selection
    stored = save_and_get(host, page, "Selections")
    assert "Observatory notes" in stored["markdown"]
    assert KEPT["details"] not in stored["markdown"]


@pytest.mark.parametrize(
    ("wrapper", "shown"),
    [
        ("", True),
        (' style="opacity: 0"', False),
        (' style="transform: scale(0)"', False),
        (' style="height: 0; overflow: hidden"', False),
        (' style="display: contents; opacity: 0"', True),  # no box: opacity does not apply
    ],
)
def test_a_selection_inside_an_unseen_ancestor_is_not_sent(
    browser: Browser, site: Site, serialize_page: str, wrapper: str, shown: bool
) -> None:
    """The walk starts at the selection's container; its ancestors get the walk's rules."""
    session = _blank_session(browser, site)
    html = f"<div{wrapper}><p><em>quasar notes</em> and <em>pulsar notes</em></p></div>"
    browser.evaluate(session, f"document.body.innerHTML = {json.dumps(html)}")
    _select(browser, session, "em:first-child", "em:last-child")
    page = browser.run_isolated(session, serialize_page, {"mode": "selection"})
    selection = page["selection_html"] or ""
    assert ("quasar notes" in selection) is shown
    assert ("pulsar notes" in selection) is shown


def test_selection_links_are_absolute_http_and_deduplicated(browser: Browser, site: Site) -> None:
    session = browser.open(f"{site.base}/long")
    _select(browser, session, "article p:nth-of-type(1)", "article p:nth-of-type(3)")
    links = browser.run_isolated(session, page_function("selectionLinks"))
    assert links == [
        {"url": f"{site.base}/field/{n}", "text": "brightest stars"} for n in (1, 2, 3)
    ]


# --- through the extension: globalThis.laika.savePage in the background ------------------------

EXTENSION = REPO / "extension"


def _stored_markdown(worker: _Worker, source_id: str) -> str:
    got = worker.evaluate(f"globalThis.laika.request('sources.get', {{source_id: {source_id!r}}})")
    return str(got["markdown"])


class _Worker:
    """The extension's background service worker, reached over CDP."""

    def __init__(self, devtools: DevTools, extension_id: str) -> None:
        self.devtools = devtools
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            infos = devtools.call("Target.getTargets")["targetInfos"]
            assert isinstance(infos, list)
            workers = [
                info
                for info in infos
                if info["type"] == "service_worker"
                and str(info["url"]).startswith(f"chrome-extension://{extension_id}/")
            ]
            if workers:
                attached = devtools.call(
                    "Target.attachToTarget", targetId=workers[0]["targetId"], flatten=True
                )
                self.session = str(attached["sessionId"])
                return
            time.sleep(0.2)
        pytest.fail("the extension's service worker did not start within 30 s")

    def evaluate(self, expression: str) -> Any:
        reply = self.devtools.call(
            "Runtime.evaluate",
            self.session,
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
        )
        if "exceptionDetails" in reply:
            pytest.fail(f"the background threw: {json.dumps(reply['exceptionDetails'])[:2000]}")
        result = reply["result"]
        assert isinstance(result, dict)
        return result.get("value")


def _tall_tab(devtools: DevTools, url: str) -> None:
    """Give the tab showing `url` a TALL viewport, checked to hold the page."""
    infos = devtools.call("Target.getTargets")["targetInfos"]
    assert isinstance(infos, list)
    target = next(info for info in infos if info["type"] == "page" and info["url"] == url)
    attached = devtools.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
    session = str(attached["sessionId"])
    emulate_viewport(devtools, session, TALL)
    reply = devtools.call("Runtime.evaluate", session, expression=MEASURE, returnByValue=True)
    assert_holds_page(reply["result"]["value"], TALL)


def _wait_for_host_log(home: Path, text: str, devtools: DevTools) -> None:
    log = home / "logs" / "host.log"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        if devtools.process.poll() is not None:
            pytest.fail(f"Chromium exited early with {devtools.process.returncode}")
        time.sleep(0.2)
    pytest.fail(f"no {text!r} in the host log within 60 s")


def test_save_page_through_the_extension_keeps_what_the_user_sees(
    tmp_path: Path, site: Site
) -> None:
    from laika_host.native.install.browsers import DEV_EXTENSION_ID

    from support import run_laika

    chromium = _need(CHROMIUM, "chromium")
    home, profile = tmp_path / "laika-home", tmp_path / "profile"
    env = {**os.environ, "LAIKA_HOME": str(home)}
    installed = run_laika(
        "install", "--browser", "chromium", "--user-data-dir", str(profile), env=env
    )
    assert installed.returncode == 0, installed.stderr
    url = f"{site.base}/notes/observatory"
    devtools = DevTools(
        chromium,
        [
            *HEADLESS_FLAGS,
            "--enable-unsafe-extension-debugging",
            f"--user-data-dir={profile}",
            f"--load-extension={EXTENSION}",
            f"--disable-extensions-except={EXTENSION}",
            url,
        ],
        env,
        timeout=30,
    )
    try:
        _wait_for_host_log(home, "host.ping", devtools)  # the background has started
        worker = _Worker(devtools, DEV_EXTENSION_ID)
        tab_id = worker.evaluate(
            "(async () => { for (let i = 0; i < 300; i++) {"
            " const tabs = await chrome.tabs.query({});"
            f" const tab = tabs.find((t) => t.url === {json.dumps(url)} && t.status === 'complete');"
            " if (tab) return tab.id; await new Promise((r) => setTimeout(r, 100)); }"
            " return null; })()"
        )
        assert isinstance(tab_id, int), "the fixture tab did not load"
        _tall_tab(devtools, url)
        saved = worker.evaluate(
            f"globalThis.laika.savePage({tab_id}, {{collection: 'Observatory', mode: 'auto'}})"
        )
        assert saved["outcome"] == "new", saved
        assert saved["source"]["title"] == "Observatory notes"
        markdown = _stored_markdown(worker, saved["source"]["id"])
        media = worker.evaluate(
            "globalThis.laika.request('sources.get', "
            f"{{source_id: {saved['source']['id']!r}}}).then((s) => s.media.map((m) => m.url))"
        )
    finally:
        devtools.close()
    for name, phrase in KEPT.items():
        assert phrase in markdown, f"{name}: {phrase!r} not stored:\n{markdown}"
    for name, phrase in DROPPED.items():
        assert phrase not in markdown, f"{name}: {phrase!r} stored:\n{markdown}"
    assert {f"{site.base}{LAZY_IMAGE}", f"{site.base}{SRCSET_LARGE}"} <= set(media)


# --- Firefox: the same API in the background page, reached through Marionette -------------------

FIREFOX_SAVE = """
const [url, collection, resolve] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const { ExtensionParent } = ChromeUtils.importESModule(
  "resource://gre/modules/ExtensionParent.sys.mjs");
const extension = ExtensionParent.GlobalManager.getExtension(arguments[2]);
const background = extension && [...extension.views].find((view) => view.viewType === "background");
const page = background?.xulBrowser?.contentWindow?.wrappedJSObject;
if (!page?.laika) { resolve({ waiting: "the background has not started" }); return; }
const plain = (value) => JSON.parse(page.JSON.stringify(value));  // out of the page's compartment
const into = (value) => Cu.cloneInto(value, page);
(async () => {
  const tabs = plain(await page.browser.tabs.query(into({})));
  const tab = tabs.find((t) => t.url === url && t.status === "complete");
  if (!tab) return { waiting: "the fixture tab has not loaded" };
  const saved = plain(await page.laika.savePage(tab.id, into({ collection, mode: "auto" })));
  const source = plain(await page.laika.request("sources.get", into({ source_id: saved.source.id })));
  const answer = plain(await page.laika.request("chat.ask", into({
    question: "What do the observers at the mountain station record?", collection, provider: "offline" })));
  return { saved, markdown: source.markdown, media: source.media.map((item) => item.url), answer };
})().then(resolve, (error) => resolve({ error: String(error) }));
"""
"""Runs privileged in Firefox's parent process: find the extension's background page and call
globalThis.laika there, as the Chromium test does in the service worker."""


def test_firefox_saves_a_page_and_asks_offline_through_the_extension(
    tmp_path: Path, site: Site
) -> None:
    from laika_host.native.install.browsers import GECKO_ID
    from test_browser_e2e import FIREFOX, _firefox_profile

    from marionette import active_port
    from support import run_laika

    firefox = _need(FIREFOX, "firefox-esr")
    home, user_home = tmp_path / "laika-home", tmp_path / "home"
    user_home.mkdir()
    env = {**os.environ, "LAIKA_HOME": str(home), "HOME": str(user_home), "MOZ_HEADLESS": "1"}
    installed = run_laika("install", "--browser", "firefox", env=env)
    assert installed.returncode == 0, installed.stderr
    profile = _firefox_profile(tmp_path)
    with (profile / "user.js").open("a") as prefs:
        prefs.write('user_pref("marionette.port", 0);\n')  # any free port, written to the profile
        # the background page in the parent process, where Marionette's chrome scope reaches it
        prefs.write('user_pref("extensions.webextensions.remote", false);\n')
    url = f"{site.base}/notes/observatory"
    command = [firefox, "--headless", "--no-remote", "--marionette", "-remote-allow-system-access"]
    browser = subprocess.Popen(
        [*command, "--profile", str(profile), url],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        marionette = Marionette(active_port(profile))
        marionette.call("WebDriver:NewSession", capabilities={})
        firefox_open(marionette, url)  # the tab the command line opened, reloaded
        marionette.call("Marionette:SetContext", value="chrome")
        deadline = time.monotonic() + 60
        while True:
            reply = marionette.call(
                "WebDriver:ExecuteAsyncScript",
                script=FIREFOX_SAVE,
                args=[url, "Observatory", GECKO_ID],
                scriptTimeout=60_000,
            )["value"]
            if "waiting" not in reply or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        marionette.close()
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait()
    assert "saved" in reply, reply
    assert reply["saved"]["outcome"] == "new"
    assert reply["saved"]["source"]["title"] == "Observatory notes"
    markdown = reply["markdown"]
    for name, phrase in KEPT.items():
        assert phrase in markdown, f"{name}: {phrase!r} not stored:\n{markdown}"
    for name, phrase in DROPPED.items():
        assert phrase not in markdown, f"{name}: {phrase!r} stored:\n{markdown}"
    assert {f"{site.base}{LAZY_IMAGE}", f"{site.base}{SRCSET_LARGE}"} <= set(reply["media"])
    answer = reply["answer"]  # asked offline through the same background
    assert answer["status"] == "ok", answer
    verified = [c for c in answer["citations"] if c["verified"]]
    assert verified, answer
    assert all(f'href="{c["locator"]}"' in answer["answer_html"] for c in verified), answer
    assert all("#:~:text=" in c["locator"] for c in verified), answer


def test_firefox_serializer_keeps_what_the_user_sees(
    tmp_path: Path, site: Site, serialize_page: str
) -> None:
    """The same fixture page serialized by Firefox's layout and style engine (its computed
    styles and checkVisibility), run in the page as a content script through Marionette."""
    from test_browser_e2e import FIREFOX

    from marionette import active_port

    firefox = _need(FIREFOX, "firefox-esr")
    profile = tmp_path / "ff-profile"
    profile.mkdir()
    (profile / "user.js").write_text(
        'user_pref("marionette.port", 0);\n'
        'user_pref("browser.shell.checkDefaultBrowser", false);\n'
        'user_pref("datareporting.policy.dataSubmissionEnabled", false);\n'
    )
    env = {**os.environ, "HOME": str(tmp_path), "MOZ_HEADLESS": "1"}
    command = [firefox, "--headless", "--no-remote", "--marionette", "--profile", str(profile)]
    browser = subprocess.Popen(
        [*command, "about:blank"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        marionette = Marionette(active_port(profile))
        marionette.call("WebDriver:NewSession", capabilities={})
        firefox_open(marionette, f"{site.base}/notes/observatory")
        page = marionette.call(
            "WebDriver:ExecuteScript",
            script=f"return ({serialize_page})(arguments[0]);",
            args=[{}],
        )["value"]
        marionette.close()
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait()
    html = page["html"]
    assert page["truncated"] is False
    for name, phrase in KEPT.items():
        assert phrase in html, f"{name}: {phrase!r} is on screen but not serialized"
    for name, phrase in DROPPED.items():
        assert phrase not in html, f"{name}: {phrase!r} is not on screen but was serialized"
