"""The three NDJSON phases of spec 001 as pydantic models, one line each.

They are `Item`s so the engine's phase streaming (`ModelContext.phase`, `NdjsonItems`)
validates them line by line like any transform item; only a rewording cites (the stored
words its statement rests on). Fields are bounded: a model that writes a 1 MB reason gets
the line refused, not kept.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, StringConstraints

from ..items import Item, Long, Short

BlockId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=120)]
Reason = Annotated[str, StringConstraints(strip_whitespace=True, max_length=1000)]


class KnowledgeClassificationChunk(Item):
    """Phase 1: whether a block holds lasting knowledge (true) or activity (false)."""

    kind: ClassVar[str] = "classification"
    block_id: BlockId = Field(description="Block identifier from input.")
    is_knowledge: bool = Field(description="Lasting knowledge (true) or activity (false).")
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence score (0.0-1.0).")
    reason: Reason = Field(description="Why this is (or is not) knowledge.")


class ContentRewordingChunk(Item):
    """Phase 2: one evergreen statement made from a knowledge block."""

    kind: ClassVar[str] = "rewording"
    block_id: BlockId = Field(description="Block identifier from input.")
    reworded_content: Long = Field(description="The statement, temporal context removed.")


class IntegrationDecisionChunk(Item):
    """Phase 3: where a block's statements go in the collection's notes."""

    kind: ClassVar[str] = "decision"
    knowledge_block_id: BlockId = Field(description="Block ID of the knowledge integrated.")
    target_page: Short = Field(description="Target page name (the collection's notes).")
    action: Literal["add_section", "add_under", "replace"]
    target_block_id: Short | None = Field(
        default=None, description="Section id (add_under) or statement id (replace)."
    )
    target_block_title: Short | None = Field(
        default=None, description="Section title (the new section's, for add_section)."
    )
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: Reason = ""


PHASES: dict[str, type[Item]] = {
    "classify": KnowledgeClassificationChunk,
    "reword": ContentRewordingChunk,
    "integrate": IntegrationDecisionChunk,
}
