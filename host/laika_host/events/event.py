"""A host event: its name (a rule's trigger) and its payload, with the fields each trigger
carries, so a rule's `$event.<field>` can be checked when the rule is added."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ..config.schema import Trigger
from ..defaults import DEFAULT_COLLECTION

TRIGGER_FIELDS: dict[str, dict[str, Any]] = {
    "source.captured": {
        "source_id": "src_example",
        "url": "https://example.org/page",
        "domain": "example.org",
        "title": "A page",
        "collection": DEFAULT_COLLECTION,
        "collection_id": "col_example",
        "chars": 1200,
        "signals": [],
        "outcome": "new",
    },
    "source.capture_failed": {
        "source_id": "src_example",
        "url": "https://example.org/page",
        "domain": "example.org",
        "collection": DEFAULT_COLLECTION,
        "collection_id": "col_example",
        "error": "the page did not answer",
    },
    "artifact.completed": {
        "artifact_id": "art_example",
        "type": "key-takeaways",
        "collection": DEFAULT_COLLECTION,
        "collection_id": "col_example",
        "status": "completed",
        "items": 3,
    },
    "collection.created": {
        "collection_id": "col_example",
        "title": "Research",
        "collection": "Research",
    },
    "chat.answered": {
        "collection": DEFAULT_COLLECTION,
        "collection_id": "col_example",
        "question": "What is it about?",
        "status": "ok",
        "citations": 2,
        "verified": 2,
    },
}
"""Each trigger's payload fields, with a typical value (what `laika rules test` and the
check at `rules add` substitute when no real event is given)."""


@dataclass(frozen=True)
class Event:
    name: Trigger
    payload: dict[str, Any]
    chain: tuple[str, ...] = field(default=())
    """The rules whose actions emitted this event, outermost first (empty: the user's own
    operation); its length is the event's depth."""

    @property
    def depth(self) -> int:
        return len(self.chain)


MAX_DEPTH = 3
"""Rules an event may pass through: an event emitted by the action of a rule that an event
emitted by a rule's action triggered ... stops here (a rule creating what triggers it)."""

_CHAIN: ContextVar[tuple[str, ...]] = ContextVar("laika_rule_chain", default=())


def current_chain() -> tuple[str, ...]:
    """The rules whose actions are running in this task now (an event emitted now carries
    them: its depth)."""
    return _CHAIN.get()


@contextmanager
def running(chain: tuple[str, ...]) -> Iterator[None]:
    """Mark the actions run inside as `chain`'s (a context variable: concurrent tasks in the
    host keep their own chains)."""
    token = _CHAIN.set(chain)
    try:
        yield
    finally:
        _CHAIN.reset(token)
