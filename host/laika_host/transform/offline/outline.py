"""Offline runners of the outline family: outline and slide deck.

An outline follows each source's own headings (a heading's level sets the node's depth) with
the opening of each paragraph beneath; slides give an overview and then one slide per source.
(A mind map and a podcast script need a model: `types/outline.py` says why.)
"""

from __future__ import annotations

from collections.abc import Iterator

from ...llm.evidence import block_sentences, blocks
from ..config import SlidesConfig, TreeConfig
from ..corpus import Corpus, Sentence, SourceDoc, shortened, words_prefix
from ..items import Cited, Node, Slide
from . import cite, extract_note

NODE_WORDS = 20
MAX_LEVEL = 6
SLIDE_WORDS = 32
"""A longer sentence reads as a paragraph, not a bullet: it is left for the report."""
SLIDE_BULLETS = 3
SLIDE_POOL = 9


def outline(corpus: Corpus, config: TreeConfig) -> Iterator[Node]:
    for source in corpus.sources:
        yield from list(_source_outline(source, config))[: config.count]


def _source_outline(source: SourceDoc, config: TreeConfig) -> Iterator[Node]:
    found = blocks(source.markdown or source.text, source.title)
    root = next((b for b in found if b.kind == "heading"), None)
    titled = root is not None and (
        _same(root.text, source.title) or _same(root.text, source.heading)
    )
    # every source opens at the top level, so its headings never nest under another's
    quote = root.text if titled and root is not None else words_prefix(source.text, NODE_WORDS)
    yield Node(text=source.heading, level=1, citations=[_cited(source, quote)] if quote else [])
    base = min((b.level for b in found if b.kind == "heading" and b is not root), default=2)
    depth = 1
    for block in found:
        if block is root and titled:
            continue
        if block.kind == "heading":
            depth = min(MAX_LEVEL - 1, 2 + max(0, block.level - base))
            if depth <= config.depth:
                yield Node(text=block.text, level=depth, citations=[_cited(source, block.text)])
            continue
        sentences = block_sentences(block)
        if sentences and depth + 1 <= config.depth:
            shown, quote = shortened(sentences[0], NODE_WORDS)
            yield Node(text=shown, level=depth + 1, citations=[_cited(source, quote)])


def slide_deck(corpus: Corpus, config: SlidesConfig) -> Iterator[Slide]:
    """An overview slide, then one per source: each bullet a whole sentence short enough
    for a slide, none shown twice."""
    extract_note(corpus, "this slide deck")
    overview = [s for s in corpus.central(SLIDE_POOL) if _fits_slide(s)][:SLIDE_BULLETS]
    if overview:
        yield _slide("Overview", overview)
    shown = {s.order for s in overview}
    for source in corpus.sources[: config.count - 1]:
        fresh = [s for s in corpus.of(source) if _fits_slide(s) and s.order not in shown]
        own = sorted(fresh, key=lambda s: -corpus.centrality(s))[:SLIDE_BULLETS]
        if own:
            yield _slide(source.heading, sorted(own, key=lambda s: s.order))


def _fits_slide(sentence: Sentence) -> bool:
    return len(sentence.text.split()) <= SLIDE_WORDS


def _slide(title: str, sentences: list[Sentence]) -> Slide:
    return Slide(
        title=title,
        bullets=[s.text for s in sentences],
        citations=[cite(s) for s in sentences],
    )


def _cited(source: SourceDoc, quote: str) -> Cited:
    return Cited(source_id=source.source_id, quote=quote)


def _same(one: str, other: str) -> bool:
    return " ".join(one.split()).casefold() == " ".join(other.split()).casefold()
