"""Context documents: the evidence a request carries (spec 000, "Context documents").

A document's `kind` selects its content model, and the content repeats it as `doc_type`; the
two must agree. All four v1 kinds are derived from web content (a collection index lists page
titles and URLs), so each must be marked `trust: "untrusted"`: the model treats them as
evidence, never as instructions.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, model_validator

from ..issues import rule_error
from ._base import (
    LlmcpModel,
    NonEmptyStr,
    SourceUrl,
    Timestamp,
    WebUrl,
    optional,
)

SUMMARY_KIND = "web.observation.summary.v1"
CHUNK_KIND = "web.observation.chunk.v1"
INDEX_KIND = "collection.index.v1"
SOURCE_KIND = "collection.source.v1"
DOCUMENT_KINDS = (SUMMARY_KIND, CHUNK_KIND, INDEX_KIND, SOURCE_KIND)
WEB_DERIVED_KINDS = frozenset(DOCUMENT_KINDS)

Signal = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
"""A page signal such as `paywall_or_login` or `overlay_blocking` (snake_case)."""


class ExtractedLink(LlmcpModel):
    """An outbound link from the captured content, with its anchor text and surroundings."""

    url: WebUrl
    text: str
    context: str | None = optional()


class WebObservationSummary(LlmcpModel):
    """The primary capture of one page; `markdown` is canonical (what is stored and sent)."""

    doc_type: Literal["web.observation.summary.v1"]
    url: WebUrl
    title: str
    captured_at: Timestamp | None = optional()
    markdown: str
    extracted_links: list[ExtractedLink] = []
    signals: list[Signal] = []
    items: list[dict[str, JsonValue]] | None = optional(
        description="Items of a feed, list or search page (the Markdown stays canonical)."
    )
    comments: list[dict[str, JsonValue]] | None = optional(
        description="Structured comments of a thread page (the Markdown stays canonical)."
    )


class WebObservationChunk(LlmcpModel):
    """One part of a long page; chunks are 1-based and read in `chunk_index` order."""

    doc_type: Literal["web.observation.chunk.v1"]
    url: WebUrl
    title: str
    chunk_index: Annotated[int, Field(ge=1)]
    chunk_count: Annotated[int, Field(ge=1)]
    markdown: str

    @model_validator(mode="after")
    def _index_within_count(self) -> WebObservationChunk:
        if self.chunk_index > self.chunk_count:
            raise rule_error(
                f"must be <= chunk_count ({self.chunk_count}); chunks are numbered "
                f"1..chunk_count (got {self.chunk_index})",
                at=("chunk_index",),
            )
        return self


class CollectionIndexEntry(LlmcpModel):
    source_id: NonEmptyStr
    url: SourceUrl
    title: str
    captured_at: Timestamp | None = optional()


class CollectionIndex(LlmcpModel):
    """A lightweight list of the sources in a collection."""

    doc_type: Literal["collection.index.v1"]
    collection_id: NonEmptyStr
    title: str
    sources: list[CollectionIndexEntry] = []


class CollectionSource(LlmcpModel):
    """One captured source of a collection, normalized and size-bounded Markdown."""

    doc_type: Literal["collection.source.v1"]
    collection_id: NonEmptyStr
    source_id: NonEmptyStr
    url: SourceUrl
    title: str
    captured_at: Timestamp | None = optional()
    markdown: str
    extracted_links: list[ExtractedLink] = []


class DocumentSource(LlmcpModel):
    """Where the observation came from (browser and tab), never cookies or credentials."""

    browser: str | None = optional()
    tab_id: str | int | None = optional()


Untrusted = Literal["untrusted"]


class _ContextDocument(LlmcpModel):
    """Fields of every context document, in spec order; subclasses narrow kind and content."""

    doc_id: NonEmptyStr
    kind: str
    trust: Untrusted
    source: DocumentSource | None = optional()
    content: LlmcpModel


class SummaryDocument(_ContextDocument):
    kind: Literal["web.observation.summary.v1"]
    content: WebObservationSummary


class ChunkDocument(_ContextDocument):
    kind: Literal["web.observation.chunk.v1"]
    content: WebObservationChunk


class IndexDocument(_ContextDocument):
    kind: Literal["collection.index.v1"]
    content: CollectionIndex


class SourceDocument(_ContextDocument):
    kind: Literal["collection.source.v1"]
    content: CollectionSource


ContextDocument = Annotated[
    SummaryDocument | ChunkDocument | IndexDocument | SourceDocument,
    Field(discriminator="kind"),
]
"""A context document of any v1 kind, selected by `kind`."""

CONTENT_MODELS: dict[str, type[LlmcpModel]] = {
    SUMMARY_KIND: WebObservationSummary,
    CHUNK_KIND: WebObservationChunk,
    INDEX_KIND: CollectionIndex,
    SOURCE_KIND: CollectionSource,
}
