"""The context window, asked of the server (issue #26 item 3): each server kind's own answer
from a real loopback server speaking its format; the configured window wins and nothing is
asked; a server that does not say leaves the kind's default; and an ask packs to what the
server said."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.llm.config import DEFAULT_CONTEXT_WINDOW, ProviderConfig
from laika_host.llm.window import discovered_window, forget, with_window

from llm_servers import ProviderServer, Reply

CASES = [
    ("llama-server", "openai_compatible", "/v1", {"/props": {"default_generation_settings": {"n_ctx": 4096}}}, 4096),
    ("vLLM", "openai_compatible", "/v1", {"/v1/models": {"data": [{"id": "m", "max_model_len": 32768}]}}, 32768),
    ("LM Studio", "openai_compatible", "/v1", {"/api/v0/models": {"data": [{"id": "m", "loaded_context_length": 8192}]}}, 8192),
    ("Ollama", "ollama", "", {"/api/show": {"model_info": {"general.architecture": "llama", "llama.context_length": 131072}}}, 131072),
]  # fmt: skip


@pytest.fixture(autouse=True)
def fresh() -> None:
    forget()


def provider(server: ProviderServer, kind: str, suffix: str, **extra: Any) -> ProviderConfig:
    return ProviderConfig(id="p", kind=kind, model="m", base_url=server.url + suffix, **extra)


@pytest.mark.parametrize(("name", "kind", "suffix", "windows", "expected"), CASES)
def test_each_server_kind_says_its_window(
    name: str, kind: str, suffix: str, windows: dict[str, Any], expected: int
) -> None:
    server = ProviderServer([Reply(status=500)], windows=windows)
    try:
        found = asyncio.run(discovered_window(provider(server, kind, suffix)))
        again = asyncio.run(discovered_window(provider(server, kind, suffix)))
    finally:
        server.close()
    assert found == again == expected, name
    assert len(server.discovery) <= 3  # asked once per process, at most one path per reader
    assert server.received == []  # no chat request was used up


def test_the_configured_window_wins_and_nothing_is_asked() -> None:
    server = ProviderServer([Reply(status=500)], windows=CASES[0][3])
    try:
        chosen = asyncio.run(
            with_window(provider(server, "openai_compatible", "/v1", context_window=1024))
        )
    finally:
        server.close()
    assert chosen.context_window == 1024
    assert server.discovery == []


@pytest.mark.parametrize(
    "body",
    [
        None,  # 404
        {"default_generation_settings": {"n_ctx": "4096"}},  # not a number
        {"default_generation_settings": {"n_ctx": 10**12}},  # not a window
        {"default_generation_settings": []},
        ["not", "an", "object"],
    ],
)
def test_a_server_that_does_not_say_leaves_the_default(body: Any) -> None:
    server = ProviderServer([Reply(status=500)], windows={} if body is None else {"/props": body})
    try:
        chosen = asyncio.run(with_window(provider(server, "openai_compatible", "/v1")))
    finally:
        server.close()
    assert chosen.context_window is None
    assert DEFAULT_CONTEXT_WINDOW["openai_compatible"] == 2_048


def test_a_server_that_is_down_leaves_the_default_quickly() -> None:
    from llm_servers import closed_port_url

    down = ProviderConfig(id="p", kind="openai_compatible", model="m", base_url=closed_port_url())
    assert asyncio.run(discovered_window(down)) is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
SHAPED = st.fixed_dictionaries(
    {"default_generation_settings": st.dictionaries(st.sampled_from(["n_ctx", "x"]), JSON)}
)


@settings(max_examples=40, deadline=None)
@given(body=st.one_of(JSON, SHAPED))
def test_any_json_a_server_answers_gives_a_sane_window_or_none(body: Any) -> None:
    """Whatever a server answers to the window question, the window is None or a sane number
    of tokens it said, and nothing raises."""
    forget()
    windows = dict.fromkeys(("/props", "/v1/models", "/api/v0/models"), body)
    server = ProviderServer([Reply(status=500)], windows=windows)
    try:
        found = asyncio.run(discovered_window(provider(server, "openai_compatible", "/v1")))
    finally:
        server.close()
    assert found is None or (isinstance(found, int) and 512 <= found <= 10_000_000)
