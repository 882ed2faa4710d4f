"""The knowledge-notes pipeline (spec 001): classify, reword, integrate; then the notes.

It starts from the collection's notes and the results kept by earlier runs (`memo.py`), asks
only about blocks with no result yet (block id + content digest), and records each result as
it comes. Decisions are buffered per block and applied when the block's are complete
(`decisions.py`). At the end the whole notes become the artifact's items, section by section,
each verified like any item. A run whose stream broke keeps what it has and fails with the
reason, so the next run is not the same artifact reused but a continuation.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..corpus import Corpus
from ..items import Cited, Note
from ..model_run import ModelFailedError
from ..sink import MAX_ITEMS
from ..staged import StagedRun
from . import offline
from .blocks import Block, corpus_blocks
from .decisions import DecisionBuffer
from .memo import Memo, load_prior
from .models import ContentRewordingChunk, IntegrationDecisionChunk
from .notebook import Notebook, Statement, apply_block, norm
from .offline import MAX_STATEMENTS, topic
from .runtime import ModelRuntime, Runtime, batches

MAX_CITATIONS = 2


class Pipeline:
    def __init__(self, run: StagedRun, runtime: Runtime, book: Notebook, memo: Memo) -> None:
        self.run = run
        self.runtime = runtime
        self.book = book
        self.memo = memo
        self.blocks = corpus_blocks(run.corpus)
        self.page = run.corpus.title
        self.unknown = 0
        self.over_cap = self.elsewhere = self.waiting = 0
        memo.keep_only(self.blocks)
        self.removed = book.keep_sources({source.source_id for source in run.corpus.sources})

    async def checkpoint(self, *, based: bool = False) -> None:
        self.run.sink.resume = {"notes": self.memo.to_json(based)}
        await self.run.sink.save()

    def batches(self, pending: list[Block], phase: str) -> Iterator[list[Block]]:
        return batches(pending, self.runtime.per_batch(phase), self.runtime.max_chars)

    def stage(self, phase: str, count: int) -> None:
        self.run.sink.progress("generating", phase=phase, blocks=count)

    async def classify(self) -> None:
        pending = [b for b in self.blocks if self.memo.entry(b).knowledge is None]
        self.stage("classify", len(pending))
        for batch in self.batches(pending, "classify"):
            asked = {block.id: block for block in batch}
            async for chunk in self.runtime.classify(batch):
                block = asked.get(chunk.block_id)
                if block is None:
                    self.unknown += 1
                    continue
                entry = self.memo.entry(block)
                entry.knowledge, entry.confidence = chunk.is_knowledge, chunk.confidence
                entry.reason = chunk.reason
            if self.runtime.complete:  # spec 001: a block left out is activity
                for block in batch:
                    entry = self.memo.entry(block)
                    if entry.knowledge is None:
                        entry.knowledge, entry.reason = False, "left out by the classifier"
            await self.checkpoint()
            if self.runtime.stopped:
                return

    async def reword(self) -> None:
        pending = [
            b
            for b in self.blocks
            if self.memo.entry(b).knowledge and self.memo.entry(b).statements is None
        ]
        self.stage("reword", len(pending))
        for batch in self.batches(pending, "reword"):
            asked = {block.id: block for block in batch}
            async for chunk in self.runtime.reword(batch):
                block = asked.get(chunk.block_id)
                if block is None:
                    self.unknown += 1
                    continue
                _add_statement(self.memo, block, chunk)
            if self.runtime.complete:
                for block in batch:
                    entry = self.memo.entry(block)
                    entry.statements = entry.statements or []
            await self.checkpoint()
            if self.runtime.stopped:
                return

    async def integrate(self) -> None:
        pending = [
            b
            for b in self.blocks
            if self.memo.entry(b).statements and not self.memo.entry(b).integrated
        ]
        self.stage("integrate", len(pending))
        for batch in self.batches(pending, "integrate"):
            await self._integrate(batch)
            await self.checkpoint()
            if self.runtime.stopped:
                return

    async def _integrate(self, batch: list[Block]) -> None:
        asked = {block.id: block for block in batch}
        work = [(block, self.memo.entry(block).statements or []) for block in batch]
        buffer = DecisionBuffer(self.page)
        applied: set[str] = set()
        async for chunk in self.runtime.integrate(work, self.book, self.page):
            for block_id, decisions in buffer.add(chunk):
                self._apply(asked.get(block_id), decisions, applied)
            if self.runtime.one_by_one:  # its next decision reads the notes as they are now
                for block_id, decisions in buffer.close():
                    self._apply(asked.get(block_id), decisions, applied)
        for block_id, decisions in buffer.close(complete=self.runtime.complete):
            self._apply(asked.get(block_id), decisions, applied)
        self.over_cap += buffer.over_cap
        self.elsewhere += buffer.elsewhere
        if self.runtime.complete:  # a block with no decision: filed by the heuristic
            for block in batch:
                if block.id not in applied:
                    self._apply(block, [], applied)

    def _apply(
        self, block: Block | None, decisions: list[IntegrationDecisionChunk], applied: set[str]
    ) -> None:
        if block is None:
            self.unknown += 1
            return
        entry = self.memo.entry(block)
        statements = entry.statements or []
        if len(self.book) + len(statements) > MAX_ITEMS:
            self.waiting += 1  # stays pending: nothing is dropped, the user is told
            return
        apply_block(self.book, statements, decisions, topic(block), again=block.id in applied)
        applied.add(block.id)
        entry.integrated = True

    def warnings(self) -> list[str]:
        found = DecisionBuffer(self.page, over_cap=self.over_cap, elsewhere=self.elsewhere).notes()
        if self.waiting:
            found.append(
                f"the notes are full ({MAX_ITEMS} statements): {self.waiting} block(s) wait "
                "to be integrated; split the collection to note them"
            )
        if self.removed:
            found.append(f"{self.removed} statement(s) of sources no longer here were removed")
        if self.unknown:
            found.append(
                f"{self.unknown} line(s) named a block that was not asked about and were skipped"
            )
        return found

    def why_empty(self) -> str:
        entries = [self.memo.entry(block) for block in self.blocks]
        if not any(entry.knowledge for entry in entries):
            return "it found no lasting knowledge in any block"
        return "it wrote no valid statement for the blocks it found knowledge in"

    async def emit(self) -> None:
        """The notes as the artifact's items (each verified by the sink)."""
        for note in self.book.notes():
            await self.run.sink.add(note)
        await self.checkpoint(based=True)


def _add_statement(memo: Memo, block: Block, chunk: ContentRewordingChunk) -> None:
    entry = memo.entry(block)
    entry.statements = entry.statements or []
    text = " ".join(chunk.reworded_content.split())
    if len(entry.statements) >= MAX_STATEMENTS or any(
        norm(s.text) == norm(text) for s in entry.statements
    ):
        return
    citations = [c for c in chunk.citations if c.source_id == block.source_id][:MAX_CITATIONS]
    entry.statements.append(Statement(text, block.key, citations or [_nearest(block, text)]))


def _nearest(block: Block, text: str) -> Cited:
    """The block's sentence sharing most words with the statement: what it was made from."""
    wanted = set(norm(text).split())
    best = max(block.sentences, key=lambda s: len(wanted & set(norm(s).split())))
    return Cited(source_id=block.source_id, quote=best)


async def run_notes(run: StagedRun) -> None:
    """The staged runner of `knowledge-notes`, offline or with a model."""
    sink = run.sink
    prior = await load_prior(
        sink.store, run.corpus.collection_id, sink.artifact_id, run.provider_label
    )
    kept = bool(prior.memo.entries) or len(prior.notes) > 0
    runtime = Runtime() if run.model is None else ModelRuntime(run.model, kept)
    pipeline = Pipeline(run, runtime, prior.notes, prior.memo)
    for phase in (pipeline.classify, pipeline.reword, pipeline.integrate):
        await phase()
        if runtime.stopped:
            break
    run.corpus.notes.extend(pipeline.warnings())
    await pipeline.emit()
    if runtime.stopped:
        raise ModelFailedError(runtime.reason)  # failed, not reused: the next run continues
    if run.model is not None and not len(pipeline.book):
        raise ModelFailedError(
            f"{run.model.provider.id} gave no usable knowledge note ({pipeline.why_empty()}). "
            "Run it again, try a larger model, or use the offline runtime (provider `offline`, "
            "always available)"
        )


def offline_notes(corpus: Corpus, _config: object) -> list[Note]:
    """The notes the offline heuristics make from `corpus` alone (no earlier notes): what
    `TransformType.offline` gives for callers without a store."""
    book = Notebook()
    for block in corpus_blocks(corpus):
        if not offline.classify(block).is_knowledge:
            continue
        statements = [
            Statement(c.reworded_content, block.key, c.citations) for c in offline.reword(block)
        ]
        title = topic(block)
        decision = offline.integrate(block, False, book, corpus.title, title)
        apply_block(book, statements, [decision], title)
    return book.notes()
