"""Where a run's items go as they are made: checked, kept, announced and saved.

Every item a runner emits is verified (`cite.check`), appended, sent as an `item` event, and
the items so far are saved to the artifact at most every `SAVE_INTERVAL` seconds, so a crash
loses at most that much and the next open reports how many were kept. A cancel (a token
checked at each item) stops the runner between items.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from pydantic import JsonValue

from ..agent.verify import PackedSource, SourceIndexes
from ..errors import StoppedError
from ..store import Store
from .cite import check
from .items import CheckedItem, Item

OnEvent = Callable[[str, dict[str, Any]], None]
"""`(event, data)`, what the native layer sends as stream events:

- `progress`: `{artifact_id, stage, items, ...}`; stage `running` (with `type`, `provider`),
  `generating` (with `phase` for a model, and for knowledge-notes also offline with the
  `blocks` the phase is about), `joined` (waiting on an identical run), then the
  final status `completed` | `failed` | `cancelled`.
- `item`: `{artifact_id, index, item}`, `item` a `CheckedItem` as JSON (`kind`, `data`,
  `citations` checked, `verified`, `flag`), one per item in order as it is made.
"""
SAVE_INTERVAL = 0.5
MAX_ITEMS = 500


class RunCancelledError(StoppedError):
    """The run was asked to stop; its items so far are kept."""


class CancelToken:
    """Set from anywhere (another task, a signal handler, a thread) to stop a run."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


class ItemSink:
    def __init__(
        self,
        store: Store,
        artifact_id: str,
        sources: list[PackedSource],
        *,
        on_event: OnEvent | None = None,
        cancel: CancelToken | None = None,
    ) -> None:
        self.store = store
        self.artifact_id = artifact_id
        self.sources = sources
        self.on_event = on_event
        self.cancel = cancel or CancelToken()
        self.items: list[CheckedItem] = []
        self.stage = "pending"
        self.capped = False
        self.resume: dict[str, JsonValue] = {}
        """Kept in the artifact's progress: what a later run continues from (staged types)."""
        self._saved_at = 0.0
        self._saved = 0  # items already in the artifact
        self._indexes = SourceIndexes()

    async def add(self, item: Item) -> None:
        if self.cancel.cancelled:
            raise RunCancelledError
        if len(self.items) >= MAX_ITEMS:
            self.capped = True
            return
        checked = check(item, self.sources, self._indexes)
        self.items.append(checked)
        self.emit("item", {"index": len(self.items) - 1, "item": checked.model_dump(mode="json")})
        if time.monotonic() - self._saved_at >= SAVE_INTERVAL:
            await self.save()

    def progress(self, stage: str, **data: Any) -> None:
        self.stage = stage
        self.emit("progress", {"stage": stage, "items": len(self.items), **data})

    def emit(self, event: str, data: dict[str, Any]) -> None:
        if self.on_event is not None:
            self.on_event(event, {"artifact_id": self.artifact_id, **data})

    def dumped(self) -> list[dict[str, JsonValue]]:
        return [item.model_dump(mode="json") for item in self.items]

    def state(self) -> dict[str, JsonValue]:
        verified = sum(item.verified for item in self.items)
        state: dict[str, JsonValue] = {
            "stage": self.stage,
            "items": len(self.items),
            "verified": verified,
        }
        return state | self.resume

    async def save(self) -> None:
        """Append the items made since the last save (and the progress) to the artifact. A
        save a cancel cut short is not counted, so the next one writes those items again
        (the store appends only onto the list it expects, else everything is rewritten)."""
        self._saved_at = time.monotonic()
        count, progress = len(self.items), self.state()
        new = [item.model_dump(mode="json") for item in self.items[self._saved : count]]
        artifacts = self.store.artifacts
        if not await artifacts.append_items(
            self.artifact_id, new, start=self._saved, progress=progress
        ):
            await artifacts.replace_items(
                self.artifact_id, self.dumped()[:count], progress=progress
            )
        self._saved = count
