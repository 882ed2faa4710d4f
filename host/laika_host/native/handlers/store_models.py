"""Payload and result models of the store message types (collections, sources, search, jobs)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from ...defaults import (
    LIST_LIMIT,
    MAX_JOBS_PER_RUN,
    MAX_LIST_LIMIT,
    MAX_SEARCH_LIMIT,
    SEARCH_LIMIT,
)
from ...store.records import (
    CaptureJob,
    Collection,
    SearchHit,
    Source,
    SourceDetail,
    SourceVersion,
)
from .base_models import MAX_PAYLOAD_INT, StrictPayload

LANG_TAG = r"^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$"
MAX_PAGE_HTML = 48 * 1024 * 1024  # below the 64 MiB request-frame limit
Title = Annotated[str, Field(min_length=1, max_length=200)]
CollectionRef = Annotated[
    str, Field(min_length=1, max_length=200, description="A collection's title or id.")
]
SourceId = Annotated[str, Field(pattern=r"^src_[0-9a-f]{32}$")]
JobId = Annotated[str, Field(pattern=r"^job_[0-9a-f]{32}$")]
WebUrl = Annotated[str, Field(min_length=8, max_length=8192, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://")]


class CollectionCreate(StrictPayload):
    title: Title


class CollectionRename(StrictPayload):
    collection: CollectionRef
    title: Title


class CollectionTarget(StrictPayload):
    collection: CollectionRef


class SourceList(StrictPayload):
    collection: CollectionRef | None = None
    limit: Annotated[int, Field(ge=1, le=MAX_LIST_LIMIT)] = LIST_LIMIT
    offset: Annotated[int, Field(ge=0, le=MAX_PAYLOAD_INT)] = 0


class SourceTarget(StrictPayload):
    source_id: SourceId


class SourceGet(StrictPayload):
    source_id: SourceId
    highlight: Annotated[str, Field(min_length=1, max_length=2000)] | None = Field(
        default=None,
        description="A quote to mark in `html` (found as citations are verified; not found: "
        "no mark).",
    )


class SourceVersionTarget(StrictPayload):
    source_id: SourceId
    version: Annotated[int, Field(ge=1, le=2**31)]


class ObservedPagePayload(StrictPayload):
    """The page as the user sees it, serialized by the extension (`lib/capture.js`): the
    fields every message that takes a page (`sources.save_page`, `page.summarize`) shares."""

    url: WebUrl
    title: Annotated[str, Field(max_length=2000)] | None = None
    html: Annotated[str, Field(min_length=1, max_length=MAX_PAGE_HTML)]
    selection_html: Annotated[str, Field(max_length=MAX_PAGE_HTML)] | None = Field(
        default=None, description="The user's selection; when given, only it is saved."
    )
    mode: Literal["auto", "article", "selection", "full"] = Field(
        default="auto",
        description="auto: the selection if one is given, else the main content (article or "
        "list); article, full (the whole pruned page): the page even with a selection; "
        "selection: only `selection_html`, as its own source.",
    )
    canonical_url: WebUrl | None = Field(
        default=None,
        description="The page's canonical URL: kept in provenance; it files the source "
        "(normalization) only when it is on the same site as `url`.",
    )
    lang: Annotated[str, Field(max_length=35, pattern=LANG_TAG)] | None = Field(
        default=None, description="The page's language tag (`<html lang>`)."
    )


class SavePage(ObservedPagePayload):
    """The page as the user sees it, serialized by the extension."""

    collection: CollectionRef | None = Field(
        default=None,
        description="None: the settings' `capture.default_collection` (Inbox unless changed).",
    )


MAX_NOTE_TEXT = 500_000
"""Half the store's note bound: escaping at most doubles the text."""


class AddNote(StrictPayload):
    """A note the user typed: plain text, stored so that it shows as typed."""

    collection: CollectionRef | None = Field(
        default=None,
        description="None: the settings' `capture.default_collection` (Inbox unless changed).",
    )
    title: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    text: Annotated[str, Field(min_length=1, max_length=MAX_NOTE_TEXT)]


class SourceLookup(StrictPayload):
    url: WebUrl


class SourceMatch(BaseModel):
    source_id: str
    collection_id: str
    collection: str = Field(description="The collection's title.")
    title: str | None


class SourceLookupResult(BaseModel):
    matches: list[SourceMatch]


class AddUrl(StrictPayload):
    url: WebUrl
    collection: CollectionRef | None = Field(
        default=None,
        description="None: the settings' `capture.default_collection` (Inbox unless changed).",
    )


class SearchQuery(StrictPayload):
    query: Annotated[str, Field(min_length=1, max_length=1000)]
    collection: CollectionRef | None = None
    limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT)] = SEARCH_LIMIT


class JobTarget(StrictPayload):
    job_id: JobId


class JobsRun(StrictPayload):
    max_jobs: Annotated[int, Field(ge=1, le=MAX_JOBS_PER_RUN)] | None = None


class CollectionListResult(BaseModel):
    collections: list[Collection]


class CollectionDeleted(BaseModel):
    deleted: Collection


class SourceListResult(BaseModel):
    sources: list[Source]


class SourceView(SourceDetail):
    html: str = Field(description="The stored Markdown as safe HTML (the reader view).")
    highlighted: bool = Field(description="Whether `highlight` was found and marked.")


class SourceDeleted(BaseModel):
    deleted: Source


class SourceVersionsResult(BaseModel):
    source_id: str
    versions: list[SourceVersion]


class AddUrlResult(BaseModel):
    outcome: Literal["new", "updated", "unchanged"]
    source: Source
    job: CaptureJob


class SearchResult(BaseModel):
    query: str
    hits: list[SearchHit]


class JobListResult(BaseModel):
    jobs: list[CaptureJob]
    counts: dict[str, int]


class JobsRunResult(BaseModel):
    succeeded: list[str]
    retrying: list[str]
    failed: list[str]
    kept: list[str] = Field(
        description="Succeeded jobs whose capture did not replace the saved copy (much less "
        "text, or a new login wall); each job's `outcome_reason` says why."
    )
