"""Handlers of the grounded-chat message types: `chat.ask`, `chat.history`, `page.summarize`
(the page stored, then the user's question about it answered, or the page summarized).

Answers stream as `delta` events (the model's text as it comes) and `tool_call` events (each
state of a proposed tool call: the extension shows pending ones for approval and runs
forwarded ones), then the final reply holds the verified answer (`service.ask.answer_json`)
with `tool_calls`. A provider that is not configured is a `bad_request` naming the fix; a
provider that fails is an answer with status `error`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...service import ask as ask_service
from ...service.ask import AskOptions, SourceChoice, answer_json
from ...service.models import ProviderChoice
from ...service.summarize import summarize_page
from ...store import Store
from ...tools.chat_runner import ChatRunner, offered_tools
from ...tools.registry import ExecuteOptions
from ..transport.router import RequestContext
from .chat_models import ChatAsk, ChatHistory, PageSummarize
from .store_handlers import observed_page


def _options(
    payload: ChatAsk | PageSummarize, ctx: RequestContext, store: Store, collection: str
) -> AskOptions:
    provider = ProviderChoice(payload.provider)
    runner = None
    if payload.tools:
        runner = ChatRunner(
            store,
            offered_tools(extension=True),
            extension=True,
            emit=lambda event: ctx.emit("tool_call", event),
            options=ExecuteOptions(provider=provider, collection=collection),
        )
    return AskOptions(
        collection=collection,
        provider=provider,
        max_tokens=payload.max_tokens,
        on_delta=lambda text: ctx.emit("delta", {"text": text}),
        tools=runner,
    )


async def chat_ask(payload: ChatAsk, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    options = replace(
        _options(payload, ctx, store, payload.collection),
        sources=SourceChoice(tuple(payload.sources or ()), tuple(payload.skip_sources or ())),
    )
    answer = await ask_service.ask(store, payload.question, options)
    return answer_json(answer)


async def chat_history(payload: ChatHistory, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"events": await ask_service.history(store, payload.collection, limit=payload.limit)}


async def page_summarize(payload: PageSummarize, ctx: RequestContext) -> dict[str, Any]:
    from ...service.capture_settings import default_collection

    store = await ctx.session.resources.store()
    answer = await summarize_page(
        store,
        observed_page(payload),
        _options(payload, ctx, store, default_collection(payload.collection)),
        question=payload.question,
        mode=payload.mode,
    )
    return answer_json(answer)
