"""Handlers of the grounded-chat message types: `chat.ask`, `chat.history`, `page.summarize`.

Answers stream as `delta` events (the model's text as it comes), then the final reply holds
the verified answer. Provider problems become `provider_error` replies with the message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...llm.config import ProviderConfig, select_provider
from ...llm.errors import LlmError
from ...render.answer_html import answer_to_html
from ...store.records import ChatEvent
from ..errors import ErrorCode, HostError
from ..transport.router import RequestContext
from .chat_models import ChatAsk, ChatHistory, PageSummarize
from .store_handlers import capture_observed, observed_html, store_errors

if TYPE_CHECKING:
    from ...agent.flows import Answer


def _provider(provider_id: str | None) -> ProviderConfig | None:
    try:
        return select_provider(provider_id)
    except LlmError as error:
        raise HostError(ErrorCode.BAD_REQUEST, error.message) from None


@store_errors
async def chat_ask(payload: ChatAsk, ctx: RequestContext) -> dict[str, Any]:
    from ...agent.flows import ask

    store = await ctx.session.resources.store()
    answer = await ask(
        store,
        payload.question,
        payload.collection,
        provider=_provider(payload.provider),
        max_tokens=payload.max_tokens,
        on_delta=lambda text: ctx.emit("delta", {"text": text}),
    )
    return answer_result(answer)


def answer_result(answer: Answer) -> dict[str, Any]:
    """The answer as sent: its fields plus the rendered `answer_html`."""
    return {
        **answer.to_json(),
        "answer_html": answer_to_html(answer.answer_markdown, answer.citations),
    }


def history_event(event: ChatEvent) -> dict[str, Any]:
    """A chat event as sent: an assistant's answer also rendered (on read: stored events
    predate `answer_html`, and rendering is fast)."""
    shown = event.to_json()
    if event.role == "assistant":
        citations = [c for c in event.citations if isinstance(c, dict)]
        shown["answer_html"] = answer_to_html(event.markdown, citations)
    return shown


@store_errors
async def chat_history(payload: ChatHistory, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    collection = await store.collections.get(payload.collection)
    events = await store.chat.list(collection.id, limit=payload.limit)
    return {"events": [history_event(event) for event in events]}


@store_errors
async def page_summarize(payload: PageSummarize, ctx: RequestContext) -> dict[str, Any]:
    from ...agent.flows import summarize

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
    return answer_result(answer)
