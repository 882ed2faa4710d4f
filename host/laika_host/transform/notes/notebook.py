"""The collection's notes: sections of evergreen statements, and how decisions change them.

A section's id comes from its title and a statement's from its block and words, so the ids a
model is shown are the same in every run. Integrating never duplicates: a section title is
one section whatever its case, the same statement is not added twice to a section, and the
statements a block made before are replaced by its new ones (in their section) rather than
kept beside them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..items import Cited, Note
from .models import IntegrationDecisionChunk

UNFILED = "Notes"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass
class Statement:
    text: str
    block: str  # the block key: `<source id>#<index>@<digest>`
    citations: list[Cited]
    id: str = field(init=False)
    key: str = field(init=False)  # what two statements that say the same share

    def __post_init__(self) -> None:
        self.key = norm(self.text)
        self.id = "st-" + _hash(self.block_id + "\n" + self.key)

    @property
    def block_id(self) -> str:
        return self.block.split("@", 1)[0]


@dataclass
class Section:
    title: str
    statements: list[Statement] = field(default_factory=list)
    id: str = field(init=False)

    def __post_init__(self) -> None:
        self.id = section_id(self.title)

    def holds(self, statement: Statement) -> bool:
        return any(s.key == statement.key for s in self.statements)


def section_id(title: str) -> str:
    return "sec-" + _hash(norm(title))


@dataclass
class Placement:
    section: Section
    index: int | None = None  # None: at the end


class Notebook:
    def __init__(self, sections: Iterable[Section] = ()) -> None:
        self.sections: list[Section] = list(sections)

    def __len__(self) -> int:
        return sum(len(section.statements) for section in self.sections)

    def section(self, ref: str | None) -> Section | None:
        """The section with this id or title."""
        if not ref:
            return None
        wanted = section_id(ref)
        return next((s for s in self.sections if s.id in (ref, wanted)), None)

    def ensure(self, title: str) -> Section:
        found = self.section(title)
        if found is None:
            found = Section(" ".join(title.split())[:300] or UNFILED)
            self.sections.append(found)
        return found

    def statement(self, ref: str | None) -> tuple[Section, int] | None:
        for section in self.sections:
            for index, statement in enumerate(section.statements):
                if statement.id == ref:
                    return section, index
        return None

    def of_block(self, block_id: str) -> list[tuple[Section, int]]:
        return [
            (section, index)
            for section in self.sections
            for index, statement in enumerate(section.statements)
            if statement.block_id == block_id
        ]

    def detach(self, block_id: str) -> list[Placement]:
        """Take out a block's earlier statements; where they stood (for its new ones)."""
        places = self.of_block(block_id)
        for section, index in reversed(places):
            del section.statements[index]
        return [Placement(section, index) for section, index in places]

    def place(self, where: Placement, statements: list[Statement]) -> int:
        """Put statements in a section (at an index, or the end); the ones it already holds
        are skipped. Returns how many were added."""
        added = 0
        index = where.index
        for statement in statements:
            if where.section.holds(statement):
                continue
            if index is None:
                where.section.statements.append(statement)
            else:
                at = min(index, len(where.section.statements))
                where.section.statements.insert(at, statement)
                index += 1
            added += 1
        return added

    def keep_sources(self, source_ids: set[str]) -> int:
        """Drop the statements of sources no longer in the collection; how many went."""
        dropped = 0
        for section in self.sections:
            kept = [s for s in section.statements if s.block_id.split("#", 1)[0] in source_ids]
            dropped += len(section.statements) - len(kept)
            section.statements = kept
        self.prune()
        return dropped

    def prune(self) -> None:
        self.sections = [section for section in self.sections if section.statements]

    def notes(self) -> list[Note]:
        return [
            Note(statement=s.text, section=section.title, block=s.block, citations=s.citations)
            for section in self.sections
            for s in section.statements
        ]

    def outline(self, budget: int = 4000) -> str:
        """The notes as a model is shown them, within `budget` characters: each section's
        id and title, then as many of its statements (with their ids) as fit."""
        lines: list[str] = []
        used = 0
        for number, section in enumerate(self.sections):
            line = f"- {section.title}\n  id:: {section.id}"
            if used + len(line) > budget:
                lines.append(f"- ({len(self.sections) - number} more sections)")
                break
            lines.append(line)
            used += len(line)
            for statement in section.statements:
                line = f"  - {statement.text[:200]}\n    id:: {statement.id}"
                if used + len(line) > budget:
                    break
                lines.append(line)
                used += len(line)
        return "\n".join(lines) or "(empty: no sections yet)"

    @classmethod
    def from_items(cls, items: list[dict[str, Any]]) -> Notebook:
        """The notes a stored artifact holds (its checked `note` items)."""
        book = cls()
        for item in items:
            data = item.get("data") or {}
            text, block = data.get("statement"), data.get("block")
            if item.get("kind") != "note" or not isinstance(text, str) or not text.strip():
                continue
            citations = [
                Cited(source_id=str(c["source_id"]), quote=str(c["quote"]))
                for c in item.get("citations") or []
                if isinstance(c, dict) and c.get("source_id") and c.get("quote")
            ][:16]
            statement = Statement(text, str(block or ""), citations)
            book.place(Placement(book.ensure(str(data.get("section") or UNFILED))), [statement])
        return book


def apply_block(
    book: Notebook,
    statements: list[Statement],
    decisions: list[IntegrationDecisionChunk],
    fallback: str,
    *,
    again: bool = False,
) -> int:
    """A block's statements into the notes under its (capped) decisions. Its earlier
    statements are replaced where they stood; with no usable decision the statements go
    there, or to `fallback` (a section title). `again`: more decisions for a block applied
    earlier in this run (its statements stay where they went). Returns how many statements
    were added."""
    if not statements:
        return 0
    placements = [p for p in (_resolve(book, d, fallback) for d in decisions) if p is not None]
    if again and not placements:
        return 0
    earlier = [] if again else book.detach(statements[0].block_id)
    if not placements:
        placements = earlier[:1] or [Placement(book.ensure(fallback))]
    added = sum(book.place(where, statements) for where in placements)
    book.prune()
    return added


def _resolve(book: Notebook, decision: IntegrationDecisionChunk, fallback: str) -> Placement | None:
    if decision.action == "replace":
        found = book.statement(decision.target_block_id)
        if found is not None:
            section, index = found
            del section.statements[index]  # the new statement takes its place
            return Placement(section, index)
    target = book.section(decision.target_block_id) or book.section(decision.target_block_title)
    if target is not None:
        return Placement(target)
    return Placement(book.ensure(decision.target_block_title or fallback))
