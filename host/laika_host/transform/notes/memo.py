"""What a run keeps for the next one: each block's classification and statements.

Stored in the artifact's progress (`notes`), saved after every batch, keyed by block id and
content digest (`Block.key`): a later run asks the model only about blocks it has no result
for, so a run cut by a network failure continues rather than starts over, and a block whose
text changed is asked again. Results belong to the provider that made them: a run with
another provider (or offline) classifies afresh but builds on the same notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import JsonValue

from ...store import Store
from ...store.records import Artifact
from ..items import Cited
from .blocks import Block
from .notebook import Notebook, Statement

TYPE_ID = "knowledge-notes"
FINAL = ("completed", "failed", "cancelled")
SCAN = 100


@dataclass
class Entry:
    knowledge: bool | None = None  # None: not classified yet
    confidence: float = 0.0
    reason: str = ""
    statements: list[Statement] | None = None  # None: not reworded yet
    integrated: bool = False

    def to_json(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {}
        if self.knowledge is not None:
            data |= {"k": self.knowledge, "c": round(self.confidence, 3), "r": self.reason[:80]}
        if self.statements is not None and not self.integrated:  # once in the notes: there
            data["s"] = [_statement_json(s) for s in self.statements]
        if self.integrated:
            data["i"] = True
        return data


def _statement_json(statement: Statement) -> dict[str, JsonValue]:
    return {
        "t": statement.text,
        "c": [{"source_id": c.source_id, "quote": c.quote} for c in statement.citations],
    }


@dataclass
class Memo:
    provider: str
    entries: dict[str, Entry] = field(default_factory=dict)

    def entry(self, block: Block) -> Entry:
        return self.entries.setdefault(block.key, Entry())

    def keep_only(self, blocks: list[Block]) -> None:
        """Forget blocks that are gone (a source changed or was removed): bounded memo."""
        current = {block.key for block in blocks}
        self.entries = {key: e for key, e in self.entries.items() if key in current}

    def to_json(self, based: bool) -> dict[str, JsonValue]:
        entries: dict[str, JsonValue] = {}
        for key, entry in self.entries.items():
            data = entry.to_json()
            if data:
                entries[key] = data
        return {"provider": self.provider, "based": based, "blocks": entries}

    @classmethod
    def from_json(cls, data: Any, provider: str) -> Memo:
        memo = cls(provider)
        if not isinstance(data, dict) or data.get("provider") != provider:
            return memo
        for key, raw in (data.get("blocks") or {}).items():
            if isinstance(key, str) and isinstance(raw, dict):
                memo.entries[key] = _entry(key, raw)
        return memo


def _entry(key: str, raw: dict[str, Any]) -> Entry:
    entry = Entry(integrated=raw.get("i") is True)
    if isinstance(raw.get("k"), bool):
        entry.knowledge = raw["k"]
        entry.confidence = float(raw.get("c") or 0.0)
        entry.reason = str(raw.get("r") or "")
    if entry.integrated:
        entry.statements = []  # its statements are in the notes
    elif isinstance(raw.get("s"), list):
        entry.statements = [s for s in (_statement(key, r) for r in raw["s"]) if s is not None]
    return entry


def _statement(key: str, raw: Any) -> Statement | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("t"), str):
        return None
    citations = [
        Cited(source_id=str(c["source_id"]), quote=str(c["quote"]))
        for c in raw.get("c") or []
        if isinstance(c, dict) and c.get("source_id") and c.get("quote")
    ]
    return Statement(raw["t"], key, citations)


@dataclass
class Prior:
    notes: Notebook
    memo: Memo
    artifact_id: str | None = None


async def load_prior(store: Store, collection_id: str, current: str, provider: str) -> Prior:
    """The collection's notes (the newest ended notes artifact that holds them) and the
    newest results kept by a run of this provider."""
    artifacts = [
        a
        for a in await store.artifacts.list(collection_id, limit=SCAN)
        if a.type == TYPE_ID and a.id != current and a.status in FINAL
    ]
    notes = next((a for a in artifacts if _kept(a).get("based") is True), None)
    kept = next((_kept(a) for a in artifacts if _kept(a).get("provider") == provider), {})
    return Prior(
        Notebook.from_items(notes.items) if notes else Notebook(),
        Memo.from_json(kept, provider),
        notes.id if notes else None,
    )


def _kept(artifact: Artifact) -> dict[str, Any]:
    found = artifact.progress.get("notes")
    return found if isinstance(found, dict) else {}
