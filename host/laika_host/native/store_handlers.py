"""Handlers of the store message types: collections, sources (save page), search, jobs.

Store and capture errors reach the session, which maps them to error codes in one place
(`laika_host.errors`) with their message (it already says what to do). Capture runs in the
capture worker process (`capture.isolated`), so the session keeps serving other requests,
pings and cancels included.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..capture import Capture, CaptureOptions
from ..capture.isolated import capture_isolated
from ..capture.models import CaptureMode
from ..capture.urls import normalize_url, same_site, strip_credentials
from ..store import SavedSource
from .errors import ErrorCode, HostError
from .router import RequestContext
from .store_models import (
    AddNote,
    AddUrl,
    CollectionCreate,
    CollectionRename,
    CollectionTarget,
    JobsRun,
    JobTarget,
    SavePage,
    SearchQuery,
    SourceGet,
    SourceList,
    SourceLookup,
    SourceTarget,
    SourceVersionTarget,
)


async def collections_list(_: None, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"collections": await store.collections.list()}


async def collections_create(payload: CollectionCreate, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return await store.collections.create(payload.title)


async def collections_rename(payload: CollectionRename, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return await store.collections.rename(payload.collection, payload.title)


async def collections_delete(payload: CollectionTarget, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return {"deleted": await store.collections.delete(payload.collection)}


async def sources_list(payload: SourceList, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    found = await store.sources.list(payload.collection, limit=payload.limit, offset=payload.offset)
    return {"sources": found}


async def sources_get(payload: SourceGet, ctx: RequestContext) -> dict[str, Any]:
    """The source with its reader view (`html`), `highlight` marked in it when found."""
    from ..render.highlight import highlighted_html

    store = await ctx.session.resources.store()
    source = await store.sources.get(payload.source_id)
    html, found = highlighted_html(source.markdown or "", payload.highlight)
    return {**source.to_json(), "html": html, "highlighted": found}


async def sources_lookup(payload: SourceLookup, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"matches": await store.sources.lookup(payload.url)}


async def sources_versions(payload: SourceTarget, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    versions = await store.sources.versions(payload.source_id)
    return {"source_id": payload.source_id, "versions": versions}


async def sources_version(payload: SourceVersionTarget, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return await store.sources.version(payload.source_id, payload.version)


async def sources_delete(payload: SourceTarget, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return {"deleted": await store.sources.delete(payload.source_id)}


def observed_html(html: str, selection_html: str | None) -> tuple[str, bool]:
    """What to capture of a page the extension sent: the selection if there is one."""
    if selection_html is not None and selection_html.strip():
        return selection_html, True
    return html, False


async def capture_observed(
    html: str, url: str, *, selection: bool, title: str | None, mode: CaptureMode = "auto"
) -> Capture:
    """Capture in the worker process (the session keeps serving; cancelling the request stops
    it); the tab title fills in for a page (or selection) that has none of its own."""
    options = CaptureOptions(mode="selection" if selection else mode)
    capture = await capture_isolated(html, url, options=options)
    if not capture.title and title:
        capture = dataclasses.replace(capture, title=title)
    return capture


async def sources_save_page(payload: SavePage, ctx: RequestContext) -> SavedSource:
    """The extension's "Save page": capture the DOM it sent and store it as a source."""
    store = await ctx.session.resources.store()
    html, mode = _page_input(payload)
    ctx.emit("progress", {"stage": "capturing", "chars": len(html)})
    capture = await capture_observed(
        html, payload.url, selection=mode == "selection", title=payload.title, mode=mode
    )
    capture, canonical_used = _with_page_facts(capture, payload)
    if mode == "selection" and capture.normalized_url:
        # its own source: keyed by the page and the selection's content, never the page's
        key = f"{capture.normalized_url}#laika-selection={capture.content_hash[:16]}"
        capture = dataclasses.replace(capture, normalized_url=key)
    ctx.emit("progress", {"stage": "storing"})
    return await store.sources.save_capture(
        payload.collection,
        capture,
        origin="extension",
        provenance={
            "selection": mode == "selection",
            "mode": payload.mode,
            "canonical_used": canonical_used,
            "tab_title": payload.title,
        },
    )


def _page_input(payload: SavePage) -> tuple[str, CaptureMode]:
    """What to capture and how: `selection` needs a selection; `auto` uses one if given."""
    chosen = payload.selection_html if (payload.selection_html or "").strip() else None
    if payload.mode == "selection":
        if chosen is None:
            raise HostError(
                ErrorCode.BAD_REQUEST,
                "mode `selection` needs `selection_html` (the selected part of the page); "
                "select some text first, or save the page with mode `auto`",
            )
        return chosen, "selection"
    if payload.mode == "auto" and chosen is not None:
        return chosen, "selection"
    return payload.html, payload.mode


def _with_page_facts(capture: Capture, payload: SavePage) -> tuple[Capture, bool]:
    """The extension's canonical URL and language on the capture; the canonical URL files
    the source only when it is on the page's own site (`same_site`)."""
    updates: dict[str, Any] = {}
    if payload.lang:
        updates["language"] = payload.lang
    used = False
    if payload.canonical_url:
        canonical = strip_credentials(payload.canonical_url)
        updates["canonical_url"] = canonical
        used = same_site(payload.url, canonical)
        if used:
            updates["normalized_url"] = normalize_url(canonical)
    return dataclasses.replace(capture, **updates), used


async def sources_add_url(payload: AddUrl, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    saved = await store.sources.add_url(payload.collection, payload.url, origin="extension")
    job = await store.jobs.queue(saved.source.id)
    return {"outcome": saved.outcome, "source": saved.source, "job": job}


async def sources_add_note(payload: AddNote, ctx: RequestContext) -> SavedSource:
    """A typed note as a source: its text escaped so that it stays text (then redacted, as
    every note is, by the store)."""
    from ..store.note_text import text_to_markdown

    store = await ctx.session.resources.store()
    markdown = text_to_markdown(payload.text)
    return await store.sources.add_note(
        payload.collection, markdown, title=payload.title, origin="note"
    )


async def search_query(payload: SearchQuery, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    collection_id = None
    if payload.collection is not None:
        collection_id = (await store.collections.get(payload.collection)).id
    hits = await store.search.query(payload.query, collection_id=collection_id, limit=payload.limit)
    return {"query": payload.query, "hits": hits}


async def jobs_status(payload: JobTarget, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return await store.jobs.get(payload.job_id)


async def jobs_list(_: None, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"jobs": await store.jobs.list(), "counts": await store.jobs.counts()}


async def jobs_run(payload: JobsRun, ctx: RequestContext) -> dict[str, list[str]]:
    """Run due capture jobs, streaming `progress` events as each starts and finishes."""
    from ..store.worker import run_due_jobs

    store = await ctx.session.resources.store()
    summary = await run_due_jobs(
        store,
        max_jobs=payload.max_jobs,
        on_event=lambda event, data: ctx.emit("progress", {"stage": event, **data}),
    )
    return summary.to_json()
