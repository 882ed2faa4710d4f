"""Browser tools and tool approvals in real headless Chromium, with the real extension and the
real installed host (issue #16): a loopback page with a counter button and a password field;
the browser tools run in it through the background (`ext.run_tool`, scripting.executeScript in
the extension's isolated world); a recording OpenAI-compatible server proposes tool calls and
the side panel's card waits for Approve / Deny. One browser serves the module's tests, in order
(2-core machines)."""

from __future__ import annotations

import http.server
import json
from collections.abc import Iterator
from typing import Any

import pytest

from panel_browser import Page, PanelBrowser, connected_panel, shoot

from html_server import serve
from llm_servers import ProviderServer, Reply, openai_sse

pytestmark = pytest.mark.browser  # every test here starts Chromium

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
    return connected_panel(browser)


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


# --- the whole loop: a model's proposals, the gate, the panel's card, the page ------------------

OBSERVE = {"name": "browser.observe_dom", "arguments": {"maxChars": 2000}}
CLICK = {"name": "browser.click", "arguments": {"handleId": "h1"}}  # the button: the first handle
TYPE_PASSWORD = {"name": "browser.type", "arguments": {"handleId": "h3", "text": "hunter2"}}
LAST = ".msg.assistant:last-child"


class ScriptedServer(ProviderServer):
    """The recording server, its chat replies counted per exchange: a probe (GET /models,
    POST /tokenize) that lands in the middle of an exchange does not shift them."""

    def __init__(self) -> None:
        super().__init__([Reply(chunks=openai_sse(["{}"]))], intercept_discovery=False)
        self.script: list[Reply] = []
        self.served = 0

    def play(self, handler: http.server.BaseHTTPRequestHandler, reply: Reply) -> None:
        if handler.path.endswith("/chat/completions") and self.script:
            reply = self.script[min(self.served, len(self.script) - 1)]
            self.served += 1
        super().play(handler, reply)


@pytest.fixture(scope="module")
def model_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


def proposing(*calls: dict[str, Any], markdown: str = "Working on it.") -> Reply:
    reply = json.dumps(
        {"assistant": {"markdown": markdown}, "citations": [], "tool_calls": list(calls)}
    )
    return Reply(chunks=openai_sse([reply[i : i + 60] for i in range(0, len(reply), 60)]))


def answering(markdown: str) -> Reply:
    return Reply(
        chunks=openai_sse([json.dumps({"assistant": {"markdown": markdown}, "citations": []})])
    )


@pytest.fixture(scope="module")
def chat(panel: Page, model_server: ScriptedServer) -> Page:
    """The panel with the loopback model server as its default provider (added in Settings),
    asking about an Inbox with one note. A grounded turn has its sources in context, which the
    gate treats as untrusted: every call asks, an allowed read too (`forced_ask`)."""
    note = {"text": "The counter form has a button that adds one.", "collection": "Inbox"}
    panel.eval(f"laikaPanel.request('sources.add_note', {json.dumps(note)}).then(() => true)")
    panel.click("#tab-settings")
    panel.wait("document.querySelector('#provider-form')", what="the provider form")
    panel.type("#provider-id", "loop")
    panel.type("#provider-kind", "openai_compatible")
    panel.type("#provider-model", "recorder")
    panel.type("#provider-base-url", model_server.url)
    panel.eval("document.querySelector('#provider-form').requestSubmit(), true")
    panel.wait("document.querySelector('#provider-list [data-id=loop]')", what="the new provider")
    panel.type("#default-provider", "loop")
    panel.click("#tab-chat")
    return panel


def start_ask(panel: Page, question: str) -> int:
    """Ask in the Chat view; returns how many answers there were before."""
    panel.click("#tab-chat")
    before = int(panel.eval("document.querySelectorAll('.msg.assistant').length"))
    panel.type("#question", question)
    panel.click("#ask")
    panel.wait(f"document.querySelectorAll('.msg.assistant').length > {before}", what="the answer")
    return before


def card(panel: Page, tool: str, status: str, seconds: float = 30) -> None:
    panel.wait(
        f"[...document.querySelectorAll('{LAST} .tool-call')].some(c =>"
        f" c.querySelector('code')?.textContent === '{tool}' && c.dataset.status === '{status}')",
        seconds=seconds,
        what=f"a {status} {tool} card",
    )


def finished(panel: Page) -> dict[str, Any]:
    panel.wait(
        f"['done', 'error'].includes(document.querySelector('{LAST}').dataset.state)",
        seconds=60,
        what="the answer to finish",
    )
    return dict(
        panel.eval(
            f"""(() => {{ const last = document.querySelector('{LAST}');
            return {{state: last.dataset.state, text: last.querySelector('.answer').textContent,
              status: last.querySelector('.msg-status').textContent,
              calls: [...last.querySelectorAll('.tool-call')].map(c =>
                [c.querySelector('code').textContent, c.dataset.status])}}; }})()"""
        )
    )


def approve(panel: Page, tool: str) -> None:
    """Approve the pending card of `tool` (just this once)."""
    card(panel, tool, "pending")
    panel.click(f"{LAST} .tool-call[data-status=pending] .tool-approve")


def script(server: ScriptedServer, *replies: Reply) -> int:
    """Serve `replies` to the next chat requests, in order; returns where this exchange
    starts in `server.received`."""
    server.script, server.served = list(replies), 0
    return len(server.received)


def told(server: ScriptedServer, start: int, number: int) -> str:
    """The messages of the exchange's chat request `number` (0: the first), as JSON text."""
    posts = [r for r in server.received[start:] if r.path.endswith("/chat/completions")]
    assert len(posts) > number, f"the model was asked {len(posts)} times"
    return json.dumps(posts[number].body.get("messages"))


def count(form: Page) -> str:
    return str(form.eval("document.getElementById('count').textContent"))


def test_deny_leaves_the_page_untouched_and_the_model_is_told(
    chat: Page, form: Page, model_server: ScriptedServer
) -> None:
    asked = script(model_server, proposing(CLICK), answering("I did not click it."))
    start_ask(chat, "Click the button on the page.")
    card(chat, "browser.click", "pending")
    assert count(form) == "0", "nothing runs while the card waits"
    assert chat.eval(f"document.querySelector('{LAST} .tool-call .tool-reason').textContent")
    chat.click(f"{LAST} .tool-call[data-status=pending] .tool-deny")
    answer = finished(chat)
    assert answer["state"] == "done", answer
    assert answer["calls"] == [["browser.click", "denied"]]
    assert count(form) == "0"
    assert "denied" in told(model_server, asked, 1)


def test_observe_runs_its_handles_reach_the_model_and_approve_clicks_the_button(
    chat: Page, form: Page, model_server: ScriptedServer
) -> None:
    """...and "always" becomes a rule listed in Settings until revoked (one test: the rule is
    this approval's, so the check cannot depend on which test ran before)."""
    asked = script(
        model_server, proposing(OBSERVE), proposing(CLICK), answering("Clicked: one click.")
    )
    start_ask(chat, "Look at the page, then click its button.")
    card(chat, "browser.observe_dom", "pending")
    forced = chat.eval(f"document.querySelector('{LAST} .tool-call .tool-rule').textContent")
    assert "untrusted page content" in forced
    approve(chat, "browser.observe_dom")
    card(chat, "browser.observe_dom", "executed")
    card(chat, "browser.click", "pending")
    second = told(model_server, asked, 1)
    assert '\\"id\\": \\"h1\\"' in second or '"id": "h1"' in second, second[-3000:]
    assert "Add one" in second
    assert count(form) == "0", "the click waits for the user"
    shoot(chat, "tool-approval")
    chat.eval(f"document.querySelector('{LAST} .tool-remember').value = 'always', true")
    chat.click(f"{LAST} .tool-call[data-status=pending] .tool-approve")
    answer = finished(chat)
    assert answer["state"] == "done", answer
    assert answer["calls"] == [["browser.observe_dom", "executed"], ["browser.click", "executed"]]
    assert count(form) == "1"
    third = told(model_server, asked, 2)
    assert "executed" in third
    assert "Counter form" in third
    assert answer["text"].startswith("Clicked")
    assert chat.problems() == []
    assert form.problems() == []
    remembered_always_is_listed_and_revoked(chat)


def remembered_always_is_listed_and_revoked(chat: Page) -> None:
    chat.click("#tab-settings")
    chat.wait(
        "[...document.querySelectorAll('#tool-rules .rule code')].some(c => c.textContent === 'browser.click')",
        what="the remembered browser.click rule",
    )
    chat.eval("document.querySelector('#tool-permissions').scrollIntoView(), true")
    shoot(chat, "tool-permissions")
    chat.click("#tool-rules .rule .danger")
    chat.wait("document.querySelectorAll('#tool-rules .rule').length === 0", what="the rule to go")
    chat.click("#tab-chat")


def test_typing_into_the_password_field_is_refused_and_it_stays_empty(
    chat: Page, form: Page, model_server: ScriptedServer
) -> None:
    asked = script(
        model_server, proposing(OBSERVE), proposing(TYPE_PASSWORD), answering("I will not.")
    )
    start_ask(chat, "Type my password into the page.")
    approve(chat, "browser.observe_dom")
    answer = finished(chat)
    assert answer["state"] == "done", answer
    assert answer["calls"] == [["browser.observe_dom", "executed"], ["browser.type", "denied"]]
    assert form.eval("document.getElementById('pw').value") == ""
    assert "denied" in told(model_server, asked, 2)
    assert chat.problems() == []
    assert form.problems() == []
