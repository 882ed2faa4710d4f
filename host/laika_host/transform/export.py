"""An artifact as a file: Markdown with YAML front matter, plain text, JSON, CSV, HTML.

Pure functions over an `ExportInput` (the artifact as `get_artifact` shows it, plus what the
store knows about its collection and sources), one per format, so each is testable alone.
Every string in an artifact came from a page or a model: each format escapes it its own way
(YAML double-quoted scalars with every non-printable escaped; CSV cells that a spreadsheet
splitting on `,`, `;` or tab would run as a formula are neutralised; HTML goes through the
project's safe renderer and the footnotes are built from escaped text and http(s) links only).
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from dataclasses import dataclass, field
from html import escape
from typing import Any
from urllib.parse import urlsplit

from ..controls import strip_controls
from ..errors import RefusedError
from ..render.html import markdown_to_safe_html
from .catalog import catalog, get_type
from .items import CheckedItem
from .render import LAYOUTS, Markers

FORMATS = ("md", "txt", "json", "csv", "html")
TABLE_TYPES = frozenset(
    {"comparison", "data-table", "timeline", "glossary", "faq", "flashcards", "quiz"}
    | {"action-items", "pros-cons"}
)
"""Types whose items are rows of a table (CSV export)."""
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""A cell starting with one of these runs as a formula in a spreadsheet (CSV injection)."""
FIELD_BREAKS = frozenset(",;\t\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029")
"""Where a spreadsheet may start a field: after a separator it may split on (`,`, `;`, tab:
ours is `,`, a `;` locale's or a paste's is not) or a line break (a reader that ignores quotes)."""


class NotATableError(RefusedError):
    """CSV asked of an artifact that has no table, or a table number it does not have."""


@dataclass(frozen=True)
class ExportInput:
    artifact: dict[str, Any]
    collection: str
    tags: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    """`{source_id, title, url}` of each source the artifact was built from."""


@dataclass(frozen=True)
class Table:
    name: str
    header: list[str]
    rows: list[list[str]]


def checked_items(artifact: dict[str, Any]) -> list[CheckedItem]:
    return [
        CheckedItem(
            kind=str(i.get("kind") or "item"),
            data=_data(i.get("data")),
            citations=[c for c in i.get("citations") or [] if isinstance(c, dict)],
            verified=bool(i.get("verified")),
            flag=i.get("flag"),
        )
        for i in artifact.get("items") or []
        if isinstance(i, dict)
    ]


def _data(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# --- Markdown with YAML front matter ---------------------------------------------------------

_YAML_PLAIN = re.compile(r"[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def yaml_string(value: Any) -> str:
    """A YAML double-quoted scalar any YAML reader gives back as the same string: quotes and
    backslashes escaped, every character outside YAML's printable set (and the line
    separators YAML would fold) written as an escape."""
    text = "" if value is None else str(value)
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif _YAML_PLAIN.match(char):
            out.append(char)
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    out.append('"')
    return "".join(out)


_TAG_UNSAFE = re.compile(r"[^\w/-]+")


def obsidian_tag(tag: str) -> str:
    """A tag as Obsidian reads one: letters, digits, `_`, `-`, `/`, not only digits (else
    empty: dropped)."""
    cleaned = _TAG_UNSAFE.sub("-", tag).strip("-/")
    return "" if cleaned.isdigit() else cleaned


def front_matter(source: ExportInput) -> str:
    artifact = source.artifact
    lines = [
        "---",
        f"title: {yaml_string(artifact.get('title'))}",
        f"collection: {yaml_string(source.collection)}",
        f"type: {yaml_string(artifact.get('type'))}",
        f"created: {yaml_string(artifact.get('completed_at') or artifact.get('created_at'))}",
        f"artifact_id: {yaml_string(artifact.get('id'))}",
    ]
    lines.append("sources:" if source.sources else "sources: []")
    for entry in source.sources:
        lines.append(f"  - title: {yaml_string(entry.get('title') or entry.get('source_id'))}")
        lines.append(f"    url: {yaml_string(entry.get('url') or '')}")
    tags = [obsidian_tag(t) for t in [*source.tags, "laika", f"laika/{artifact.get('type')}"]]
    lines.append("tags:")
    lines += [f"  - {yaml_string(tag)}" for tag in dict.fromkeys(tags) if tag]
    return "\n".join([*lines, "---"]) + "\n"


def to_markdown(source: ExportInput) -> str:
    """Front matter, then the Markdown the host rendered (every item's text escaped)."""
    body = str(source.artifact.get("content_markdown") or "")
    return front_matter(source) + "\n" + body


# --- Plain text ------------------------------------------------------------------------------


def flat(value: Any) -> str:
    """A field's value as one line of text."""
    if isinstance(value, dict):
        return "; ".join(f"{k}: {flat(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "; ".join(flat(v) for v in value)
    return " ".join(strip_controls("" if value is None else str(value)).split())


def to_text(source: ExportInput) -> str:
    """Title, one numbered entry per item (its fields, its citation numbers, a flag when
    unverified), then the sources the numbers point to."""
    markers = Markers()
    lines = [flat(source.artifact.get("title")), ""]
    if not source.artifact.get("items"):  # a saved note: Markdown only, no items
        lines += [strip_controls(str(source.artifact.get("content_markdown") or "")).strip()]
    for number, item in enumerate(checked_items(source.artifact), start=1):
        fields = [f"{name}: {flat(value)}" for name, value in item.data.items() if value]
        lines.append(f"{number}. " + " | ".join(fields) + markers.of(item).replace("*", ""))
    if markers.entries:
        lines += ["", "Sources"]
        for number, citation in enumerate(markers.entries, start=1):
            named = flat(citation.get("title") or citation.get("source_id"))
            link = web_link(citation)
            lines.append(
                f"[{number}] “{flat(citation.get('quote'))}” — {named}"
                + (f" <{link}>" if link else "")
            )
    return "\n".join(lines) + "\n"


# --- JSON ------------------------------------------------------------------------------------


def to_json(source: ExportInput) -> str:
    document = {
        "artifact": source.artifact,
        "collection": source.collection,
        "sources": source.sources,
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


# --- CSV -------------------------------------------------------------------------------------


def neutralise(cell: str) -> str:
    """A cell no spreadsheet evaluates, whichever of `,`, `;` or tab it splits lines on.

    A reader may start a field at the cell's start or after any separator or line break in
    it (quoting helps only a reader that splits where the writer did). Wherever such a
    field, past whitespace, quotes and invisible characters (a byte-order mark, a zero-width
    space), begins with a formula trigger (`=`, `+`, `-`, `@` or a full-width or small form of
    one, U+FF1D, U+FE62, ...), a `'` goes before the trigger: every reader shows the field as text
    and the user reads their words with one mark. A cell starting with tab or CR also gets a
    leading `'`. Idempotent, linear."""
    out = ["'"] if cell.startswith(("\t", "\r")) else []
    armed = True  # a field may start here
    for char in cell:
        if armed and _formula_trigger(char):
            out.append("'")
            armed = False
        elif char in FIELD_BREAKS:
            armed = True
        elif armed and not _skipped_before_a_field(char):
            armed = False
        out.append(char)
    return "".join(out)


def _formula_trigger(char: str) -> bool:
    if char.isascii():
        return char in "=+-@"
    return unicodedata.normalize("NFKC", char)[:1] in ("=", "+", "-", "@")


def _skipped_before_a_field(char: str) -> bool:
    """Whitespace, quotes and characters a reader may drop before looking at a field."""
    return char == '"' or char.isspace() or unicodedata.category(char) in ("Cc", "Cf")


def tables(source: ExportInput) -> list[Table]:
    """The artifact's tables: one per table-like type (pros-cons: pros and cons)."""
    return artifact_tables(source.artifact)


def export_formats(artifact: dict[str, Any]) -> list[str]:
    """The formats that give this artifact's content, in `FORMATS` order: every one but
    `csv`, which needs a table type and at least one row (what a UI offers; `export` still
    writes a header-only CSV of an empty table when asked)."""
    try:
        has_rows = any(table.rows for table in artifact_tables(artifact))
    except NotATableError:
        has_rows = False
    return [fmt for fmt in FORMATS if fmt != "csv" or has_rows]


def table_names(artifact: dict[str, Any]) -> list[str]:
    """The names of the artifact's CSV tables: table n (1-based) is the n-th; none when it
    is not a table type."""
    try:
        return [table.name for table in artifact_tables(artifact)]
    except NotATableError:
        return []


def artifact_tables(artifact: dict[str, Any]) -> list[Table]:
    """`tables` of the artifact as stored."""
    kind = str(artifact.get("type"))
    if kind not in TABLE_TYPES:
        raise NotATableError(
            f"a {kind} artifact has no table to export as CSV (CSV is for "
            f"{', '.join(sorted(TABLE_TYPES))}): export it as md, txt, json or html"
        )
    items = checked_items(artifact)
    if kind == "pros-cons":
        groups = [
            (name, [i for i in items if i.data.get("side") == side])
            for side, name in (("pro", "pros"), ("con", "cons"))
        ]
        return [_table(name, group) for name, group in groups if group]
    return [_table(kind, items)]


def _row_fields(item: CheckedItem) -> dict[str, str]:
    fields: dict[str, str] = {}
    for name, value in item.data.items():
        if name == "cells" and isinstance(value, dict):
            fields.update({str(k): flat(v) for k, v in value.items()})
        else:
            fields[name] = flat(value)
    return fields


def _table(name: str, items: list[CheckedItem]) -> Table:
    rows = [_row_fields(item) for item in items]
    columns = list(dict.fromkeys(column for row in rows for column in row))
    header = [*columns, "verified", "citations"]
    body = [
        [neutralise(row.get(column, "")) for column in columns]
        + ["yes" if item.verified else "no", neutralise(_citations_cell(item))]
        for row, item in zip(rows, items, strict=True)
    ]
    return Table(name, [neutralise(h) for h in header], body)


def _citations_cell(item: CheckedItem) -> str:
    return " | ".join(
        f"“{flat(c.get('quote'))}” ({flat(c.get('title') or c.get('source_id'))})"
        for c in item.citations
    )


def _which_tables(found: list[Table]) -> str:
    if not found:
        return "it has no items to put in a table: export it as md, txt, json or html"
    named = ", ".join(f"{n} ({t.name})" for n, t in enumerate(found, start=1))
    return f"its tables are {named}"


def table_csv(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(table.header)
    writer.writerows(table.rows)
    return out.getvalue()


def to_csv(source: ExportInput, table: int = 1) -> str:
    """Table number `table` (1-based) as CSV."""
    found = tables(source)
    if not 1 <= table <= len(found):
        raise NotATableError(f"this artifact has no table {table}: {_which_tables(found)}")
    return table_csv(found[table - 1])


# --- HTML ------------------------------------------------------------------------------------

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .4rem}"
    ".unverified{color:#a33}.footnotes{font-size:.9rem;border-top:1px solid #ccc}"
)
_MARKER = re.compile(r"\[(\d{1,5})\]")


def web_link(citation: dict[str, Any]) -> str | None:
    """The citation's text-fragment link when verified and http(s); nothing else links."""
    if not citation.get("verified"):
        return None
    link = str(citation.get("locator") or citation.get("url") or "")
    try:
        parts = urlsplit(link)
    except ValueError:
        return None
    return link if parts.scheme in ("http", "https") and parts.netloc else None


def to_html(source: ExportInput) -> str:
    """A standalone page: the items laid out as the host's Markdown, rendered by the safe
    renderer (nh3 keeps an allowlist), citation markers linked to footnotes, under a CSP
    that lets nothing run or load."""
    artifact = source.artifact
    markers = Markers()
    body = markers_linked(markdown_to_safe_html(_body_markdown(artifact, markers)))
    title = escape(flat(artifact.get("title")))
    meta = escape(f"{flat(artifact.get('type'))} · {flat(source.collection)}")
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
        f"<title>{title}</title><style>{STYLE}</style></head><body>"
        f"<h1>{title}</h1><p>{meta}</p>{body}{footnotes(markers.entries)}</body></html>\n"
    )


def _body_markdown(artifact: dict[str, Any], markers: Markers) -> str:
    """The items laid out as their type does; a saved note (no type, no items) is its
    Markdown as written (the safe renderer makes it inert)."""
    if artifact.get("type") not in catalog():
        return str(artifact.get("content_markdown") or "")
    layout = get_type(str(artifact.get("type"))).layout
    return LAYOUTS[layout](checked_items(artifact), markers)


def markers_linked(html: str) -> str:
    """`[n]` in the sanitized HTML -> a link to footnote n (n is digits: nothing injected)."""
    return _MARKER.sub(lambda m: f"<sup><a href='#fn-{m[1]}'>[{m[1]}]</a></sup>", html)


def footnotes(entries: list[dict[str, Any]]) -> str:
    if not entries:
        return ""
    notes = "".join(_footnote(n, c) for n, c in enumerate(entries, start=1))
    return f"<section class='footnotes'><h2>Sources</h2><ol>{notes}</ol></section>"


def _footnote(number: int, citation: dict[str, Any]) -> str:
    quote = escape(flat(citation.get("quote")))
    named = escape(flat(citation.get("title") or citation.get("source_id")))
    link = web_link(citation)
    if link:
        anchor = f"<a href=\"{escape(link)}\" rel='noopener noreferrer nofollow'>{named}</a>"
        state = ""
    else:
        anchor = named
        reason = escape(flat(citation.get("reason") or "unverified"))
        state = f" <span class='unverified'>({reason})</span>"
    return f"<li id='fn-{number}' value='{number}'>“{quote}” — {anchor}{state}</li>"


def export(source: ExportInput, fmt: str, *, table: int = 1) -> str:
    """The artifact in format `fmt` (one of `FORMATS`)."""
    if fmt == "csv":
        return to_csv(source, table)
    writers = {"md": to_markdown, "txt": to_text, "json": to_json, "html": to_html}
    if fmt not in writers:
        raise RefusedError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    return writers[fmt](source)
