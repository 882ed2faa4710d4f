"""Handlers of the store message types: collections, sources (save page), search, jobs.

Each one parses its payload, calls the service layer (`laika_host.service`) and shapes the
result. Store and capture errors reach the session, which maps them to error codes in one
place (`laika_host.errors`) with their message (it already says what to do). Capture runs in
the capture worker process (`capture.isolated`), so the session keeps serving other requests,
pings and cancels included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...service import collections, jobs, search, sources
from ...service.capture import ObservedPage, save_page
from ...store import (
    SavedSource,
)
from ..transport.router import RequestContext
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

if TYPE_CHECKING:
    from .chat_models import PageSummarize


async def collections_list(_: None, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"collections": await collections.list_collections(store)}


async def collections_create(payload: CollectionCreate, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return await collections.create_collection(store, payload.title)


async def collections_rename(payload: CollectionRename, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return await collections.rename_collection(store, payload.collection, payload.title)


async def collections_delete(payload: CollectionTarget, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return {"deleted": await collections.delete_collection(store, payload.collection)}


async def sources_list(payload: SourceList, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    found = await sources.list_sources(
        store, collection=payload.collection, limit=payload.limit, offset=payload.offset
    )
    return {"sources": found}


async def sources_get(payload: SourceGet, ctx: RequestContext) -> dict[str, Any]:
    """The source with its reader view (`html`), `highlight` marked in it when found."""
    store = await ctx.session.resources.store()
    view = await sources.reader_view(store, payload.source_id, highlight=payload.highlight)
    return view.to_json()


async def sources_lookup(payload: SourceLookup, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return {"matches": await sources.lookup(store, payload.url)}


async def sources_versions(payload: SourceTarget, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    found = await sources.versions(store, payload.source_id)
    return {"source_id": payload.source_id, "versions": found}


async def sources_version(payload: SourceVersionTarget, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return await sources.version(store, payload.source_id, payload.version)


async def sources_delete(payload: SourceTarget, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return {"deleted": await sources.delete_source(store, payload.source_id)}


def observed_page(payload: SavePage | PageSummarize) -> ObservedPage:
    """The page the extension sent, as the service takes it (the same facts for a save and
    for a question about the page: its canonical URL and language go into the source)."""
    return ObservedPage(
        payload.url,
        payload.html,
        payload.title,
        payload.selection_html,
        canonical_url=payload.canonical_url,
        lang=payload.lang,
    )


async def sources_save_page(payload: SavePage, ctx: RequestContext) -> SavedSource:
    """The extension's "Save page": capture the DOM it sent and store it as a source."""
    store = await ctx.session.resources.store()
    return await save_page(
        store,
        observed_page(payload),
        collection=payload.collection,
        mode=payload.mode,
        on_progress=lambda data: ctx.emit("progress", data),
    )


async def sources_add_url(payload: AddUrl, ctx: RequestContext) -> dict[str, Any]:
    """A URL for the host to fetch (a tab showing a PDF): an address on the user's machine
    or network only with the setting `capture.allow_private_addresses` (the page the user
    sees is saved from its DOM instead, `sources.save_page`, which fetches nothing)."""
    from ...service.capture_settings import default_collection, private_addresses_allowed

    store = await ctx.session.resources.store()
    added = await sources.add_url(
        store,
        payload.url,
        collection=default_collection(payload.collection),
        origin="extension",
        allow_private=private_addresses_allowed(),
    )
    return added.to_json()


async def sources_add_note(payload: AddNote, ctx: RequestContext) -> SavedSource:
    """A typed note as a source: shown as typed, never as markup."""
    from ...service.capture_settings import default_collection

    store = await ctx.session.resources.store()
    return await sources.add_typed_note(
        store, payload.text, collection=default_collection(payload.collection), title=payload.title
    )


async def search_query(payload: SearchQuery, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    found = await search.search(
        store, payload.query, collection=payload.collection, limit=payload.limit
    )
    return found.to_json()


async def jobs_status(payload: JobTarget, ctx: RequestContext) -> Any:
    store = await ctx.session.resources.store()
    return await jobs.get_job(store, payload.job_id)


async def jobs_list(_: None, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    return (await jobs.list_jobs(store)).to_json()


async def jobs_run(payload: JobsRun, ctx: RequestContext) -> dict[str, list[str]]:
    """Run due capture jobs, streaming `progress` events as each starts and finishes."""
    store = await ctx.session.resources.store()
    summary = await jobs.run_due(
        store, max_jobs=payload.max_jobs, on_progress=lambda data: ctx.emit("progress", data)
    )
    return summary.to_json()
