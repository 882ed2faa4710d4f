"""Packing by passage: the passages that match the question reach the model first.

`pack.py` packs whole sources by relevance, which at a small model's window sends the right
page as a summary or a title. Here the budget is spent in the order of the passage search
(bm25 over passages, `store/passage_index.py`), best first across every source:

1. a matching source goes in whole when it is small (at most `WHOLE_SHARE` of the budget);
2. otherwise its matching passage goes in, as `collection.source.v1` whose Markdown holds
   only the passages sent, under their heading paths, with `[…]` where text was skipped;
3. then each sent passage's neighbours, for context, while they fit;
4. then a source sent in part goes in whole when the rest of it fits, best first;
5. what budget is left takes the collection's other sources, whole, then as summaries.

Every document keeps its `src:<id>` doc_id, so citations name the source as before and are
verified against its whole stored text. The pack's note says how many sources were sent as
passages, summaries or titles.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace
from typing import Any

from ..capture.text import links_as_text
from ..llm.config import ContextFormat
from ..redact import pinned, redact_text
from ..store.passage_index import PassageHit
from .context_format import document_text
from .pack import (
    INDEX_SHARE,
    Pack,
    SourceText,
    estimate_tokens,
    index_document,
    index_entries,
    packed_source,
    redacted_bodies,
    redacted_labels,
    source_document,
)

WHOLE_SHARE = 0.25
"""A matching source is sent whole when it costs at most this share of the budget."""
SKIPPED = "[…]"
MIN_EXCERPT = 24
"""Fewer tokens than this left: no passage, nor a sentence of one, fits any more."""
SMALL_BUDGET = 2_000
"""Under this many tokens (a 2,048-token model's window) the index lists only the sources
not sent, in what the passages leave, and passages are sent with each link as its text: a
page's link targets cost a small window as much as its words (the source's own address is in
its document; quotes verify as before)."""
_SENTENCE_GAP = re.compile(r"(?<=[.!?\u2026])[\"'\u201d\u2019)\]]*\s+")
_WORD = re.compile(r"[^\W_]+")


@dataclass
class _Excerpt:
    """The passages of one source chosen so far (ordinal -> its span in the Markdown)."""

    source: SourceText
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)
    heading: dict[int, str] = field(default_factory=dict)
    cut: set[int] = field(default_factory=set)  # passages sent as a few of their sentences
    tokens: int = 0  # what its document costs now (0: not in the pack yet)
    links: bool = True  # False: each link as its text, images left out (a small window)

    def markdown(self) -> str:
        """The chosen passages in order; a heading path when it changes; `[…]` for gaps."""
        parts: list[str] = []
        last_ordinal, last_heading = -2, None
        for ordinal in sorted(self.spans):
            start, end = self.spans[ordinal]
            if ordinal != last_ordinal + 1 and parts:
                parts.append(SKIPPED)
            heading = self.heading[ordinal]
            if heading and heading != last_heading:
                parts.append(f"**{heading}**")
            text = self.source.markdown[start:end].strip()
            text = text if self.links else links_as_text(text)
            parts.append(f"{SKIPPED} {text} {SKIPPED}" if ordinal in self.cut else text)
            last_ordinal, last_heading = ordinal, heading
        if last_ordinal >= 0 and not self._reaches_end(last_ordinal):
            parts.append(SKIPPED)
        joined = "\n\n".join(parts)
        return joined if self.source.redacted() else redact_text(joined)

    def _reaches_end(self, ordinal: int) -> bool:
        return self.spans[ordinal][1] >= len(self.source.markdown.rstrip())


@dataclass
class _Budget:
    pack: Pack
    collection_id: str
    context_format: ContextFormat
    words: frozenset[str] = frozenset()  # the question's, as `_stems` reads them

    def cost(self, source: SourceText, markdown: str) -> int:
        document = source_document(self.collection_id, replace(source, markdown=markdown), "full")
        return estimate_tokens(document_text(document, self.context_format))

    def fits(self, tokens: int) -> bool:
        return self.pack.tokens + tokens <= self.pack.budget


@pinned  # the user's extra secret names read once per pack, not once per title and passage
def pack_passages(
    collection_id: str,
    collection_title: str,
    sources: dict[str, SourceText],
    hits: list[PassageHit],
    neighbours: dict[str, dict[int, tuple[int, int, str]]],
    *,
    budget_tokens: int,
    context_format: ContextFormat = "json",
    unlisted: int = 0,
    question: str = "",
) -> Pack:
    """`sources`: the sources hits name plus others to fill with (newest first); `hits`:
    best first; `neighbours`: each hit source's passages (ordinal -> start, end, heading)."""
    pack = Pack(budget=budget_tokens, unsent=unlisted)
    order = list(dict.fromkeys([h.source_id for h in hits if h.source_id in sources]))
    order += [source_id for source_id in sources if source_id not in order]
    ranked = [sources[source_id] for source_id in order]  # labels redacted where they are sent
    small = budget_tokens < SMALL_BUDGET
    index = None if small else _index(pack, collection_id, collection_title, ranked, INDEX_SHARE)
    pack.tokens = estimate_tokens(document_text(index, context_format)) if index else 0
    budget = _Budget(pack, collection_id, context_format, _stems(question))
    whole: dict[str, int] = {}
    excerpts: dict[str, _Excerpt] = {}
    if budget_tokens < SMALL_BUDGET:
        hits = _best_source_first(hits)
    for hit in hits:
        if budget_tokens - pack.tokens < MIN_EXCERPT:
            break  # full: the hits left cannot go in, and trying each one costs
        if hit.source_id in sources and hit.source_id not in whole:
            _take_hit(budget, sources[hit.source_id], hit, whole, excerpts)
    for excerpt in list(excerpts.values()):
        _add_neighbours(budget, excerpt, neighbours.get(excerpt.source.source_id, {}))
    for source_id in [s for s in order if s in excerpts]:
        _whole_if_it_fits(budget, excerpts, whole, source_id)
    chosen = _fill(budget, [sources[s] for s in order], whole, excerpts)
    if small:  # what is left lists the sources not sent, when that much is left
        index = _leftover_index(
            budget, collection_title, [s for s in ranked if s.source_id not in pack.tiers]
        )
    pack.documents = [index, *chosen] if index else chosen
    for source_id in order:
        pack.tiers.setdefault(source_id, "title")
    pack.sources = [packed_source(sources[s]) for s in order if pack.tiers[s] != "title"]
    return pack


def _best_source_first(hits: list[PassageHit], depth: int = 3) -> list[PassageHit]:
    """The best source's first `depth` passages, then the rest in rank order."""
    if not hits:
        return hits
    first = [h for h in hits if h.source_id == hits[0].source_id][:depth]
    return first + [h for h in hits if h not in first]


def _index(
    pack: Pack, collection_id: str, title: str, ranked: list[SourceText], share: float
) -> dict[str, Any]:
    """The collection's index: the best-ranked titles that fit `share` of the budget."""
    listed = index_entries(ranked, int(pack.budget * share))
    pack.listed = {s.source_id for s in listed}
    pack.unlisted = len(ranked) - len(listed) + pack.unsent
    return index_document(collection_id, title, [redacted_labels(s) for s in listed])


def _leftover_index(budget: _Budget, title: str, unsent: list[SourceText]) -> dict[str, Any] | None:
    """A small window's index, made last: only the sources the pack did not send, in what
    the passages left (an index of the sources it sends is their titles twice, and its
    envelope alone would cost a 2,048-token window a sixth of its budget for passages)."""
    pack = budget.pack
    pack.unlisted = len(unsent) + pack.unsent
    if not unsent:
        return None
    left = (pack.budget - pack.tokens) / pack.budget
    index = _index(pack, budget.collection_id, title, unsent, left)
    cost = estimate_tokens(document_text(index, budget.context_format))
    if budget.fits(cost):
        pack.tokens += cost
        return index
    pack.listed, pack.unlisted = set(), len(unsent) + pack.unsent
    return None


def _take_hit(
    budget: _Budget,
    source: SourceText,
    hit: PassageHit,
    whole: dict[str, int],
    excerpts: dict[str, _Excerpt],
) -> None:
    excerpt = excerpts.get(source.source_id)
    if excerpt is None:
        small = estimate_tokens(source.markdown) <= budget.pack.budget * WHOLE_SHARE
        cost = budget.cost(source, source.markdown) if small else budget.pack.budget + 1
        if cost <= budget.pack.budget * WHOLE_SHARE and budget.fits(cost):
            budget.pack.tokens += cost
            whole[source.source_id] = cost
            budget.pack.tiers[source.source_id] = "full"
            return
        excerpt = _Excerpt(source, links=budget.pack.budget >= SMALL_BUDGET)
    if hit.ordinal in excerpt.spans:
        return
    if not _try_add(budget, excerpt, hit.ordinal, (hit.start, hit.end, hit.heading)):
        for start, end in _sentence_windows(source.markdown, hit.start, hit.end, budget.words):
            if _try_add(budget, excerpt, hit.ordinal, (start, end, hit.heading)):
                excerpt.cut.add(hit.ordinal)
                break
    if excerpt.spans:
        excerpts[source.source_id] = excerpt
        budget.pack.tiers[source.source_id] = "passages"


def _sentence_windows(
    markdown: str, start: int, end: int, words: frozenset[str]
) -> list[tuple[int, int]]:
    """Smaller and smaller spans of a passage around its sentence that holds most of the
    question's words: that sentence with two neighbours each side, one, then alone. For a
    window too small for the whole passage (a 2,048-token model)."""
    bounds = [start] + [m.end() for m in _SENTENCE_GAP.finditer(markdown, start, end)] + [end]
    sentences = list(itertools.pairwise(bounds))
    if len(sentences) < 2:
        return []

    def held(span: tuple[int, int]) -> int:
        return len(words & _stems(markdown[span[0] : span[1]]))

    best = max(range(len(sentences)), key=lambda at: held(sentences[at]))
    windows = []
    for reach in (2, 1, 0):
        low, high = max(0, best - reach), min(len(sentences) - 1, best + reach)
        window = (sentences[low][0], sentences[high][1])
        if window != (start, end) and window not in windows:
            windows.append(window)
    return windows


def _stems(text: str) -> frozenset[str]:
    """Words cut to 5 letters, lowercased: how a question's words are found in a sentence."""
    return frozenset(w.lower()[:5] for w in _WORD.findall(text) if len(w) > 2)


def _try_add(budget: _Budget, excerpt: _Excerpt, ordinal: int, span: tuple[int, int, str]) -> bool:
    """Add one passage if the source's document still fits with it."""
    before = excerpt.tokens
    excerpt.spans[ordinal], excerpt.heading[ordinal] = span[:2], span[2]
    if not budget.fits(estimate_tokens(excerpt.source.markdown[span[0] : span[1]])):
        del excerpt.spans[ordinal], excerpt.heading[ordinal]
        return False  # its text alone is over: no need to write the document out
    after = budget.cost(excerpt.source, excerpt.markdown())
    if budget.fits(after - before):
        budget.pack.tokens += after - before
        excerpt.tokens = after
        return True
    del excerpt.spans[ordinal], excerpt.heading[ordinal]
    return False


def _whole_if_it_fits(
    budget: _Budget, excerpts: dict[str, _Excerpt], whole: dict[str, int], source_id: str
) -> None:
    """A source sent in part goes in whole when the rest of it fits what is left."""
    excerpt = excerpts[source_id]
    if not budget.fits(estimate_tokens(excerpt.source.markdown) - excerpt.tokens):
        return
    cost = budget.cost(excerpt.source, excerpt.source.markdown)
    extra = cost - excerpt.tokens
    if budget.fits(extra):
        budget.pack.tokens += extra
        whole[source_id] = cost
        budget.pack.tiers[source_id] = "full"
        del excerpts[source_id]


def _add_neighbours(
    budget: _Budget, excerpt: _Excerpt, passages: dict[int, tuple[int, int, str]]
) -> None:
    """The passage before and after each one sent (the sentence that names what "it" is)."""
    for ordinal in sorted(excerpt.spans):
        for near in (ordinal - 1, ordinal + 1):
            if near in passages and near not in excerpt.spans:
                _try_add(budget, excerpt, near, passages[near])


def _fill(
    budget: _Budget,
    ordered: list[SourceText],
    whole: dict[str, int],
    excerpts: dict[str, _Excerpt],
) -> list[dict[str, object]]:
    """The documents in rank order, with the leftover budget spent on unmatched sources:
    whole where they fit, else their summaries."""
    pack = budget.pack
    documents: list[dict[str, object]] = []
    for source in ordered:
        source_id = source.source_id
        if source_id in whole:
            documents.append(_document(budget, redacted_bodies(source), "full"))
        elif source_id in excerpts:
            markdown = excerpts[source_id].markdown()
            documents.append(_document(budget, replace(source, markdown=markdown), "full"))
        elif source.markdown and budget.fits(cost := budget.cost(source, source.markdown)):
            pack.tokens += cost
            pack.tiers[source_id] = "full"
            documents.append(_document(budget, redacted_bodies(source), "full"))
        elif source.summary and budget.fits(
            cost := budget.cost(source, f"{source.summary}\n\n[Truncated]")
        ):
            pack.tokens += cost
            pack.tiers[source_id] = "summary"
            documents.append(_document(budget, redacted_bodies(source), "summary"))
    return documents


def _document(budget: _Budget, source: SourceText, tier: str) -> dict[str, object]:
    """A source's document, its URL and title redacted again (rows an older Laika wrote);
    only the sources sent or listed pay for it, not every source the search named."""
    labelled = redacted_labels(source)
    return source_document(budget.collection_id, labelled, "full" if tier == "full" else "summary")
