"""Fixtures for tests that talk to a real language model.

Import the fixture into a test module (`from llm_fixtures import llama_server`) and mark the
tests `@pytest.mark.real_llm`. The first use builds llama-server (about 8 minutes on 2 cores);
later runs reuse the cached binary and start the server in about a second.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from laika_host.llm.local_model import LocalServer


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LocalServer]:
    """One SmolLM2 server for the whole session: starting it per test would waste seconds."""
    with LocalServer() as server:
        yield server
