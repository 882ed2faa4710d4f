"""Handlers of the grounded-chat message types: `chat.ask`, `chat.history`, `page.summarize`.

Answers stream as `delta` events (the model's text as it comes), then the final reply holds
the verified answer. Provider problems become `provider_error` replies with the message, a
provider setting that cannot be used a `bad_request` (the session maps both once, with
`laika_host.errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..llm.config import select_provider
from ..render.answer_html import answer_to_html
from ..store.records import ChatEvent
from .chat_models import ChatAsk, ChatHistory, PageSummarize
from .router import RequestContext
from .store_handlers import capture_observed, observed_html

if TYPE_CHECKING:
    from ..agent.flows import Answer


async def chat_ask(payload: ChatAsk, ctx: RequestContext) -> dict[str, Any]:
    from ..agent.flows import ask

    store = await ctx.session.resources.store()
    answer = await ask(
        store,
        payload.question,
        payload.collection,
        provider=select_provider(payload.provider),
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


async def chat_history(payload: ChatHistory, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    collection = await store.collections.get(payload.collection)
    events = await store.chat.list(collection.id, limit=payload.limit)
    return {"events": [history_event(event) for event in events]}


async def page_summarize(payload: PageSummarize, ctx: RequestContext) -> dict[str, Any]:
    from ..agent.flows import summarize

    store = await ctx.session.resources.store()
    html, selection = observed_html(payload.html, payload.selection_html)
    capture = await capture_observed(html, payload.url, selection=selection, title=payload.title)
    answer = await summarize(
        store,
        capture,
        collection=payload.collection,
        provider=select_provider(payload.provider),
        max_tokens=payload.max_tokens,
        on_delta=lambda text: ctx.emit("delta", {"text": text}),
    )
    return answer_result(answer)
