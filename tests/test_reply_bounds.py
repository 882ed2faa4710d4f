"""What a hostile model reply may cost the host's model client: bounded and linear.

A reply of 60,000 empty citations (180 KB) held the host's event loop for 12.8 s, most of it
in the client's schema check, which formatted all 120,000 of jsonschema's complaints to sort
them; and the streamed text was joined with `+=`, quadratic in the number of deltas. Costs are
measured in CPU time, as growth where they can be, never in wall time: these cores are shared.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from complexity import assert_linear
from laika_host.agent.prompts import response_format
from laika_host.llm.client import ChatClient
from laika_host.llm.config import ProviderConfig
from laika_host.llm.contract import ChatMessage, ChatRequest
from laika_host.llm.events import Done, StreamEvent, TextDelta
from laika_host.llm.output import check_output

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
