"""Payload and result models of the grounded-chat message types."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from ...defaults import (
    DEFAULT_COLLECTION,
    DEFAULT_MAX_TOKENS,
    LIST_LIMIT,
    MAX_LIST_LIMIT,
    MAX_MAX_TOKENS,
    MIN_MAX_TOKENS,
)
from ...service.ask import MAX_CHOSEN
from ...store.records import ChatEvent
from .base_models import StrictPayload
from .store_models import CollectionRef, ObservedPagePayload, SourceId
from .tool_models import ToolCallEvent

ProviderRef = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        description="A configured provider id, or `offline` for the built-in runtime.",
    ),
]

MaxTokens = Annotated[int, Field(ge=MIN_MAX_TOKENS, le=MAX_MAX_TOKENS)]
TOOLS_FLAG = (
    "Offer the model the tools whose default for a model's proposal is not deny; each "
    "proposal goes through the Policy Gate (`tool_call` events). false: no tools."
)


class ChatAsk(StrictPayload):
    question: Annotated[str, Field(min_length=1, max_length=4000)]
    collection: CollectionRef = DEFAULT_COLLECTION
    provider: ProviderRef | None = None
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS
    tools: bool = Field(default=True, description=TOOLS_FLAG)
    sources: Annotated[list[SourceId], Field(max_length=MAX_CHOSEN)] | None = Field(
        default=None,
        description="Read only these sources of the collection (absent: all of them).",
    )
    skip_sources: Annotated[list[SourceId], Field(max_length=MAX_CHOSEN)] | None = Field(
        default=None, description="Leave these sources of the collection out."
    )


class ChatHistory(StrictPayload):
    collection: CollectionRef = DEFAULT_COLLECTION
    limit: Annotated[int, Field(ge=1, le=MAX_LIST_LIMIT)] = LIST_LIMIT


class PageSummarize(ObservedPagePayload):
    """The page the user sees (every field `sources.save_page` takes for it), stored as a
    source first; then the user's question about it answered, or the page summarized."""

    question: Annotated[str, Field(max_length=4000)] | None = Field(
        default=None,
        description="The user's question about this page; absent or blank: summarize it.",
    )
    collection: CollectionRef | None = Field(
        default=None,
        description="None: the settings' `capture.default_collection` (Inbox unless changed), "
        "where a saved page goes.",
    )
    provider: ProviderRef | None = None
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS
    tools: bool = Field(default=True, description=TOOLS_FLAG)


class CitationResult(BaseModel):
    source_id: str | None
    doc_id: str | None
    url: str | None
    title: str | None = Field(description="The cited source's title.")
    state: Literal["verified", "unverified", "rejected"] = Field(
        description="`rejected`: the citation names no source that was given to the model, "
        "or is not a valid citation; `unverified`: the quote is not in the source's text."
    )
    quote: str
    locator: str | None
    heading: str | None
    verified: bool
    method: Literal["exact", "elided", "none"]
    reason: str | None
    marker: int | None


class Coverage(BaseModel):
    """What the answer read, for the line under it."""

    read_in_full: list[str] = Field(description="Sources sent whole.")
    read_in_part: list[str] = Field(description="Sources sent as passages or a summary.")
    not_read: int = Field(description="Sources sent as a title, or not at all.")
    citations: int
    verified: int


class AnswerResult(BaseModel):
    status: Literal["ok", "partial", "invalid_output", "error", "unsupported"]
    answer_markdown: str
    answer_html: str = Field(
        description='The answer as safe HTML: `<a class="citation" href=locator>[n]</a>` for '
        'a verified citation\'s marker, `<span class="citation-unverified">[n]</span>` for any '
        "other."
    )
    citations: list[CitationResult]
    run_id: str | None
    warnings: list[str]
    provider: str
    tool_calls: list[ToolCallEvent] = Field(
        default_factory=list, description="The last `tool_call` event of each proposed call."
    )
    supported: bool = Field(
        default=False,
        description="Whether the sources back the answer: at least one citation verified. "
        "False: the sources do not cover the question, or the model's citations did not "
        "verify.",
    )
    coverage: Coverage | None = None
    coverage_line: str | None = Field(
        default=None,
        description='The coverage as the sentence a UI shows under the answer ("Read 1 source '
        'in full and 2 in part; 3 of 3 citations verified.").',
    )


class HistoryEvent(ChatEvent):
    answer_html: str | None = Field(
        default=None, description="An assistant event's answer as safe HTML (as `chat.ask`)."
    )


class ChatHistoryResult(BaseModel):
    events: list[HistoryEvent]
