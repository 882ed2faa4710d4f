"""What a transform type is: data, not code paths.

A `TransformType` names its config model (defaults, validation and JSON Schema for free), its
item model (the output contract, one item per NDJSON line), the task text of its prompt, how
its items are laid out in Markdown, and its runners. The offline runner is a heuristic over
the sources' sentences; the model runner defaults to one NDJSON phase (`model_run.py`). A
multi-phase type (knowledge notes, spec 001) plugs in its own model runner: it gets the same
`ModelContext` (stream a phase's items, emit items, report progress) and the engine does the
rest (verification, storage, events, cancellation). A type that continues from its earlier
artifacts (the collection's notes) sets `staged` instead: one runner for both runtimes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..errors import RefusedError
from .config import TransformConfig
from .items import Item

if TYPE_CHECKING:
    from .corpus import Corpus
    from .model_run import ModelContext
    from .staged import StagedRun

Layout = Literal[
    "paragraphs",
    "bullets",
    "sections",
    "qa",
    "glossary",
    "timeline",
    "table",
    "comparison",
    "pros_cons",
    "actions",
    "cards",
    "quiz",
    "tree",
    "slides",
    "script",
    "email",
    "references",
    "notes",
    "parts",
]
OfflineRunner = Callable[["Corpus", Any], Iterable[Item]]
ModelRunner = Callable[["ModelContext"], Awaitable[None]]
Instructions = Callable[[Any], str]
StagedRunner = Callable[["StagedRun"], Awaitable[None]]
Conform = Callable[[Any, Any, Callable[[str], None]], Any]
"""`(item, config, note) -> item or None`: a model's item made to keep the config (the
columns chosen, the hosts named), or None to leave it out; `note` records why, once."""


class NotReadyError(RefusedError):
    """The type is registered but cannot run yet; the message says what is coming."""


@dataclass(frozen=True)
class TransformType:
    id: str
    title: str
    description: str
    config: type[TransformConfig]
    item: type[Item]
    layout: Layout
    instructions: Instructions
    offline: OfflineRunner | None = None
    """None: the type needs a model, and `needs_model` says why."""
    needs_model: str | None = None
    """Why the offline runtime does not make this type (its heuristics wrote items a reader
    would reject): a run without a model is refused with this reason."""
    model: ModelRunner | None = None
    """None: the generic single-phase NDJSON runner."""
    staged: StagedRunner | None = None
    """Set for a type whose run builds on what earlier runs stored (knowledge notes): it runs
    instead of `offline` / `model`, with the store and the model context (None offline)."""
    deterministic: bool = False
    """Built from stored data alone: no model is asked even when a provider is given."""
    coming: str | None = None
    """Set for a placeholder: what is coming (its runners raise `NotReadyError`)."""
    conform: Conform | None = None
    """Set for a type whose config names what its items hold (a list of aspects, columns or
    hosts): each item a model gives is made to keep it (see `Conform`)."""

    def __post_init__(self) -> None:
        made = self.offline is not None or self.staged is not None
        if made == (self.needs_model is not None):
            raise ValueError(f"{self.id}: give an offline runner or the reason it needs a model")

    @property
    def ready(self) -> bool:
        return self.coming is None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "description": self.description,
            "item_kind": self.item.kind,
            "layout": self.layout,
            "deterministic": self.deterministic,
            "ready": self.ready,
            "needs_model": self.needs_model,
            "config_schema": self.config.model_json_schema(),
            "item_schema": self.item.prompt_schema(),
        }
