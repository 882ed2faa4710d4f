"""Who answers each phase: the model (NDJSON streams through `ModelContext.phase`) or the
offline heuristics. Both yield the phase's pydantic chunks, so everything after (memo,
buffering, caps, notes) is one code path.

After each stream `complete` says whether it ended cleanly (a block it did not mention is
then settled: activity, no statement, or filed by the heuristic); a broken stream
(`stopped`) ends the model's part of the run: what came is kept, the artifact fails with the
reason (so it is not reused) and the next run continues from it. A model that gives nothing
usable before anything was kept fails the run with the reason, like every type.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from typing import TypeVar

from ...agent.flows import context_window
from ..items import Item
from ..model_run import ModelContext, ModelFailedError
from . import offline, prompts
from .blocks import Block
from .models import ContentRewordingChunk, IntegrationDecisionChunk, KnowledgeClassificationChunk
from .notebook import Notebook, Statement

T = TypeVar("T", bound=Item)
CUT = "max_tokens"  # a reply cut at max_tokens: the rest of the batch is asked next run
TOKENS_PER_LINE = {"classify": 70, "reword": 110, "integrate": 110}
MAX_BATCH_CHARS = 6000
MIN_BATCH_CHARS = 600
PROMPT_TOKENS = 700  # the phase's instructions and schema, and a margin
CHARS_PER_TOKEN = 3  # on the low side for prose: a batch errs on fitting


class Runtime:
    """The offline runtime: every phase answered by `offline.py`, all blocks at once."""

    complete = True
    stopped = False
    reason = ""
    one_by_one = True
    """Each block's decision is made against the notes with the blocks before it applied."""

    max_chars = 1 << 62  # the heuristics take every block in one batch

    def per_batch(self, _phase: str) -> int:
        return 1 << 62

    async def classify(self, batch: list[Block]) -> AsyncIterator[KnowledgeClassificationChunk]:
        for block in batch:
            yield offline.classify(block)

    async def reword(self, batch: list[Block]) -> AsyncIterator[ContentRewordingChunk]:
        for block in batch:
            for chunk in offline.reword(block):
                yield chunk

    async def integrate(
        self, batch: list[tuple[Block, list[Statement]]], book: Notebook, page: str
    ) -> AsyncIterator[IntegrationDecisionChunk]:
        """One block at a time against the notes as they are when it comes (the pipeline
        applies each block's decisions before asking for the next)."""
        for block, _statements in batch:
            before = bool(book.of_block(block.id))
            yield offline.integrate(block, before, book, page, offline.topic(block))


class ModelRuntime(Runtime):
    def __init__(self, context: ModelContext, kept_before: bool) -> None:
        self.context = context
        self.one_by_one = False
        self.anything = kept_before  # something to keep if the model fails now
        spare = context_window(context.provider) - context.max_tokens - PROMPT_TOKENS
        self.max_chars = max(MIN_BATCH_CHARS, min(MAX_BATCH_CHARS, spare * CHARS_PER_TOKEN))

    def per_batch(self, phase: str) -> int:
        return max(1, self.context.max_tokens // TOKENS_PER_LINE[phase])

    async def classify(self, batch: list[Block]) -> AsyncIterator[KnowledgeClassificationChunk]:
        aliases = _aliases(batch)
        system, user = prompts.classify(list(aliases.items()))
        async for chunk in self._stream(KnowledgeClassificationChunk, system, user, "classify"):
            yield chunk.model_copy(update={"block_id": _real(aliases, chunk.block_id)})

    async def reword(self, batch: list[Block]) -> AsyncIterator[ContentRewordingChunk]:
        aliases = _aliases(batch)
        system, user = prompts.reword(list(aliases.items()))
        async for chunk in self._stream(ContentRewordingChunk, system, user, "reword"):
            yield chunk.model_copy(update={"block_id": _real(aliases, chunk.block_id)})

    async def integrate(
        self, batch: list[tuple[Block, list[Statement]]], book: Notebook, page: str
    ) -> AsyncIterator[IntegrationDecisionChunk]:
        aliases = _aliases([block for block, _ in batch])
        shown = [(alias, block, made) for alias, (block, made) in zip(aliases, batch, strict=True)]
        system, user = prompts.integrate(shown, page, book.outline(self.max_chars // 2))
        async for chunk in self._stream(IntegrationDecisionChunk, system, user, "integrate"):
            real = _real(aliases, chunk.knowledge_block_id)
            yield chunk.model_copy(update={"knowledge_block_id": real})

    async def _stream(self, model: type[T], system: str, user: str, phase: str) -> AsyncIterator[T]:
        self.complete = False
        context = self.context
        try:
            async with aclosing(context.phase(model, system, user, phase=phase)) as items:
                async for item in items:
                    self.anything = True
                    yield item
        except ModelFailedError as failure:
            if not self.anything:
                raise  # nothing at all to keep: the run fails with the reason and the fix
            context.partial = True
            if context.problem is None:  # a reply with no valid line: this batch only
                context.warnings.append(f"{phase}: {failure}")
                # blocks left unclassified or unreworded are asked again next run; blocks
                # with no decision are filed by the heuristic, as when a model omits them
                self.complete = phase == "integrate"
                return
            self._stop(phase, context.problem)
            return
        problem = context.problem
        self.complete = problem is None
        if problem is not None and CUT not in problem:
            self._stop(phase, problem)

    def _stop(self, phase: str, problem: str) -> None:
        """The connection broke: no more requests; what came is kept for the next run."""
        self.stopped = True
        self.reason = (
            f"{self.context.provider.id} gave no usable reply past a break in the {phase} "
            f"phase ({problem}); what came before is kept and the next run continues from "
            "it. Run it again, or use the offline runtime (provider `offline`)"
        )


def _aliases(batch: list[Block]) -> dict[str, Block]:
    return {f"b{number}": block for number, block in enumerate(batch, start=1)}


def _real(aliases: dict[str, Block], shown: str) -> str:
    """The block id behind a short id (a model that wrote the real id is understood too)."""
    found = aliases.get(shown.strip().lower())
    return found.id if found is not None else shown


def batches(blocks: list[Block], size: int, max_chars: int) -> Iterator[list[Block]]:
    """Consecutive batches of at most `size` blocks and `max_chars` characters."""
    batch: list[Block] = []
    chars = 0
    for block in blocks:
        length = len(block.shown())
        if batch and (len(batch) >= size or chars + length > max_chars):
            yield batch
            batch, chars = [], 0
        batch.append(block)
        chars += length
    if batch:
        yield batch
