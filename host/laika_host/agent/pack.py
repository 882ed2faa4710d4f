"""Packing: sources and pages become LLMCP context documents within a model's token budget.

A collection becomes one `collection.index.v1` (every source's id, URL and title) plus one
`collection.source.v1` per source that fits. Over budget, the sources most relevant to the
question (FTS5 bm25) go in full, the next tier as summaries, the rest as titles only (in the
index), and the pack says what was left out. A page becomes one
`web.observation.summary.v1`, plus `web.observation.chunk.v1` documents when it is long.
Every document is `trust: "untrusted"`, doc_ids are stable (`src:<id>`, `page:<hash>`), and
only stored, sanitized Markdown goes in, redacted once more on its way out (`laika_host.redact`):
no cookies, credentials or raw HTML.

A document's cost is measured on the text the prompt will carry, in the pack's format
(`context_format`: JSON or compact LLMX), so a smaller format fits more source text in the
same budget rather than only shortening the prompt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..capture.bounds import TRUNCATION_MARKER
from ..llm.config import ContextFormat
from ..redact import redact_text, redact_url, redact_value, redaction_stamp
from .context_format import document_text
from .verify import PackedSource

CHARS_PER_TOKEN = 3  # conservative: prose runs 3.5-4.5 characters per token
FULL_SHARE = 0.7  # of the budget for full sources; the rest goes to summaries
INDEX_SHARE = 0.3  # at most this much of the budget lists titles
Tier = Literal["full", "passages", "summary", "title"]


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class SourceText:
    """What the packer needs of a stored source (the store's row, read once)."""

    source_id: str
    url: str
    title: str
    markdown: str
    text: str
    summary: str
    captured_at: str | None = None
    relevance: float = 0.0  # higher is more relevant
    redacted_with: str | None = None  # the redaction its row had (`redaction_stamp`)

    def redacted(self) -> bool:
        """Whether its stored text had the current redaction: nothing to redact again."""
        return self.redacted_with is not None and self.redacted_with == redaction_stamp()


@dataclass
class Pack:
    documents: list[dict[str, Any]] = field(default_factory=list)
    sources: list[PackedSource] = field(default_factory=list)  # what citations may name
    tiers: dict[str, Tier] = field(default_factory=dict)
    tokens: int = 0
    budget: int = 0
    unlisted: int = 0  # sources not even listed by title (over the index's share)
    listed: set[str] = field(default_factory=set)  # the sources the index lists
    unsent: int = 0  # sources the packer did not even read (not in `tiers`)

    @property
    def left_out(self) -> dict[str, list[str]]:
        """Sources sent in part: their matching passages, summaries, or titles only."""
        return {
            "passages": [s for s, tier in self.tiers.items() if tier == "passages"],
            "summaries": [s for s, tier in self.tiers.items() if tier == "summary"],
            "titles_only": [
                s for s, tier in self.tiers.items() if tier == "title" and s in self.listed
            ],
        }

    def note(self) -> str | None:
        """What a model's answer must admit about the pack it was sent, for the user (the
        offline runtime reads no prompt: `offline_note`)."""
        left = self.left_out
        if not any(left.values()):
            return None
        parts = [
            f"{count(len(left['passages']), 'source')} as the passages that match the question"
            if left["passages"]
            else "",
            f"{count(len(left['summaries']), 'source')} as summaries" if left["summaries"] else "",
            f"{count(len(left['titles_only']), 'source')} as titles only"
            if left["titles_only"]
            else "",
        ]
        note = "Sent in part, to fit the model's context: " + _listed([p for p in parts if p])
        if self.unlisted:
            verb = "was" if self.unlisted == 1 else "were"
            note += f"; {count(self.unlisted, 'more source')} {verb} not sent at all"
        return note + "."

    def offline_note(self) -> str | None:
        """What the offline runtime's answer must admit: it reads the full stored text of
        every source the pack took (a summary tier is still read whole), none of the rest."""
        left = len(self.left_out["titles_only"]) + self.unlisted
        if not left:
            return None
        read = len({s.source_id for s in self.sources})
        return (
            f"the offline runtime read the {read} most relevant of {read + left} sources; "
            f"{left} were left out to bound its work: ask about them by name to bring them in"
        )


def count(number: int, noun: str) -> str:
    """`1 source`, `3 sources`."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _listed(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def pack_collection(
    collection_id: str,
    collection_title: str,
    sources: list[SourceText],
    *,
    budget_tokens: int,
    context_format: ContextFormat = "json",
) -> Pack:
    """Index + the most relevant sources in full, then summaries, then titles only."""
    pack = Pack(budget=budget_tokens)
    ranked = sorted((redacted_labels(s) for s in sources), key=lambda s: -s.relevance)
    listed = index_entries(ranked, int(budget_tokens * INDEX_SHARE))
    pack.unlisted = len(ranked) - len(listed)
    pack.listed = {s.source_id for s in listed}
    index = index_document(collection_id, collection_title, listed)
    pack.tokens = estimate_tokens(document_text(index, context_format))
    full_budget = int(budget_tokens * FULL_SHARE)  # leave room for the next tier's summaries
    for source in ranked:
        full = _Candidate(collection_id, source, "full", context_format)
        pack.tiers[source.source_id] = _take(pack, full, full_budget)
    for source in ranked:
        if pack.tiers[source.source_id] == "title":
            summary = _Candidate(collection_id, source, "summary", context_format)
            pack.tiers[source.source_id] = _take(pack, summary, budget_tokens)
    chosen = [
        (redacted_bodies(s), pack.tiers[s.source_id])
        for s in ranked
        if pack.tiers[s.source_id] != "title"
    ]
    pack.documents = [index] + [source_document(collection_id, s, tier) for s, tier in chosen]
    pack.sources = [packed_source(s) for s, _ in chosen]
    return pack


def redacted_labels(source: SourceText) -> SourceText:
    """Rows written under another redaction (a secret name added since, an older Laika's
    rules, or no stamp) are redacted on their way to a model: the URL and title of every
    source listed or sent ..."""
    if source.redacted():
        return source
    return replace(source, url=redact_url(source.url), title=redact_text(source.title))


def redacted_bodies(source: SourceText) -> SourceText:
    """... and the bodies of the sources that fit the budget (only those are sent)."""
    if source.redacted():
        return source
    return replace(
        source,
        markdown=redact_text(source.markdown),
        text=redact_text(source.text),
        summary=redact_text(source.summary),
    )


@dataclass(frozen=True)
class _Candidate:
    """A source at a tier, as a document the pack may take."""

    collection_id: str
    source: SourceText
    tier: Tier
    context_format: ContextFormat

    @property
    def body(self) -> str:
        return self.source.markdown if self.tier == "full" else self.source.summary

    def cost(self) -> int:
        """Tokens of the document as the prompt writes it (keys, ids, escapes included)."""
        document = source_document(self.collection_id, self.source, self.tier)
        return estimate_tokens(document_text(document, self.context_format))


def _take(pack: Pack, candidate: _Candidate, limit: int) -> Tier:
    """The candidate's tier if it has text and fits under `limit` (and is counted), else
    title only."""
    if not candidate.body or pack.tokens + estimate_tokens(candidate.body) > limit:
        return "title"  # the body alone is over: no need to write the document out
    cost = candidate.cost()
    if pack.tokens + cost <= limit:
        pack.tokens += cost
        return candidate.tier
    return "title"


def index_entries(ranked: list[SourceText], limit: int) -> list[SourceText]:
    """The most relevant sources whose index lines fit `limit` tokens (a small model's
    context cannot hold the titles of a thousand sources)."""
    listed: list[SourceText] = []
    used = 0
    for source in ranked:
        used += estimate_tokens(source.source_id + source.url + source.title) + 12
        if used > limit and listed:
            break
        listed.append(source)
    return listed


def index_document(collection_id: str, title: str, sources: list[SourceText]) -> dict[str, Any]:
    entries = [
        {"source_id": s.source_id, "url": s.url, "title": s.title}
        | ({"captured_at": s.captured_at} if s.captured_at else {})
        for s in sources
    ]
    return {
        "doc_id": f"index:{collection_id}",
        "kind": "collection.index.v1",
        "trust": "untrusted",
        "content": {
            "doc_type": "collection.index.v1",
            "collection_id": collection_id,
            "title": title,
            "sources": entries,
        },
    }


def source_document(collection_id: str, source: SourceText, tier: Tier) -> dict[str, Any]:
    markdown = source.markdown if tier == "full" else f"{source.summary}\n\n{TRUNCATION_MARKER}"
    content: dict[str, Any] = {
        "doc_type": "collection.source.v1",
        "collection_id": collection_id,
        "source_id": source.source_id,
        "url": source.url,
        "title": source.title,
        "markdown": markdown,
    }
    if source.captured_at:
        content["captured_at"] = source.captured_at
    return {
        "doc_id": f"src:{source.source_id}",
        "kind": "collection.source.v1",
        "trust": "untrusted",
        "content": content,
    }


def packed_source(source: SourceText) -> PackedSource:
    """What a citation is checked against: the full stored text, whatever the tier sent
    (a quote from a summary is also in the full text)."""
    return PackedSource(
        doc_id=f"src:{source.source_id}",
        source_id=source.source_id,
        url=source.url,
        text=source.text,
        markdown=source.markdown,
        title=source.title,
    )


def pack_page(
    *,
    url: str,
    title: str,
    markdown: str,
    text: str,
    summary: str,
    chunks: list[str],
    content_hash: str,
    signals: list[str],
    links: list[dict[str, Any]],
    captured_at: str | None = None,
    source_id: str | None = None,
) -> Pack:
    """One observed page: a summary document, plus chunk documents when it is long."""
    url, title, markdown, text = (
        redact_url(url),
        redact_text(title),
        redact_text(markdown),
        redact_text(text),
    )
    summary, chunks = redact_text(summary), [redact_text(chunk) for chunk in chunks]
    links = redact_value(links)
    page_id = f"page:{content_hash[:16]}"
    long = len(chunks) > 1
    summary_content: dict[str, Any] = {
        "doc_type": "web.observation.summary.v1",
        "url": url,
        "title": title,
        "markdown": summary if long else markdown,
        "extracted_links": links,
        "signals": signals,
    }
    if captured_at:
        summary_content["captured_at"] = captured_at
    documents: list[dict[str, Any]] = [
        {
            "doc_id": page_id,
            "kind": "web.observation.summary.v1",
            "trust": "untrusted",
            "content": summary_content,
        }
    ]
    if long:
        documents += [
            {
                "doc_id": f"{page_id}:chunk:{number}",
                "kind": "web.observation.chunk.v1",
                "trust": "untrusted",
                "content": {
                    "doc_type": "web.observation.chunk.v1",
                    "url": url,
                    "title": title,
                    "chunk_index": number,
                    "chunk_count": len(chunks),
                    "markdown": chunk,
                },
            }
            for number, chunk in enumerate(chunks, start=1)
        ]
    packed = PackedSource(page_id, source_id, url, text, markdown, title)
    aliases = [replace(packed, doc_id=d["doc_id"]) for d in documents[1:]]  # chunks cite too
    pack = Pack(documents=documents, sources=[packed, *aliases], budget=0)
    pack.tokens = sum(estimate_tokens(str(d)) for d in documents)
    return pack
