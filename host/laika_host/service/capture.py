"""Capture and store a page: bytes read from a file (HTML or PDF), a URL the host fetches,
or the page the extension saw (its DOM or the user's selection).

Every capture runs in the capture worker process under its deadline (`capture.isolated`), so
a hostile page can hang neither the CLI nor the host; `store.sources.save_capture` alone
decides whether a capture is new, an update, unchanged, or kept out.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..capture import Capture, CaptureMode, CaptureOptions
from ..capture.urls import normalize_url, same_site, strip_credentials
from ..defaults import DEFAULT_COLLECTION
from ..events import payloads
from ..events.bus import emit
from ..store import InvalidInputError, SavedSource, Store
from .capture_settings import capture_options, default_collection

OnProgress = Callable[[dict[str, Any]], None]
"""Told `{"stage": "capturing", "chars": N}` then `{"stage": "storing"}`."""


async def capture_bytes(
    raw: bytes, url: str | None = None, *, options: CaptureOptions | None = None
) -> Capture:
    """A page or PDF the caller read (a saved file, standard input); `url` is where it came
    from, so that links resolve and the same page is recognized next time."""
    from ..capture.isolated import capture_isolated

    return await capture_isolated(raw, url, options=options or capture_options())


async def capture_url(
    url: str,
    *,
    page_url: str | None = None,
    options: CaptureOptions | None = None,
    allow_private: bool = False,
    for_model: bool = False,
) -> Capture:
    """Fetch a page or PDF (no login: the extension sends the DOM for the rest) and capture
    it; it is filed under `page_url` if given, else the address it redirected to.

    The fetch never reaches a private address (loopback, private, link-local, ...: see
    `capture.fetch_guard`) unless `allow_private` (the user asked: the command's flag or the
    setting, `capture_settings.private_addresses_allowed`), and never for a model
    (`for_model`, the `source.capture` tool), whatever the user allowed."""
    import functools

    from ..capture.fetch import fetch_html

    fetch = functools.partial(fetch_html, allow_private=allow_private, for_model=for_model)
    raw, final_url = await asyncio.to_thread(fetch, url)
    return await capture_bytes(raw, page_url or final_url, options=options)


async def store_capture(
    store: Store, capture: Capture, *, collection: str = DEFAULT_COLLECTION, origin: str = "cli"
) -> SavedSource:
    """Store a capture as a source of `collection` (created if missing)."""
    saved = await store.sources.save_capture(collection, capture, origin=origin)
    await announce(store, saved)
    return saved


async def announce(store: Store, saved: SavedSource) -> None:
    """`source.captured` when the capture was stored (new or updated, not unchanged or kept
    out): the user's event rules run now (`events.bus.emit`, never failing the capture)."""
    if saved.outcome in ("new", "updated"):
        await emit(store, "source.captured", payloads.captured(saved))


@dataclass(frozen=True)
class ObservedPage:
    """A page as the user sees it, serialized by the extension: what the host could never
    fetch itself (logins, scripts) is in `html`."""

    url: str
    html: str
    title: str | None = None
    selection_html: str | None = None
    canonical_url: str | None = None
    lang: str | None = None

    def selection(self) -> str | None:
        """The user's selection, when it holds anything."""
        chosen = self.selection_html
        return chosen if chosen is not None and chosen.strip() else None


SaveMode = CaptureMode
"""`auto`: the selection if there is one, else the main content; `article`, `list`, `full`:
the page even with a selection; `selection`: only the selection, as its own source."""


@dataclass(frozen=True)
class ObservedCapture:
    """An observed page captured, and how: from the selection, with the canonical URL."""

    capture: Capture
    selection: bool
    canonical_used: bool


async def capture_observed(page: ObservedPage, mode: SaveMode = "auto") -> ObservedCapture:
    """Capture the page (or its selection) with the extension's facts applied (see
    `_observed`)."""
    html, chosen = _page_input(page, mode)
    return await _observed(page, html, chosen)


async def save_page(
    store: Store,
    page: ObservedPage,
    *,
    collection: str | None = None,
    mode: SaveMode = "auto",
    on_progress: OnProgress | None = None,
) -> SavedSource:
    """The extension's "Save page": capture what the user sees and store it (in
    `collection`, else the default one of the settings). The same URL again updates the
    source, leaves it unchanged, or keeps the saved copy when the new one has much less text
    or a new login wall (`kept`, with a reason)."""
    report = on_progress or (lambda _stage: None)
    html, chosen = _page_input(page, mode)
    report({"stage": "capturing", "chars": len(html)})
    observed = await _observed(page, html, chosen)
    report({"stage": "storing"})
    saved = await store.sources.save_capture(
        default_collection(collection),
        observed.capture,
        origin="extension",
        provenance={
            "selection": observed.selection,
            "mode": mode,
            "canonical_used": observed.canonical_used,
            "tab_title": page.title,
        },
    )
    await announce(store, saved)
    return saved


async def _observed(page: ObservedPage, html: str, mode: CaptureMode) -> ObservedCapture:
    """Capture in the worker (cancelling the caller stops it), then the extension's facts:
    the tab title for a page without one, its language, and its canonical URL (which files
    the source only on the page's own site). A selection is its own source, keyed by the
    page and the selection's content: it never replaces the page's saved copy."""
    from ..capture.isolated import capture_isolated

    capture = await capture_isolated(html, page.url, options=capture_options(mode=mode))
    if not capture.title and page.title:
        capture = dataclasses.replace(capture, title=page.title)
    capture, canonical_used = _with_page_facts(capture, page)
    selection = mode == "selection"
    if selection and capture.normalized_url:
        key = f"{capture.normalized_url}#laika-selection={capture.content_hash[:16]}"
        capture = dataclasses.replace(capture, normalized_url=key)
    return ObservedCapture(capture, selection, canonical_used)


def _page_input(page: ObservedPage, mode: SaveMode) -> tuple[str, CaptureMode]:
    """What to capture and how: `selection` needs a selection; `auto` uses one if given."""
    chosen = page.selection()
    if mode == "selection":
        if chosen is None:
            raise InvalidInputError(
                "mode `selection` needs `selection_html` (the selected part of the page); "
                "select some text first, or save the page with mode `auto`"
            )
        return chosen, "selection"
    if mode == "auto" and chosen is not None:
        return chosen, "selection"
    return page.html, mode


def _with_page_facts(capture: Capture, page: ObservedPage) -> tuple[Capture, bool]:
    """The extension's canonical URL and language on the capture; the canonical URL files
    the source only when it is on the page's own site (`same_site`)."""
    updates: dict[str, Any] = {}
    if page.lang:
        updates["language"] = page.lang
    used = False
    if page.canonical_url:
        canonical = strip_credentials(page.canonical_url)
        updates["canonical_url"] = canonical
        used = same_site(page.url, canonical)
        if used:
            updates["normalized_url"] = normalize_url(canonical)
    return dataclasses.replace(capture, **updates), used
