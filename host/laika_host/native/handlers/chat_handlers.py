"""Handlers of the grounded-chat message types: `chat.ask`, `chat.history`, `page.summarize`.

Answers stream as `delta` events (the model's text as it comes), then the final reply holds
the verified answer (`service.ask.answer_json`). A provider that is not configured is a
`bad_request` naming the fix; a provider that fails is an answer with status `error`.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ...llm.errors import LlmError
from ...service import ask as ask_service
from ...service.ask import AskOptions, answer_json
from ...service.models import ProviderChoice
from ...service.summarize import summarize_page
from ..errors import ErrorCode, HostError
from ..transport.router import RequestContext
from .chat_models import ChatAsk, ChatHistory, PageSummarize
from .store_handlers import observed_page, store_errors

P = TypeVar("P")
Handler = Callable[[P, RequestContext], Awaitable[Any]]


def provider_errors(handler: Handler[P]) -> Handler[P]:
    """A provider that cannot be chosen (unknown id, bad override) is the request's fault."""

    @functools.wraps(handler)
    async def wrapped(payload: P, ctx: RequestContext) -> Any:
        try:
            return await handler(payload, ctx)
        except LlmError as error:
            raise HostError(ErrorCode.BAD_REQUEST, error.message) from None

    return wrapped


def _options(payload: ChatAsk | PageSummarize, ctx: RequestContext) -> AskOptions:
    return AskOptions(
        collection=payload.collection,
        provider=ProviderChoice(payload.provider),
        max_tokens=payload.max_tokens,
        on_delta=lambda text: ctx.emit("delta", {"text": text}),
    )


@store_errors
@provider_errors
async def chat_ask(payload: ChatAsk, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    answer = await ask_service.ask(store, payload.question, _options(payload, ctx))
    return answer_json(answer)


@store_errors
async def chat_history(payload: ChatHistory, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"events": await ask_service.history(store, payload.collection, limit=payload.limit)}


@store_errors
@provider_errors
async def page_summarize(payload: PageSummarize, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    answer = await summarize_page(store, observed_page(payload), _options(payload, ctx))
    return answer_json(answer)
