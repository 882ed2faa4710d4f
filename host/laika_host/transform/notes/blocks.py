"""The blocks the notes are made from: each source's prose paragraphs and lists.

A block's id is its source id and its index among the stored Markdown's blocks
(`src_x#4`), stable while the source is; its digest (of its text) tells a later run whether
the block is still the one it classified and reworded. Each block keeps its evidence
sentences verbatim (what a statement quotes) and the nearest heading above it (where a
statement is filed when nothing better is known).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ...llm.evidence import block_sentences, blocks
from ..corpus import Corpus, SourceDoc

MAX_BLOCK_CHARS = 1500
"""A block is shown to a model up to this many characters."""


@dataclass(frozen=True)
class Block:
    id: str
    source_id: str
    heading: str
    text: str
    sentences: tuple[str, ...]
    digest: str

    @property
    def key(self) -> str:
        """What a result is remembered under: the block as it is now."""
        return f"{self.id}@{self.digest}"

    def shown(self) -> str:
        return " ".join(self.text.split())[:MAX_BLOCK_CHARS]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def source_blocks(source: SourceDoc) -> list[Block]:
    found: list[Block] = []
    heading = source.title
    for index, block in enumerate(blocks(source.markdown or source.text, source.title)):
        if block.kind == "heading" and block.text.strip():
            heading = block.text.strip()
            continue
        sentences = tuple(block_sentences(block))
        if sentences:
            found.append(
                Block(
                    f"{source.source_id}#{index}",
                    source.source_id,
                    heading,
                    block.text,
                    sentences,
                    digest(block.text),
                )
            )
    return found


def corpus_blocks(corpus: Corpus) -> list[Block]:
    return [block for source in corpus.sources for block in source_blocks(source)]
