"""What a hostile model reply may cost the host: bounded by counts and linear in its length.

A reply of 60,000 empty citations (180 KB) held the host's event loop for 12.8 s: the client's
schema check formatted all 120,000 of jsonschema's complaints to sort them, and the parser
validated every citation and walked every issue. The parser now reads at most a fixed number
of citations, tool calls, render blocks and quote lines, and says how many it dropped; the
schema check stops at its first complaint; the stream's text is joined once. Costs are
counted (validations, issues) or measured in CPU time, as growth where they can be, never in
wall time: these cores are shared.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from complexity import assert_linear
from laika_host import issues
from laika_host.agent import parse
from laika_host.agent.parse import (
    MAX_CITATIONS,
    MAX_ISSUES,
    MAX_QUOTES,
    MAX_RENDER_BLOCKS,
    MAX_TOOL_CALLS,
    parse_markdown_reply,
    parse_response,
)
from laika_host.agent.parse_llmx import parse_llmx_reply
from laika_host.agent.prompts import response_format
from laika_host.llm.client import ChatClient
from laika_host.llm.config import ProviderConfig
from laika_host.llm.contract import ChatMessage, ChatRequest
from laika_host.llm.events import Done, StreamEvent, TextDelta
from laika_host.llm.output import check_output

MAX_CHARS = 200_000
LLMX_HEAD = 'HEADER:{f:model,t:user,s:1}\nRES:{o:"ACK",msg:"The moon [1]."}\n'
JSON_REQUEST = ChatRequest(
    model="m",
    messages=[ChatMessage(role="user", content="x")],
    response_format=response_format([]),
)


def fill(unit: str, size: int, head: str = "", tail: str = "") -> str:
    """`head`, then `unit` repeated, then `tail`: about `size` characters in all."""
    return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


def empty_citations(size: int) -> str:
    return fill("{},", size, '{"assistant":{"markdown":"x [1]"},"citations":[', "{}]}")


class Counted:
    """Wraps a pydantic model's `model_validate` (as `parse` calls it) and counts the calls."""

    def __init__(self, model: Any) -> None:
        self.model, self.calls = model, 0

    def model_validate(self, data: Any) -> Any:
        self.calls += 1
        return self.model.model_validate(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> dict[str, Counted | list[int]]:
    """Validations of citations, render documents and tool calls, and issues read."""
    counted: dict[str, Any] = {
        "citations": Counted(parse.Citation),
        "documents": Counted(parse.Document),
        "issues": [],
    }
    monkeypatch.setattr(parse, "Citation", counted["citations"])
    monkeypatch.setattr(parse, "Document", counted["documents"])
    tools = {name: Counted(model) for name, model in parse.TOOL_CALL_MODELS.items()}
    counted["tools"] = tools
    monkeypatch.setattr(parse, "TOOL_CALL_MODELS", tools)
    real = issues.issues_from

    def issues_from(error: Any, data: Any, **options: Any) -> Any:
        found = real(error, data, **options)
        counted["issues"].append(len(found))
        return found

    monkeypatch.setattr(parse, "issues_from", issues_from)
    return counted


def test_sixty_thousand_empty_citations_cost_a_bounded_number_of_checks(
    counts: dict[str, Any],
) -> None:
    text = empty_citations(180_000)
    total = text.count("{}")
    result = parse_response(text, request_id="req-1", max_chars=MAX_CHARS)
    assert result.outcome == "repaired"
    assert result.markdown == "x [1]"
    dropped = total - MAX_CITATIONS
    assert (
        f"the reply has {total} citations; only the first {MAX_CITATIONS} were read "
        in (result.warnings[0])
    )
    assert f"({dropped} dropped)" in result.warnings[0]
    assert len(result.dropped) == MAX_CITATIONS  # each read one is invalid, and says why
    # before: 60,000 validations and 240,000 issues (3 CPU-s here, 12.8 s on a busy host)
    assert counts["citations"].calls <= 2 * MAX_CITATIONS
    assert sum(counts["issues"]) <= 2 * MAX_CITATIONS + 4 * MAX_ISSUES


def test_tool_calls_and_render_blocks_past_their_caps_are_never_checked(
    counts: dict[str, Any],
) -> None:
    calls = [{"name": "search", "arguments": {"query": 1}}] * 4_000  # each invalid
    reply = json.dumps({"assistant": {"markdown": "x"}, "tool_calls": calls})
    result = parse_response(reply, max_chars=MAX_CHARS)
    assert result.tool_calls == []
    assert len(result.dropped) == MAX_TOOL_CALLS
    assert (
        f"the reply has 4000 tool calls; only the first {MAX_TOOL_CALLS} were read"
        in (result.warnings[0])
    )
    assert counts["tools"]["search"].calls <= MAX_TOOL_CALLS

    kept = {"type": "paragraph", "children": [{"type": "text", "text": "The moon."}]}
    blocks = [kept, *[{"type": "nonsense"}] * 7_999]
    reply = json.dumps({"assistant": {"render": {"type": "doc", "children": blocks}}})
    result = parse_response(reply, max_chars=MAX_CHARS)
    assert result.markdown == "The moon."
    assert counts["documents"].calls <= MAX_RENDER_BLOCKS + 2  # each block read is checked
    assert (
        f"the reply has 8000 top-level render blocks; only the first {MAX_RENDER_BLOCKS}"
        in (result.warnings[0])
    )


def test_one_block_of_ten_thousand_invalid_nodes_reads_a_bounded_number_of_issues(
    counts: dict[str, Any],
) -> None:
    nodes = [{"type": "bogus"}] * 10_000
    render = {"type": "doc", "children": [{"type": "paragraph", "children": nodes}]}
    reply = json.dumps({"assistant": {"markdown": "kept", "render": render}})
    result = parse_response(reply, max_chars=MAX_CHARS)
    assert result.markdown == "kept"
    assert max(counts["issues"]) <= MAX_ISSUES  # before: 10,000 per check, several checks


def test_markdown_mode_reads_a_bounded_number_of_quote_lines() -> None:
    reply = fill('> "the moon pulls the oceans" (src:1)\n', 190_000, "The moon [1].\n\n")
    lines = reply.count("\n> ")
    result = parse_markdown_reply(reply, max_chars=MAX_CHARS)
    assert len(result.quotes) == MAX_QUOTES
    assert result.markdown == "The moon [1]."
    assert f"the reply has {lines} quote lines; only the first {MAX_QUOTES} were read" in (
        " ".join(result.warnings)
    )


def test_a_compact_reply_of_ten_thousand_citations_keeps_its_answer() -> None:
    """Before, its JSON form was longer than the cap, was cut, and the answer was lost."""
    reply = fill('RES:{o:d1,msg:""}\n', 180_000, LLMX_HEAD)
    total = reply.count("RES:{o:d1")
    result = parse_llmx_reply(reply, request_id="req-1", max_chars=MAX_CHARS)
    assert result.outcome == "repaired"
    assert result.markdown == "The moon [1]."
    assert "dropped_excess_citations" in result.repairs
    assert (
        f"the reply has {total} citations; only the first {MAX_CITATIONS} were read"
        in (result.warnings[0])
    )
    assert result.raw is reply


def test_the_schema_check_stops_at_its_first_complaint() -> None:
    """Before: every complaint formatted (pretty-printed instance and schema) to sort them,
    27 CPU-s in the host for this reply; a few milliseconds now."""
    text = empty_citations(180_000)
    started = time.process_time()
    problem = check_output(text, JSON_REQUEST)
    assert time.process_time() - started < 2.0
    assert problem is not None
    assert "does not match the schema at citations/0" in problem


def test_the_streamed_text_is_collected_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """`text += delta` on an attribute copies the text each time (1 MiB in 4-character
    deltas cost 51 CPU-s): here 256 KB and 1 MiB in 64-character deltas, one client and
    one event loop for all runs (making a client costs more than a short stream)."""
    provider = ProviderConfig(
        id="p", kind="openai_compatible", model="m", base_url="http://127.0.0.1:9"
    )
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="x")])
    loop = asyncio.new_event_loop()
    client = loop.run_until_complete(_client())

    def prepare(deltas: int) -> Callable[[], object]:
        async def stream(*_: Any, **__: Any) -> AsyncIterator[StreamEvent]:
            for _ in range(deltas):
                yield TextDelta("abcd" * 16)
            yield Done("stop")

        monkeypatch.setattr(client, "stream", stream)

        def complete() -> None:
            result = loop.run_until_complete(client.complete(provider, request))
            assert len(result.text) == 64 * deltas

        return complete

    try:
        assert_linear(prepare, 4_096, 16_384, bound=8)  # linear 4, quadratic 16
    finally:
        loop.run_until_complete(client.aclose())
        loop.close()


async def _client() -> ChatClient:
    return ChatClient()  # made inside the loop that will use it


H = LLMX_HEAD
SCALING: dict[str, tuple[Callable[..., object], Callable[[int], str]]] = {
    "empty citations": (parse_response, empty_citations),
    "tool calls": (
        parse_response,
        lambda n: fill('{"name":"search","arguments":{"q":1}},', n, '{"tool_calls":[', "{}]}"),
    ),
    "invalid inline nodes": (
        parse_response,
        lambda n: fill(
            '{"type":"bogus"},',
            n,
            '{"assistant":{"render":{"type":"doc","children":[{"type":"paragraph","children":[',
            "{}]}]}}}",
        ),
    ),
    "unknown keys": (
        parse_response,
        lambda n: "{" + ",".join(f'"k{i}":1' for i in range(n // 9)) + ',"markdown":"x"}',
    ),
    "open brackets": (parse_response, lambda n: "[" * n),
    "braces in prose": (parse_response, lambda n: "so {" * (n // 4)),
    "raw newlines in a string": (
        parse_response,
        lambda n: fill("\n", n, '{"assistant":{"markdown":"', '"}}'),
    ),
    "quote lines": (parse_markdown_reply, lambda n: fill('> "the moon" (src:1)\n', n, "x\n")),
    "compact citations": (parse_llmx_reply, lambda n: fill('RES:{o:d1,msg:""}\n', n, H)),
    "compact wide array": (
        parse_llmx_reply,
        lambda n: fill("1,", n, H + 'RES:{o:d1,msg:"x",x_a:[', "1]}\n"),
    ),
    "schema check": (lambda text, **_: check_output(text, JSON_REQUEST), empty_citations),
}


@pytest.mark.parametrize("name", list(SCALING))
def test_reading_a_reply_is_linear_in_its_length(name: str) -> None:
    read, build = SCALING[name]

    def prepare(size: int) -> Callable[[], object]:
        text = build(size)
        return lambda: read(text, request_id="req-1", max_chars=MAX_CHARS)

    assert_linear(prepare, 10_000, 40_000, bound=8)  # linear 4, quadratic 16
