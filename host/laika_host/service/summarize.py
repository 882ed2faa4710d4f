"""Summaries: a page stored as a source, then summarized with verified citations.

The page is captured and stored exactly as `capture` does it (a selection is its own
source), so a summary never leaves a page unsaved nor overwrites a saved one with a part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import Store
from .ask import AskOptions, choose
from .capture import ObservedPage, capture_observed

if TYPE_CHECKING:
    from ..agent.flows import Answer
    from ..capture import Capture
    from ..llm.config import ProviderConfig


async def summarize_capture(
    store: Store, capture: Capture, options: AskOptions | None = None
) -> Answer:
    """Store `capture` in `options.collection`, then summarize it (`AskOptions` as for
    `ask`: provider, length, fallback, streamed text)."""
    options = options or AskOptions()
    return await _summarize(store, capture, options, choose(options))


async def summarize_page(
    store: Store, page: ObservedPage, options: AskOptions | None = None
) -> Answer:
    """The page the user sees (its selection, when there is one) stored and summarized; an
    unknown provider fails before the page is captured."""
    options = options or AskOptions()
    provider = choose(options)
    observed = await capture_observed(page)
    return await _summarize(store, observed.capture, options, provider)


async def _summarize(
    store: Store, capture: Capture, options: AskOptions, provider: ProviderConfig | None
) -> Answer:
    from ..agent.flows import summarize

    return await summarize(
        store,
        capture,
        collection=options.collection,
        provider=provider,
        max_tokens=options.max_tokens,
        on_delta=options.on_delta,
        fallback=options.falls_back(),
        tools=options.tools,
    )
