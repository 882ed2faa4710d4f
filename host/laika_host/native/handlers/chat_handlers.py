"""Handlers of the grounded-chat message types: `chat.ask`, `chat.history`, `page.summarize`.

Answers stream as `delta` events (the model's text as it comes), then the final reply holds
the verified answer (`service.ask.answer_json`). A provider that is not configured is a
`bad_request` naming the fix; a provider that fails is an answer with status `error`.
"""

from __future__ import annotations

from typing import Any

from ...service import ask as ask_service
from ...service.ask import AskOptions, answer_json
from ...service.models import ProviderChoice
from ...service.summarize import summarize_page
from ..transport.router import RequestContext
from .chat_models import ChatAsk, ChatHistory, PageSummarize
from .store_handlers import observed_page


def _options(payload: ChatAsk | PageSummarize, ctx: RequestContext) -> AskOptions:
    return AskOptions(
        collection=payload.collection,
        provider=ProviderChoice(payload.provider),
        max_tokens=payload.max_tokens,
        on_delta=lambda text: ctx.emit("delta", {"text": text}),
    )


async def chat_ask(payload: ChatAsk, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    answer = await ask_service.ask(store, payload.question, _options(payload, ctx))
    return answer_json(answer)


async def chat_history(payload: ChatHistory, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"events": await ask_service.history(store, payload.collection, limit=payload.limit)}


async def page_summarize(payload: PageSummarize, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    answer = await summarize_page(store, observed_page(payload), _options(payload, ctx))
    return answer_json(answer)
