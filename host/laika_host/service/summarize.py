"""Summaries and questions about one page: the page stored as a source, then summarized (or
the user's question about it answered) with verified citations.

The page is captured and stored exactly as `capture` does it (a selection is its own
source; the extension's canonical URL and language applied), so a summary never leaves a
page unsaved nor overwrites a saved one with a part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import Store
from .ask import AskOptions, choose
from .capture import ObservedPage, SaveMode, capture_observed

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
    store: Store,
    page: ObservedPage,
    options: AskOptions | None = None,
    *,
    question: str | None = None,
    mode: SaveMode = "auto",
) -> Answer:
    """The page the user sees (its selection, when there is one; `mode` as `save_page`)
    stored, then `question` answered from it alone, or (None or blank) the page summarized;
    an unknown provider fails before the page is captured."""
    options = options or AskOptions()
    provider = choose(options)
    observed = await capture_observed(page, mode)
    return await _summarize(store, observed.capture, options, provider, question)


async def _summarize(
    store: Store,
    capture: Capture,
    options: AskOptions,
    provider: ProviderConfig | None,
    question: str | None = None,
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
        question=question,
    )
