"""Executors of the library tools (search, collections, sources), `app.calculate` and
`integration.invoke`: validated arguments and a store in, a JSON-able result out.

Like `executors`, each calls the service layer, so a tool does what `laika search`,
`laika collections create` or `laika sources add` do. A URL a tool adds is captured by the
host's fetcher (no cookies, no login), never in the user's browser session, and never from
an address on the user's machine or network (`for_model`: loopback, private, link-local, ...,
directly, by a name that resolves there, or by a redirect), whatever the user allowed for
their own captures.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import RefusedError
from ..protocol.tools import (
    CalculateArguments,
    CollectionAddSourcesArguments,
    CollectionCreateArguments,
    CollectionListSourcesArguments,
    IntegrationInvokeArguments,
    NoteSourceSpec,
    SearchArguments,
    SourceCaptureArguments,
    SourceRefreshArguments,
)
from ..service import capture as capture_service
from ..service import collections, sources
from ..service import search as search_service
from ..store import Store

LIBRARY_ENGINES = frozenset({"library", "laika"})
"""`search` engines this host answers: the user's saved sources and artifacts."""


async def search(arguments: SearchArguments, store: Store) -> dict[str, Any]:
    """The library's full-text search (web search engines are not offered here)."""
    if arguments.engine is not None and arguments.engine.lower() not in LIBRARY_ENGINES:
        raise RefusedError(
            f"search engine {arguments.engine!r} is not available: leave engine out to "
            "search your saved sources and artifacts"
        )
    return (await search_service.search(store, arguments.query)).to_json()


async def collection_create(arguments: CollectionCreateArguments, store: Store) -> dict[str, Any]:
    created = await collections.create_collection(store, arguments.title, tags=arguments.tags)
    return {"collection": created.to_json()}


async def collection_list_sources(
    arguments: CollectionListSourcesArguments, store: Store
) -> dict[str, Any]:
    collection = await collections.get_collection(store, arguments.collection_id)
    found = await sources.list_sources(store, collection=collection.id)
    return {"collection_id": collection.id, "sources": [source.to_json() for source in found]}


async def collection_add_sources(
    arguments: CollectionAddSourcesArguments, store: Store
) -> dict[str, Any]:
    """Notes are saved as typed text; URLs are queued for the host to capture."""
    collection = await collections.get_collection(store, arguments.collection_id)
    added: list[dict[str, Any]] = []
    for spec in arguments.sources:
        if isinstance(spec, NoteSourceSpec):
            note = await sources.add_typed_note(
                store, spec.text, collection=collection.id, title=spec.title
            )
            added.append({"type": "note", **note.to_json()})
        else:
            queued = await sources.add_url(
                store, spec.url, collection=collection.id, origin="tool", for_model=True
            )
            added.append({"type": "url", **queued.to_json()})
    return {"collection_id": collection.id, "added": added}


async def source_capture(arguments: SourceCaptureArguments, store: Store) -> dict[str, Any]:
    """Fetch and capture the URL now into the collection (which must exist)."""
    from ..service.capture_settings import capture_options

    collection = await collections.get_collection(store, arguments.collection_id)
    options = capture_options(mode=arguments.mode or "auto", max_chars=arguments.max_chars)
    captured = await capture_service.capture_url(arguments.url, options=options, for_model=True)
    saved = await capture_service.store_capture(
        store, captured, collection=collection.id, origin="tool"
    )
    return saved.to_json()


async def source_refresh(arguments: SourceRefreshArguments, store: Store) -> dict[str, Any]:
    return (await sources.refresh(store, arguments.source_id, for_model=True)).to_json()


async def app_calculate(arguments: CalculateArguments, _store: Store) -> dict[str, Any]:
    """The safe evaluator (`tools.calculate`: a parsed grammar, no eval, bounded)."""
    from .calculate import calculate  # type: ignore[import-untyped,import-not-found,unused-ignore]

    return dataclasses.asdict(calculate(arguments.expression, arguments.precision))


async def integration_invoke(
    arguments: IntegrationInvokeArguments, _store: Store
) -> dict[str, Any]:
    """No integration exists yet: always refused (the gate denies it before this runs)."""
    raise RefusedError(
        f"integration {arguments.integration!r} is not configured: Laika has no integrations yet"
    )
