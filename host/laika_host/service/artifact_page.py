"""An artifact as a UI opens it: the stored view plus `html` and the flat `citations`.

The Markdown the host rendered numbers each distinct citation (source and quote) in order of
first use (`transform.render.Markers`); the same numbering over the stored items gives the
list those `[n]` markers name, so the answer renderer chat uses (`render.answer_html`) links a
verified marker to its quote and flags any other, and the panel's chips work unchanged.
"""

from __future__ import annotations

from typing import Any

from ..render.answer_html import answer_to_html
from ..store import Store
from ..transform import get_artifact
from ..transform.export import checked_items, export_formats, table_names
from ..transform.render import Markers


def numbered_citations(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The citations of the artifact's items, one per marker, `marker` set to its number."""
    markers = Markers()
    for item in checked_items(view):
        markers.of(item)
    return [
        {**citation, "marker": number} for number, citation in enumerate(markers.entries, start=1)
    ]


def page(view: dict[str, Any]) -> dict[str, Any]:
    """`view` with `html` (safe, markers linked or flagged), `citations` (chat's shape) and
    what it can be exported as: `export_formats` (a UI offers these and no other) and
    `export_tables` (the CSV tables' names; `table` n is the n-th)."""
    citations = numbered_citations(view)
    markdown = str(view.get("content_markdown") or "")
    return {
        **view,
        "html": answer_to_html(markdown, citations),
        "citations": citations,
        "export_formats": export_formats(view),
        "export_tables": table_names(view),
    }


async def open_artifact(store: Store, artifact_id: str) -> dict[str, Any]:
    """The artifact as `page` shows it; NotFoundError names an unknown id."""
    return page(await get_artifact(store, artifact_id))
