"""Grounded answers: a question over a collection, answered with every citation checked
against the stored text, and the collection's chat history.

The flow itself (pack, prompt, model or offline runtime, parse, verify, persist) is
`agent.flows`; here are the choices around it that every caller must make the same way:
which provider answers, when the offline runtime stands in, and how an answer is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..agent.pack import count
from ..agent.source_choice import MAX_CHOSEN, SourceChoice
from ..defaults import DEFAULT_COLLECTION, DEFAULT_MAX_TOKENS, LIST_LIMIT
from ..events.bus import emit
from ..events.payloads import chat_answered as chat_payload
from ..store import InvalidInputError, Store
from .models import ProviderChoice, resolve

if TYPE_CHECKING:
    from ..agent.flows import Answer
    from ..llm.config import ProviderConfig
    from ..store.records import ChatEvent
    from ..tools.turn import ToolRunner

__all__ = [  # with what the faces build options from
    "MAX_CHOSEN",
    "AskOptions",
    "SourceChoice",
    "answer_json",
    "ask",
    "check_question",
    "choose",
    "coverage_line",
    "history",
    "history_event",
]

OnDelta = Callable[[str], None]


@dataclass(frozen=True)
class AskOptions:
    """How to answer: where from, who answers, how long, and what to do when it fails."""

    collection: str = DEFAULT_COLLECTION
    provider: ProviderChoice = field(default_factory=ProviderChoice)
    max_tokens: int = DEFAULT_MAX_TOKENS
    fallback: bool = False
    """When the provider was chosen by default (none named) and gives no answer, answer
    with the offline runtime instead, saying so (`Answer.fallback`). A provider the user
    named is never replaced: its failure is the answer."""
    on_delta: OnDelta | None = None
    """Told the answer's text as it is written (a model's stream, or the offline answer a
    line at a time)."""
    tools: ToolRunner | None = None
    """The turn's tool runner (the Policy Gate, built by the caller, which knows how the user
    approves); None: no tool is offered and the prompt is unchanged."""
    sources: SourceChoice = field(default_factory=SourceChoice)
    """The sources the answer may read (all of the collection's unless the user chose)."""

    def falls_back(self) -> bool:
        return self.fallback and self.provider.by_default


def check_question(question: str) -> str:
    """The question, or InvalidInputError when there is nothing to ask."""
    if not question.strip():
        raise InvalidInputError('the question is empty: ask something, e.g. laika ask "What is X?"')
    return question


async def ask(store: Store, question: str, options: AskOptions | None = None) -> Answer:
    """Answer `question` from the collection's sources with verified citations; the turn is
    saved to the collection's chat (failed ones too, with their status). An unknown
    collection is NotFoundError listing the existing ones; an empty one answers how to add
    sources; an unknown provider is LlmError naming the fix."""
    from ..agent.flows import ask as ask_flow

    options = options or AskOptions()
    provider = choose(options)
    answer = await ask_flow(
        store,
        check_question(question),
        options.collection,
        provider=provider,
        max_tokens=options.max_tokens,
        on_delta=options.on_delta,
        fallback=options.falls_back(),
        tools=options.tools,
        sources=options.sources,
    )
    await emit(
        store, "chat.answered", await chat_payload(store, options.collection, question, answer)
    )
    return answer


def choose(options: AskOptions) -> ProviderConfig | None:
    """The provider the options name (None: offline), before any work is done."""
    return resolve(options.provider)


def coverage_line(coverage: dict[str, Any]) -> str:
    """The coverage as one sentence for a reader: "Read 1 source in full and 2 in part;
    3 of 4 citations verified." """
    full, part = len(coverage.get("read_in_full", [])), len(coverage.get("read_in_part", []))
    if full and part:
        read = f"Read {count(full, 'source')} in full and {part:,} in part"
    elif full or part:
        read = f"Read {count(full or part, 'source')} {'in full' if full else 'in part'}"
    else:
        read = "Read no source"
    total, verified = coverage.get("citations", 0), coverage.get("verified", 0)
    cited = f"{verified:,} of {count(total, 'citation')} verified" if total else "no citation"
    return f"{read}; {cited}."


def answer_json(answer: Answer) -> dict[str, Any]:
    """The answer as sent to a UI: its fields plus `answer_html`, the answer as safe HTML
    with each verified citation's marker a link to its quote, and `coverage_line`, what it
    read in one sentence."""
    from ..render.answer_html import answer_to_html

    line = {"coverage_line": coverage_line(answer.coverage)} if answer.coverage else {}
    return {
        **answer.to_json(),
        "answer_html": answer_to_html(answer.answer_markdown, answer.citations),
        **line,
    }


async def history(
    store: Store, collection: str = DEFAULT_COLLECTION, *, limit: int = LIST_LIMIT
) -> list[dict[str, Any]]:
    """A collection's latest chat events, oldest first, each assistant answer also rendered
    (on read: stored events predate `answer_html`, and rendering is fast)."""
    target = await store.collections.get(collection)
    return [history_event(event) for event in await store.chat.list(target.id, limit=limit)]


def history_event(event: ChatEvent) -> dict[str, Any]:
    from ..render.answer_html import answer_to_html

    shown = event.to_json()
    if event.role == "assistant":
        citations = [c for c in event.citations if isinstance(c, dict)]
        shown["answer_html"] = answer_to_html(event.markdown, citations)
    return shown
