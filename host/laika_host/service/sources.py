"""Sources: captured pages and notes. Listing, reading (with the reader view), the versions
of a page, adding URLs and notes, refreshing and deleting.

A URL added here is captured by the host (`jobs`): now, or queued for `jobs.run_due`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..defaults import DEFAULT_COLLECTION, LIST_LIMIT
from ..store import CaptureJob, SavedSource, Source, SourceDetail, Store
from ..store.records import SaveOutcome, SourceVersion, SourceVersionDetail
from .jobs import queue_capture


async def list_sources(
    store: Store, *, collection: str | None = None, limit: int = LIST_LIMIT, offset: int = 0
) -> list[Source]:
    """Sources without their bodies, newest first, of one collection (title or id) or all."""
    return await store.sources.list(collection, limit=limit, offset=offset)


async def get_source(store: Store, source_id: str) -> SourceDetail:
    """One source with its Markdown, summary, links, media and provenance."""
    return await store.sources.get(source_id)


@dataclass(frozen=True)
class ReaderView:
    """A source as the reader shows it: its safe HTML, with a quote marked when asked."""

    source: SourceDetail
    html: str
    highlighted: bool

    def to_json(self) -> dict[str, Any]:
        return {**self.source.to_json(), "html": self.html, "highlighted": self.highlighted}


async def reader_view(store: Store, source_id: str, *, highlight: str | None = None) -> ReaderView:
    """The stored Markdown as safe HTML; `highlight` (a citation's quote) marked where found,
    so a citation whose live page changed still opens at its words."""
    from ..render.highlight import highlighted_html

    source = await store.sources.get(source_id)
    html, found = highlighted_html(source.markdown or "", highlight)
    return ReaderView(source, html, found)


async def lookup(store: Store, url: str) -> list[dict[str, str | None]]:
    """The sources saved under this URL (normalized as the store keys them), every collection."""
    return await store.sources.lookup(url)


async def versions(store: Store, source_id: str) -> list[SourceVersion]:
    """Every capture of a source, oldest first, the current one last (replaced ones kept)."""
    return await store.sources.versions(source_id)


async def version(store: Store, source_id: str, number: int) -> SourceVersionDetail:
    """One capture of a source by its version number, with its Markdown."""
    return await store.sources.version(source_id, number)


async def delete_source(store: Store, source_id: str) -> Source:
    """Delete a source; its capture jobs go with it."""
    return await store.sources.delete(source_id)


@dataclass(frozen=True)
class UrlAdded:
    """A URL source and the job that captures it (run already when `capture_now`)."""

    outcome: SaveOutcome
    source: Source
    job: CaptureJob

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "source": self.source.to_json(), "job": self.job.to_json()}


async def add_url(
    store: Store,
    url: str,
    *,
    collection: str = DEFAULT_COLLECTION,
    origin: str = "cli",
    capture_now: bool = False,
    allow_private: bool = False,
    for_model: bool = False,
) -> UrlAdded:
    """Add a URL for the host to fetch (an existing source for it is reused) and queue its
    capture; with `capture_now` it runs at once and `source` is the state after it.

    A URL that spells a private address (`http://127.0.0.1/`, `http://0x7f000001/`,
    `http://[::1]/`, `localhost`, ...) is refused here, before anything is stored, unless the
    user allowed it (`allow_private`, never with `for_model`); a name is checked when the job
    fetches it (no lookup here: adding works offline)."""
    from ..capture.fetch_guard import check_url
    from ..capture.urls import is_web_url

    if is_web_url(url):  # anything else is refused by the store, naming what it needs
        check_url(url, allow_private=allow_private, for_model=for_model)
    saved = await store.sources.add_url(collection, url, origin=origin)
    job = await queue_capture(
        store,
        saved.source.id,
        capture_now=capture_now,
        allow_private=allow_private,
        for_model=for_model,
    )
    source = await store.sources.get_summary(saved.source.id) if capture_now else saved.source
    return UrlAdded(saved.outcome, source, job)


@dataclass(frozen=True)
class Refreshed:
    """A source captured again (or queued): the job's outcome (`kept` with its reason when
    the saved copy stayed), and the source after it."""

    source: Source
    job: CaptureJob

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.job.outcome,
            "reason": self.job.outcome_reason,
            "source": self.source.to_json(),
            "job": self.job.to_json(),
        }


async def refresh(
    store: Store,
    source_id: str,
    *,
    capture_now: bool = True,
    force: bool = False,
    allow_private: bool = False,
    for_model: bool = False,
) -> Refreshed:
    """Capture a URL source again. A capture with much less text or a new login wall keeps
    the saved copy unless `force`; a replaced copy stays as a version. A private address
    only when the user allows this capture one (`allow_private`), never for a model."""
    job = await queue_capture(
        store,
        source_id,
        capture_now=capture_now,
        force=force,
        allow_private=allow_private,
        for_model=for_model,
    )
    return Refreshed(await store.sources.get_summary(source_id), job)


async def add_note(
    store: Store,
    markdown: str,
    *,
    collection: str = DEFAULT_COLLECTION,
    title: str | None = None,
    origin: str = "cli",
) -> SavedSource:
    """A Markdown note as a source (redacted by the store, as every note is)."""
    return await store.sources.add_note(collection, markdown, title=title, origin=origin)


async def add_typed_note(
    store: Store, text: str, *, collection: str = DEFAULT_COLLECTION, title: str | None = None
) -> SavedSource:
    """A note the user typed as plain text: escaped so that it shows as typed, never as
    markup."""
    from ..store.note_text import text_to_markdown

    return await add_note(
        store, text_to_markdown(text), collection=collection, title=title, origin="note"
    )
