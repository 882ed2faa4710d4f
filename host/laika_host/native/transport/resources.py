"""Long-lived things a session opens on first use and closes when it ends (the store)."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...store import Store


class Resources:
    def __init__(self) -> None:
        self._stack = AsyncExitStack()
        self._store: Store | None = None
        self._lock = asyncio.Lock()

    async def store(self) -> Store:
        """The session's store, opened (and migrated, and its stale jobs recovered) once."""
        async with self._lock:
            if self._store is None:
                from ...store import open_store

                self._store = await self._stack.enter_async_context(open_store())
            return self._store

    async def aclose(self) -> None:
        await self._stack.aclose()
        self._store = None
