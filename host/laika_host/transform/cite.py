"""Each item's citations checked against the stored text of its sources, as chat answers are.

An item is `verified` only when it has at least one citation and every one of them verifies
(`agent/verify.py`: the quote's words are in the named source's stored text). Anything less
is kept and flagged with the reason, never shown as verified.
"""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

from ..agent.verify import PackedSource, SourceIndexes, verify_citations
from .corpus import SourceDoc
from .items import CheckedItem, Item

NO_CITATION = "unverified: the item cites no source"


def packed(sources: list[SourceDoc]) -> list[PackedSource]:
    """The sources as verification reads them (the full stored text of each)."""
    return [
        PackedSource(
            doc_id=f"src:{source.source_id}",
            source_id=source.source_id,
            url=source.url,
            text=source.text,
            markdown=source.markdown,
            title=source.title,
        )
        for source in sources
    ]


def check(
    item: Item, sources: list[PackedSource], indexes: SourceIndexes | None = None
) -> CheckedItem:
    """`indexes`: shared by the items of one run, so each source is indexed once."""
    claimed: list[dict[str, Any]] = [c.model_dump() for c in item.citations]
    verification = verify_citations(claimed, sources, indexes=indexes)
    citations: list[dict[str, JsonValue]] = [c.to_json() for c in verification.citations]
    verified = bool(citations) and verification.all_verified
    flag = None
    if not citations:
        flag = NO_CITATION
    elif not verified:
        flag = next(c.reason for c in verification.citations if not c.verified)
    return CheckedItem(
        kind=item.kind, data=item.data(), citations=citations, verified=verified, flag=flag
    )
