"""Web text that reaches the model through a tool result makes the rest of its turn untrusted.

The turn's untrusted flag was set once, from the packed documents: a turn that started
without web content stayed trusted after the model had read a page through `browser.
observe_dom` or `search`, so what it proposed next was gated as if no page were in its
context (an `allow` ran without the user). Every tool kind is tried here, on a real store and
the real Policy Gate: the model calls it in a trusted first step (a fake user approves what
asks, a fake extension answers browser tools with the page's text), then proposes
`app.calculate`, which the gate allows in a trusted turn. Whenever the first result carried
the page's text to the model, the second call must be asked, not allowed, and the result
must be marked `trust: "untrusted"` in the tool message.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from laika_host.agent import tool_loop
from laika_host.capture import capture_html
from laika_host.llm.contract import ChatMessage
from laika_host.service.artifact_save import save_note
from laika_host.store import open_store
from laika_host.tools import registry
from laika_host.tools.chat_runner import (
    ChatRunner,
    decide_call,
    offered_tools,
    record_forwarded,
)
from laika_host.tools.turn import ProposedCall, TurnFacts
from tool_cases import VALID

from html_server import serve
from public_loopback import loopback_is_public  # noqa: F401 (a fixture)

MARKER = "Zanzibarquux"
"""A word that is only on the web page: where it reaches the model, page text did."""
PAGE = (
    f"<html><head><title>{MARKER} tides</title></head><body><article><h1>{MARKER} tides</h1>"
    f"<p>The {MARKER} harbour floods twice a day because the moon pulls the oceans; the "
    "tables list the hours for each harbour along the coast.</p><p>Sailors read them before "
    "leaving port, and so do the people who walk the flats at low water.</p></article>"
    "</body></html>"
)
EXTENSION_RESULT = {"markdown": f"# {MARKER} tides\n\nThe {MARKER} harbour floods.", "url": "x"}
"""What the extension answers for a browser tool: it runs in the page, so page text."""
CALC = ProposedCall("app.calculate", {"expression": "1+1"})
TOOLS = registry.family("llmcp")
CARRY_PAGE_TEXT = {
    *(name for name in TOOLS if name.startswith("browser.")),
    "search",
    "collection.list_sources",
    "collection.add_sources",
    "source.capture",
    "source.refresh",
    "artifact.open",
    "artifact.share",
    "transform.run",
}
"""The tools whose result, in this setup, hands the page's text to the model (checked, so
the property below is never true for want of page text)."""


def arguments(tool: str, base: str, source_id: str, artifact_id: str) -> dict[str, Any]:
    """Arguments that make the tool read the saved page, the served page or the artifact."""
    own: dict[str, dict[str, Any]] = {
        "search": {"query": MARKER},
        "collection.list_sources": {"collectionId": "Reading"},
        "collection.add_sources": {
            "collectionId": "Reading",
            "sources": [{"type": "url", "url": f"{base}/saved"}],  # already saved: found
        },
        "source.capture": {"collectionId": "Reading", "url": f"{base}/captured"},
        "source.refresh": {"sourceId": source_id},
        "artifact.open": {"artifactId": artifact_id},
        "artifact.share": {"artifactId": artifact_id, "format": "markdown"},
        "transform.run": {"collectionId": "Reading", "type": "timeline", "config": {}},
    }
    return own.get(tool, VALID[tool])


def run_turn(tool: str) -> tuple[list[dict[str, Any]], list[list[ChatMessage]]]:
    """The tool, then `app.calculate`, in a turn that starts trusted; every call's last
    event and the messages of each model request."""

    async def main() -> tuple[list[dict[str, Any]], list[list[ChatMessage]]]:
        home = Path(os.environ["LAIKA_HOME"])
        with serve(lambda _path: PAGE) as base:
            async with open_store(home / "laika.db") as store:
                saved = await store.sources.save_capture(
                    "Reading", capture_html(PAGE.encode(), f"{base}/saved")
                )
                note = await save_note(store, "Tides", f"# {MARKER}\n\nFrom the page.")
                tasks: set[asyncio.Task[Any]] = set()
                answered: set[tuple[str, str]] = set()

                def user_and_extension(event: dict[str, Any]) -> None:
                    call_id = event["call_id"]
                    if (call_id, event["status"]) in answered:  # each state answered once
                        return
                    answered.add((call_id, event["status"]))
                    if event["status"] == "pending":  # the user approves whatever is asked
                        work = decide_call(store, call_id, True)
                    elif event["status"] == "forward":  # the extension runs it in the page
                        work = record_forwarded(
                            store, call_id, ok=True, result=EXTENSION_RESULT, error=None
                        )
                    else:
                        return
                    task = asyncio.get_running_loop().create_task(work)
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)

                runner = ChatRunner(
                    store, offered_tools(extension=True), extension=True, emit=user_and_extension
                )
                args = arguments(tool, base, saved.source.id, str(note["id"]))
                script = [[ProposedCall(tool, args)], [CALC], []]
                requests: list[list[ChatMessage]] = []

                async def ask(messages: list[ChatMessage]) -> tuple[str, str, list[ProposedCall]]:
                    requests.append(list(messages))
                    return "", "answer", script[len(requests) - 1]

                facts = TurnFacts(None, "Reading", untrusted=False)  # no page packed
                start = [ChatMessage(role="user", content="Go.")]
                await tool_loop.converse(start, ask, runner, facts)
                return runner.reports(), requests

    return asyncio.run(main())


def told(request: list[ChatMessage]) -> list[dict[str, Any]]:
    packet = json.loads(request[-1].content)
    assert packet["sender"] == {"role": "tool"}
    results: list[dict[str, Any]] = packet["tool_results"]
    return results


@pytest.mark.usefixtures("loopback_is_public")  # the served page plays a public one
@pytest.mark.parametrize("tool", TOOLS)
def test_any_tool_whose_result_carries_page_text_makes_the_turn_untrusted(tool: str) -> None:
    reports, requests = run_turn(tool)
    first, calc = reports
    assert (first["tool"], calc["tool"]) == (tool, "app.calculate")
    assert len(requests) == 3
    [result] = told(requests[1])  # what the model read before it proposed the calculation
    carried = MARKER in json.dumps(result, ensure_ascii=False)
    assert carried == (tool in CARRY_PAGE_TEXT), result  # so the property is tried for each
    marked = result.get("trust") == "untrusted"
    if carried:  # the property: page text read => the rest of the turn is untrusted
        assert marked, result
    ran = first["status"] in ("executed", "failed")
    assert marked == (ran and registry.REGISTRY[tool].web_text)  # what the registry says
    assert calc["forced_ask"] is marked, calc  # asked, not allowed, once a page was read
    assert calc["decision"] == ("ask" if marked else "allow")
    assert calc["status"] == "executed"  # (the fake user approves what is asked)
    assert first["forced_ask"] is False  # the first step was trusted


def test_a_page_observed_then_a_search_of_saved_pages_each_turn_the_turn_untrusted() -> None:
    """The first step is trusted: `observe_dom` and `search` are allowed without asking.
    The next request carries the page as untrusted, and the model's next read is asked."""
    for tool in ("browser.observe_dom", "search"):
        reports, requests = run_turn(tool)
        first, calc = reports
        assert (first["decision"], first["status"]) == ("allow", "executed")
        assert MARKER not in json.dumps([m.content for m in requests[0]])
        [result] = told(requests[1])
        assert MARKER in json.dumps(result)
        assert result["trust"] == "untrusted"
        assert calc["forced_ask"] is True
        assert "untrusted page content is in this turn's context" in calc["reason"]
