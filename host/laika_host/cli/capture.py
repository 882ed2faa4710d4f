"""`laika capture FILE_OR_URL`: turn a page into a bounded, sanitized Markdown source."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..defaults import CAPTURE_MAX_CHARS, DEFAULT_COLLECTION
from ._output import echo, print_json
from ._store import allow_private_option

if TYPE_CHECKING:
    from ..capture import Capture, CaptureOptions


@click.command()
@click.argument("source", metavar="FILE_OR_URL")
@click.option("--url", "page_url", help="The page's address, for a saved file (resolves links).")
@click.option(
    "--collection",
    "-c",
    default=None,
    help="Store into this collection (title or id; created if missing). Default: the "
    f"setting capture.default_collection ({DEFAULT_COLLECTION} unless changed).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the stored source (or the capture) as JSON."
)
@click.option("--dry-run", is_flag=True, help="Print the capture; do not store it.")
@click.option(
    "--mode",
    type=click.Choice(["auto", "article", "list", "selection", "full"]),
    default="auto",
    show_default=True,
    help="What to keep: main article, list items, the given fragment, or the whole page.",
)
@click.option(
    "--max-chars",
    type=int,
    default=None,
    help=f"Markdown bound. Default: the setting capture.max_chars ({CAPTURE_MAX_CHARS:,} "
    "unless changed).",
)
@click.option("--no-images", is_flag=True, help="Leave images out of the Markdown.")
@click.option("--no-links", is_flag=True, help="Do not list outbound links.")
@allow_private_option
def capture(
    source: str,
    page_url: str | None,
    collection: str | None,
    as_json: bool,
    dry_run: bool,
    mode: str,
    max_chars: int | None,
    no_images: bool,
    no_links: bool,
    allow_private: bool,
) -> None:
    """Capture a saved HTML or PDF file (`-` for standard input) or fetch a URL (page or PDF).

    Stores the page as a source in the collection (the same URL again updates it, or changes
    nothing when its content is the same) and prints what happened; --json prints the stored
    source and whether it was new, updated or unchanged. With --dry-run nothing is stored: it
    prints the Markdown, or with --json the whole capture (title, byline, published, language,
    URLs, markdown, text, truncated, chunks, outbound links, signals, content hash, extractor,
    timings).

    A URL on your own machine or network (localhost, 127.0.0.1, 10.x, 192.168.x, a name
    that resolves there) is refused unless you add --allow-private-address (or set
    capture.allow_private_addresses); a page on the internet that redirects there is always
    refused.
    """
    from ..service.capture_settings import capture_options, default_collection

    options = capture_options(
        max_chars=max_chars,
        mode=mode,  # type: ignore[arg-type]
        include_images=not no_images,
        include_links=not no_links,
    )
    result = read_page(source, page_url, options, allow_private=allow_private)
    if dry_run:
        print_json(result.to_json()) if as_json else echo(result.markdown)
        return
    _store(result, default_collection(collection), as_json=as_json)


def read_page(
    source: str,
    page_url: str | None,
    options: CaptureOptions | None = None,
    *,
    allow_private: bool = False,
) -> Capture:
    """Capture a file, `-` (standard input) or a URL; bad input, or a page that passes the
    capture deadline, is a CaptureError (the group reports it: exit 2 with the reason). A
    URL may reach the user's own machine or network only if `allow_private` (the flag) or
    the setting allows it."""
    from ..service.capture import capture_bytes, capture_url
    from ..service.capture_settings import private_addresses_allowed

    if source.lower().startswith(("http://", "https://")):
        allowed = private_addresses_allowed(allow_private)
        return asyncio.run(
            capture_url(source, page_url=page_url, options=options, allow_private=allowed)
        )
    if source == "-":
        raw = sys.stdin.buffer.read()
    else:
        path = Path(source)
        if not path.is_file():
            raise click.ClickException(f"no such file: {source}")
        raw = path.read_bytes()
    return asyncio.run(capture_bytes(raw, page_url, options=options))


def _store(result: Capture, collection: str, *, as_json: bool) -> None:
    from ..service.capture import store_capture
    from ._store import run_with_store

    saved = run_with_store(lambda store: store_capture(store, result, collection=collection))
    if as_json:
        print_json(saved.to_json())
        return
    source = saved.source
    echo(
        f"{saved.outcome}: {source.id} in {saved.collection}: {source.title or source.url} "
        f"({source.markdown_chars:,} chars, version {source.capture_version})"
    )
    if saved.reason:
        echo(f"why: {saved.reason}")
