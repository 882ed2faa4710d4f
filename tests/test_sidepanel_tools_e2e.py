"""Browser tools and tool approvals in real headless Chromium, with the real extension and the
real installed host (issue #16): a loopback page with a counter button and a password field;
the browser tools run in it through the background (`ext.run_tool`, scripting.executeScript in
the extension's isolated world); a recording OpenAI-compatible server proposes tool calls and
the side panel's card waits for Approve / Deny. One browser serves the module's tests, in order
(2-core machines)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from panel_browser import Page, PanelBrowser

from html_server import serve
from support import REPO

pytestmark = pytest.mark.browser  # every test here starts Chromium

SCREENSHOTS = REPO / "tests" / "screenshots"
STALE = "stale or unknown handle: observe the page again"
FORM = """<!doctype html><html><head><title>Counter form</title></head><body>
<h1>Counter form</h1><p>Clicks so far: <output id="count">0</output></p>
<button id="inc" type="button">Add one</button>
<label>City <input id="city" name="city"></label>
<label>Password <input id="pw" type="password" name="pw"></label>
<label>Card number <input id="card" name="n1" autocomplete="cc-number"></label>
<script>
let clicks = 0;
document.getElementById("inc").addEventListener("click", () => {
  clicks += 1; document.getElementById("count").textContent = String(clicks);
});
</script></body></html>"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    def page_for(path: str) -> str | tuple[bytes, str] | None:
        if path == "/favicon.ico":  # no 404 in the console
            return (b"", "image/x-icon")
        return FORM if path.startswith("/form") else None

    with serve(page_for) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PanelBrowser]:
    started = PanelBrowser(tmp_path_factory.mktemp("tools"))
    yield started
    started.close()


@pytest.fixture(scope="module")
def panel(browser: PanelBrowser) -> Page:
    page = browser.open_panel()
    page.wait("document.body.dataset.host === 'connected'", what="the host status 'connected'")
    return page


@pytest.fixture
def form(browser: PanelBrowser, site: str) -> Iterator[Page]:
    """A fresh form page, the only web tab: the tab the chat's tools run in."""
    page = browser.open(f"{site}/form", watch=True)
    yield page
    browser.devtools.call("Target.closeTarget", targetId=page.target_id)


def run_tool(panel: Page, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    payload = {"call_id": "t", "tool": tool, "arguments": arguments}
    reply = panel.eval(f"laikaPanel.request('ext.run_tool', {json.dumps(payload)})")
    assert isinstance(reply, dict)
    return reply


def observed(panel: Page) -> dict[str, Any]:
    reply = run_tool(panel, "browser.observe_dom", {"maxChars": 2000})
    assert reply["ok"], reply
    result: dict[str, Any] = reply["result"]
    return result


def handle(observation: dict[str, Any], name: str) -> str:
    return next(h["id"] for h in observation["handles"] if h["name"] == name or h["text"] == name)


def test_the_page_tools_observe_click_and_type_in_the_tab_and_refuse_secret_fields(
    panel: Page, form: Page
) -> None:
    seen = observed(panel)
    assert seen["title"] == "Counter form"
    assert "Clicks so far" in seen["text"]
    assert [(h["tag"], h["name"], h["label"], h["text"]) for h in seen["handles"]] == [
        ("button", "inc", "", "Add one"),
        ("input", "city", "City", ""),
        ("input", "pw", "Password", ""),
        ("input", "n1", "Card number", ""),
    ]
    assert seen["handles"][2]["type"] == "password"
    assert seen["handles"][3]["autocomplete"] == "cc-number"

    clicked = run_tool(panel, "browser.click", {"handleId": handle(seen, "Add one")})
    assert clicked["ok"], clicked
    assert clicked["result"]["title"] == "Counter form"
    assert form.eval("document.getElementById('count').textContent") == "1"

    typed = run_tool(panel, "browser.type", {"handleId": handle(seen, "city"), "text": "Oslo"})
    assert typed["ok"], typed
    assert form.eval("document.getElementById('city').value") == "Oslo"
    for name, kind in (("pw", "credential"), ("n1", "payment")):
        refused = run_tool(
            panel, "browser.type", {"handleId": handle(seen, name), "text": "hunter2"}
        )
        assert not refused["ok"]
        assert f"refused: browser.type on a {kind} field" in refused["error"]
    assert (
        form.eval("document.getElementById('pw').value + document.getElementById('card').value")
        == ""
    )

    again = observed(panel)
    assert {h["id"] for h in again["handles"]}.isdisjoint({h["id"] for h in seen["handles"]})
    stale = run_tool(panel, "browser.click", {"handleId": handle(seen, "Add one")})
    assert stale == {"ok": False, "error": STALE, "tabId": stale["tabId"]}
    assert form.eval("document.getElementById('count').textContent") == "1"

    for url in ("javascript:alert(1)", "file:///etc/passwd"):
        refused = run_tool(panel, "browser.navigate", {"url": url})
        assert not refused["ok"]
        assert "must be an http(s) URL" in refused["error"]
    assert run_tool(panel, "browser.scroll", {"deltaY": 200})["ok"]
    assert form.problems() == []
    assert panel.problems() == []


def test_a_page_that_navigates_makes_the_old_handles_stale(
    panel: Page, form: Page, site: str
) -> None:
    seen = observed(panel)
    moved = run_tool(panel, "browser.navigate", {"url": f"{site}/form?again=1"})
    assert moved["ok"], moved
    assert moved["result"]["url"].endswith("/form?again=1")
    stale = run_tool(panel, "browser.click", {"handleId": handle(seen, "Add one")})
    assert stale["error"] == STALE
    fresh = observed(panel)
    assert run_tool(panel, "browser.click", {"handleId": handle(fresh, "Add one")})["ok"]
    assert form.eval("document.getElementById('count').textContent") == "1"
