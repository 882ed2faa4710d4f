"""What every store-backed command shares: open the store, run async work, print results."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import click

from ..controls import strip_controls
from ..defaults import DEFAULT_COLLECTION
from ..store import Store, open_store

T = TypeVar("T")

collection_option = click.option(
    "--collection",
    "-c",
    default=None,
    help="Collection title or id.",
)
save_collection_option = click.option(
    "--collection",
    "-c",
    default=None,
    help="Store into this collection (title or id; created if missing). Default: the "
    f"setting capture.default_collection ({DEFAULT_COLLECTION} unless changed).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
allow_private_option = click.option(
    "--allow-private-address",
    "allow_private",
    is_flag=True,
    help="Let this fetch reach your own machine or network (localhost, 127.0.0.1, 10.x, "
    "192.168.x, ...), which Laika otherwise refuses; a redirect from the internet never "
    "may. Always: the setting capture.allow_private_addresses.",
)


def run_with_store(work: Callable[[Store], Awaitable[T]]) -> T:
    """Open the store, run `work`, close (a store error reaches the group: `_errors`)."""

    async def main() -> T:
        async with open_store() as store:
            return await work(store)

    return asyncio.run(main())


def table(rows: list[list[str]], headers: list[str]) -> str:
    """A plain aligned text table (for humans; scripts use --json)."""
    rows = [[strip_controls(cell) for cell in row] for row in rows]  # widths of what is shown
    widths = [len(header) for header in headers]
    for row in rows:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=True)]
    lines = [headers, *rows]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def shorten(text: str | None, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"
