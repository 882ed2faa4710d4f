"""Offline runners of the outline family: outline, mind map, slide deck, podcast script.

An outline follows each source's own headings (a heading's level sets the node's depth) with
the opening of each paragraph beneath; a mind map branches from the collection's shared
themes; slides give an overview and then one slide per source; a podcast script is a host's
questions answered in the sources' words.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...llm.evidence import block_sentences, blocks
from ..config import PodcastConfig, SlidesConfig, TreeConfig
from ..corpus import Corpus, Sentence, SourceDoc, shortened
from ..items import Cited, Node, Segment, Slide
from . import cite
from .structured import by_interest, question_for, shared_aspects

NODE_WORDS = 14
MAX_LEVEL = 6


def outline(corpus: Corpus, config: TreeConfig) -> Iterator[Node]:
    for source in corpus.sources:
        yield from list(_source_outline(source, config))[: config.count]


def _source_outline(source: SourceDoc, config: TreeConfig) -> Iterator[Node]:
    found = blocks(source.markdown or source.text, source.title)
    root = next((b for b in found if b.kind == "heading"), None)
    titled = root is not None and _same(root.text, source.title)
    if titled:
        yield Node(text=source.title, level=1, citations=[_cited(source, source.title)])
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


def mind_map(corpus: Corpus, config: TreeConfig) -> Iterator[Node]:
    themes = [t for t in shared_aspects(corpus, limit=5) if t not in ("Main point", "Figures")]
    if not themes:  # one source or nothing shared: its sources are the branches
        for source in corpus.sources[: config.count]:
            yield from _branch(source.title, corpus.of(source), corpus, config)
        return
    for theme in themes:
        holding = [s for s in corpus.sentences if theme in s.text.lower()]
        yield from _branch(theme, holding, corpus, config)


def _branch(
    label: str, sentences: list[Sentence], corpus: Corpus, config: TreeConfig
) -> Iterator[Node]:
    ranked = sorted(sentences, key=lambda s: -corpus.centrality(s))[:3]
    if not ranked:
        return
    yield Node(text=label, level=1, citations=[cite(ranked[0])])
    if config.depth >= 2:
        for sentence in ranked:
            shown, quote = shortened(sentence.text, NODE_WORDS)
            yield Node(text=shown, level=2, citations=[cite(sentence, quote)])


def slide_deck(corpus: Corpus, config: SlidesConfig) -> Iterator[Slide]:
    yield _slide("Overview", corpus.central(3))
    for source in corpus.sources[: config.count - 1]:
        own = sorted(corpus.of(source), key=lambda s: -corpus.centrality(s))[:3]
        if own:
            yield _slide(source.title, sorted(own, key=lambda s: s.order))


def _slide(title: str, sentences: list[Sentence]) -> Slide:
    bullets, citations = [], []
    for sentence in sentences:
        shown, quote = shortened(sentence.text, NODE_WORDS)
        bullets.append(shown)
        citations.append(cite(sentence, quote))
    return Slide(title=title, bullets=bullets, citations=citations)


def podcast_script(corpus: Corpus, config: PodcastConfig) -> Iterator[Segment]:
    """Each exchange a question and its answer; the hosts take turns, so every host named
    speaks (one host: a monologue, two: host and guest, more: each asks the next)."""
    hosts = config.hosts
    asked = 0
    for sentence in by_interest(corpus):
        if asked == config.count:
            return
        question = question_for(corpus, sentence)
        if question is None:
            continue
        host, guest = hosts[asked % len(hosts)], hosts[(asked + 1) % len(hosts)]
        asked += 1
        yield Segment(speaker=host, line=question, citations=[cite(sentence)])
        yield Segment(speaker=guest, line=sentence.text, citations=[cite(sentence)])


def _cited(source: SourceDoc, quote: str) -> Cited:
    return Cited(source_id=source.source_id, quote=quote)


def _same(one: str, other: str) -> bool:
    return " ".join(one.split()).casefold() == " ".join(other.split()).casefold()
