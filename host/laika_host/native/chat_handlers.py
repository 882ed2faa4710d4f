"""Handlers of the grounded-chat message types: `chat.ask`, `chat.history`, `page.summarize`.

Answers stream as `delta` events (the model's text as it comes), then the final reply holds
the verified answer. Provider problems become `provider_error` replies with the message.
"""

from __future__ import annotations

from typing import Any

from ..llm.config import ProviderConfig, select_provider
from ..llm.errors import LlmError
from .chat_models import ChatAsk, ChatHistory, PageSummarize
from .errors import ErrorCode, HostError
from .router import RequestContext
from .store_handlers import capture_observed, observed_html, store_errors


def _provider(provider_id: str | None) -> ProviderConfig | None:
    try:
        return select_provider(provider_id)
    except LlmError as error:
        raise HostError(ErrorCode.BAD_REQUEST, error.message) from None


@store_errors
async def chat_ask(payload: ChatAsk, ctx: RequestContext) -> dict[str, Any]:
    from ..agent.flows import ask

    store = await ctx.session.resources.store()
    answer = await ask(
        store,
        payload.question,
        payload.collection,
        provider=_provider(payload.provider),
        max_tokens=payload.max_tokens,
        on_delta=lambda text: ctx.emit("delta", {"text": text}),
    )
    return answer.to_json()


@store_errors
async def chat_history(payload: ChatHistory, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    collection = await store.collections.get(payload.collection)
    return {"events": await store.chat.list(collection.id, limit=payload.limit)}


@store_errors
async def page_summarize(payload: PageSummarize, ctx: RequestContext) -> dict[str, Any]:
    from ..agent.flows import summarize

    store = await ctx.session.resources.store()
    html, selection = observed_html(payload.html, payload.selection_html)
    capture = await capture_observed(html, payload.url, selection=selection, title=payload.title)
    answer = await summarize(
        store,
        capture,
        collection=payload.collection,
        provider=_provider(payload.provider),
        max_tokens=payload.max_tokens,
        on_delta=lambda text: ctx.emit("delta", {"text": text}),
    )
    return answer.to_json()
