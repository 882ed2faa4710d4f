"""Checked items -> the artifact's Markdown, laid out per type, safely.

Every string an item holds came from a model or a page, so each is written through
`escape_text` on one line: it shows as text in any CommonMark reader (no HTML, no link, no
heading or list it did not ask for). Citations become numbered markers `[n]` after the item
and a "Sources" list at the end (the quote, the source's title, a link to the quoted words when
verified, the reason when not); an unverified item says so where it stands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..capture.markdown_escape import escape_text, heading_line, link_destination
from .items import CheckedItem
from .spec import Layout

SLIDE_BREAK = "\n\n---\n\n"
UNVERIFIED = " *(unverified)*"


def esc(value: Any) -> str:
    """A field's text on one line, escaped (None and non-strings shown as text too)."""
    text = "" if value is None else str(value)
    return escape_text(" ".join(text.split()))


class Markers:
    """Numbers for citations in order of first use; the same quote of the same source
    keeps its number."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self._numbers: dict[tuple[Any, Any], int] = {}

    def of(self, item: CheckedItem) -> str:
        numbers = []
        for citation in item.citations:
            key = (citation.get("source_id"), citation.get("quote"))
            if key not in self._numbers:
                self.entries.append(citation)
                self._numbers[key] = len(self.entries)
            numbers.append(self._numbers[key])
        marks = "".join(f" [{n}]" for n in dict.fromkeys(numbers))
        return marks + ("" if item.verified else UNVERIFIED)

    def sources(self) -> str:
        if not self.entries:
            return ""
        lines = ["## Sources", ""]
        for number, citation in enumerate(self.entries, start=1):
            lines.append(f"{number}. {_entry(citation)}")
        return "\n".join(lines)


def _entry(citation: dict[str, Any]) -> str:
    named = citation.get("title") or citation.get("source_id")
    text = f"“{esc(citation.get('quote'))}” — {esc(named)}"
    if citation.get("verified"):
        destination = link_destination(str(citation.get("locator") or citation.get("url") or ""))
        return text + (f" ([open]({destination}))" if destination else "")
    return f"{text} — {esc(citation.get('reason') or 'unverified')}"


def render(layout: Layout, title: str, items: list[CheckedItem]) -> str:
    markers = Markers()
    body = LAYOUTS[layout](items, markers)
    parts = [heading_line(title, 1), body, markers.sources()]
    return "\n\n".join(part for part in parts if part.strip()) + "\n"


Render = Callable[[list[CheckedItem], Markers], str]


def _paragraphs(items: list[CheckedItem], m: Markers) -> str:
    return "\n\n".join(f"{esc(i.data.get('text'))}{m.of(i)}" for i in items)


def _bullets(items: list[CheckedItem], m: Markers) -> str:
    return "\n".join(f"- {esc(i.data.get('text'))}{m.of(i)}" for i in items)


def _parts(items: list[CheckedItem], m: Markers) -> str:
    blocks = []
    for item in items:
        if item.data.get("heading"):
            blocks.append(heading_line(str(item.data["heading"]), 2))
        blocks.append(f"{esc(item.data.get('text'))}{m.of(item)}")
    return "\n\n".join(blocks)


def _sections(items: list[CheckedItem], m: Markers) -> str:
    return "\n\n".join(
        f"{heading_line(str(i.data.get('heading')), 2)}\n\n{esc(i.data.get('body'))}{m.of(i)}"
        for i in items
    )


def _qa(items: list[CheckedItem], m: Markers) -> str:
    return "\n\n".join(
        f"{heading_line(str(i.data.get('question')), 3)}\n\n{esc(i.data.get('answer'))}{m.of(i)}"
        for i in items
    )


def _labelled(label_key: str, text_key: str) -> Render:
    def render(items: list[CheckedItem], m: Markers) -> str:
        return "\n".join(
            f"- **{esc(i.data.get(label_key))}**: {esc(i.data.get(text_key))}{m.of(i)}"
            for i in items
        )

    return render


def _table(items: list[CheckedItem], m: Markers, *, first: str | None = None) -> str:
    columns: list[str] = []
    for item in items:
        for key in _cells(item):
            if key not in columns and len(columns) < 12:
                columns.append(key)
    head = ([first] if first else []) + columns + ["Sources"]
    lines = ["| " + " | ".join(esc(h) for h in head) + " |", "|" + " --- |" * len(head)]
    for item in items:
        cells = _cells(item)
        row = [esc(item.data.get("subject"))] if first else []
        row += [esc(cells.get(column, "")) for column in columns]
        row.append(m.of(item).strip())
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _strings(value: Any) -> list[str]:
    return [str(entry) for entry in value] if isinstance(value, list) else []


def _cells(item: CheckedItem) -> dict[str, Any]:
    cells = item.data.get("cells")
    return cells if isinstance(cells, dict) else {}


def _comparison(items: list[CheckedItem], m: Markers) -> str:
    return _table(items, m, first="Subject")


def _pros_cons(items: list[CheckedItem], m: Markers) -> str:
    blocks = []
    for side, heading in (("pro", "Pros"), ("con", "Cons")):
        own = [i for i in items if i.data.get("side") == side]
        if own:
            blocks.append(f"## {heading}\n\n" + _bullets(own, m))
    return "\n\n".join(blocks)


def _actions(items: list[CheckedItem], m: Markers) -> str:
    lines = []
    for item in items:
        extra = [
            f"{name}: {esc(item.data[name])}" for name in ("owner", "due") if item.data.get(name)
        ]
        suffix = f" ({'; '.join(extra)})" if extra else ""
        lines.append(f"- {esc(item.data.get('action'))}{suffix}{m.of(item)}")
    return "\n".join(lines)


def _cards(items: list[CheckedItem], m: Markers) -> str:
    return "\n\n".join(
        f"### Card {n}\n\n**Front:** {esc(i.data.get('front'))}\n\n"
        f"**Back:** {esc(i.data.get('back'))}{m.of(i)}"
        for n, i in enumerate(items, start=1)
    )


def _quiz(items: list[CheckedItem], m: Markers) -> str:
    blocks = []
    for number, item in enumerate(items, start=1):
        options = _strings(item.data.get("options"))
        answer = str(item.data.get("answer"))
        letter = chr(ord("A") + options.index(answer)) if answer in options else "?"
        lines = [f"### Question {number}", "", esc(item.data.get("question")), ""]
        lines += [f"- {chr(ord('A') + k)}. {esc(option)}" for k, option in enumerate(options)]
        lines += ["", f"**Answer:** {letter}. {esc(answer)}{m.of(item)}"]
        if item.data.get("explanation"):
            lines += ["", f"**Why:** {esc(item.data['explanation'])}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _tree(items: list[CheckedItem], m: Markers) -> str:
    lines, previous = [], 0
    for item in items:
        wanted = item.data.get("level")
        level = max(1, min(wanted if isinstance(wanted, int) else 1, previous + 1))
        previous = level
        lines.append(f"{'  ' * (level - 1)}- {esc(item.data.get('text'))}{m.of(item)}")
    return "\n".join(lines)


def _slides(items: list[CheckedItem], m: Markers) -> str:
    slides = []
    for item in items:
        bullets = [f"- {esc(b)}" for b in _strings(item.data.get("bullets"))]
        lines = [heading_line(str(item.data.get("title")), 2) + m.of(item), "", *bullets]
        if item.data.get("notes"):
            lines += ["", f"Notes: {esc(item.data['notes'])}"]
        slides.append("\n".join(lines))
    return SLIDE_BREAK.join(slides)


def _email(items: list[CheckedItem], m: Markers) -> str:
    blocks: list[str] = []
    for item in items:
        part, text = item.data.get("part"), f"{esc(item.data.get('text'))}{m.of(item)}"
        if part == "subject":
            blocks.append(f"**Subject:** {text}")
        elif part == "bullet" and blocks and blocks[-1].startswith("- "):
            blocks[-1] += f"\n- {text}"
        else:
            blocks.append(f"- {text}" if part == "bullet" else text)
    return "\n\n".join(blocks)


def _notes(items: list[CheckedItem], m: Markers) -> str:
    blocks: list[str] = []
    section: object = None
    for item in items:
        if item.data.get("section") != section or not blocks:
            section = item.data.get("section")
            blocks.append(heading_line(str(section), 2) if section else "")
        blocks.append(f"- {esc(item.data.get('statement'))}{m.of(item)}")
    return "\n".join(blocks).strip()


LAYOUTS: dict[str, Render] = {
    "paragraphs": _paragraphs,
    "bullets": _bullets,
    "parts": _parts,
    "sections": _sections,
    "qa": _qa,
    "glossary": _labelled("term", "definition"),
    "timeline": _labelled("date", "event"),
    "table": _table,
    "comparison": _comparison,
    "pros_cons": _pros_cons,
    "actions": _actions,
    "cards": _cards,
    "quiz": _quiz,
    "tree": _tree,
    "slides": _slides,
    "script": _labelled("speaker", "line"),
    "email": _email,
    "references": _bullets,
    "notes": _notes,
}
