"""Integration decisions buffered per block, at most `CAP` per block and target page.

Spec 001: every decision for a knowledge block is waited for before any is applied, and a
block gets at most two decisions per target page. Decisions arrive as a stream; a block's
decisions are complete when a line for another block comes, or the stream ends. A stream
that breaks leaves its last block incomplete: `close(complete=False)` drops it, so a later
run asks for it again instead of applying half of it. One pass, O(1) per decision.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .models import IntegrationDecisionChunk

CAP = 2


@dataclass
class DecisionBuffer:
    page: str
    """The notes page's name: decisions naming another page are dropped."""
    cap: int = CAP
    over_cap: int = 0
    elsewhere: int = 0
    _counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    _block: str | None = None
    _held: list[IntegrationDecisionChunk] = field(default_factory=list)

    def add(
        self, decision: IntegrationDecisionChunk
    ) -> list[tuple[str, list[IntegrationDecisionChunk]]]:
        """Take one decision; the blocks whose decisions it completed."""
        done = []
        if decision.knowledge_block_id != self._block and self._block is not None:
            done.append((self._block, self._held))
            self._held = []
        self._block = decision.knowledge_block_id
        if _page(decision.target_page) != _page(self.page):
            self.elsewhere += 1
            return done
        pair = (decision.knowledge_block_id, _page(decision.target_page))
        self._counts[pair] += 1
        if self._counts[pair] > self.cap:
            self.over_cap += 1
        else:
            self._held.append(decision)
        return done

    def close(self, *, complete: bool = True) -> list[tuple[str, list[IntegrationDecisionChunk]]]:
        block, held = self._block, self._held
        self._block, self._held = None, []
        return [(block, held)] if block is not None and complete else []

    def notes(self) -> list[str]:
        found = []
        if self.over_cap:
            found.append(
                f"{self.over_cap} integration decision(s) beyond {self.cap} per block and "
                "page were dropped"
            )
        if self.elsewhere:
            found.append(
                f"{self.elsewhere} integration decision(s) named a page other than "
                f"“{self.page}” and were dropped"
            )
        return found


def _page(name: str) -> str:
    return " ".join(name.split()).casefold()
