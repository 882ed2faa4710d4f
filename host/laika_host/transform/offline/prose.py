"""Offline runners of the prose family: summary, key takeaways, report, custom.

Each is made of the collection's most central sentences (`Corpus.central`), verbatim, grouped
into the type's items. Without a model these are extracts, not summaries written anew, and
the artifact says so (`EXTRACT_NOTE`). (An executive brief, a study guide and an email
summary need a model: `types/prose.py` says why.)
"""

from __future__ import annotations

from collections.abc import Iterator

from ...llm.offline import Passage
from ...llm.offline import answer as offline_answer
from ..config import CustomConfig, ProseConfig
from ..corpus import Corpus, Sentence
from ..items import Bullet, Cited, Paragraph, Part, Section
from . import cite, extract_note


def summary(corpus: Corpus, config: ProseConfig) -> Iterator[Paragraph]:
    """One paragraph per source, of its most central sentences (in page order)."""
    extract_note(corpus, "this summary")
    picked = corpus.central(config.count)
    for source in corpus.sources:
        own = [s for s in picked if s.source is source]
        if own:
            yield Paragraph(text=_joined(own), citations=[cite(s) for s in own])


def key_takeaways(corpus: Corpus, config: ProseConfig) -> Iterator[Bullet]:
    extract_note(corpus, "this list of takeaways")
    for sentence in corpus.central(config.count):
        yield Bullet(text=sentence.text, citations=[cite(sentence)])


def report(corpus: Corpus, config: ProseConfig) -> Iterator[Section]:
    extract_note(corpus, "this report")
    overview = corpus.central(min(3, config.count))
    yield from _section("Overview", overview)
    shown = {s.order for s in overview}  # a section does not repeat the overview
    per_source = max(2, config.count // 2)
    for source in corpus.sources:
        fresh = [s for s in corpus.of(source) if s.order not in shown]
        own = sorted(fresh, key=lambda s: -corpus.centrality(s))[:per_source]
        yield from _section(source.heading, sorted(own, key=lambda s: s.order))


def custom(corpus: Corpus, config: CustomConfig) -> Iterator[Part]:
    """Without a model, instructions cannot be followed; the sentences most relevant to
    them are the honest answer (and the run's notes say so)."""
    corpus.notes.append(
        "custom instructions need a model: offline, these are the sentences of your sources "
        "most relevant to them"
    )
    passages = [Passage(s.source_id, s.text, s.title, s.markdown) for s in corpus.sources]
    found = offline_answer(config.instructions, passages, limit=config.count)
    quotes = found.citations if found.supported else []
    if not quotes:
        for sentence in corpus.central(config.count):
            yield Part(text=sentence.text, citations=[cite(sentence)])
        return
    for quote in quotes:
        yield Part(
            text=quote.quote, citations=[Cited(source_id=quote.source_id, quote=quote.quote)]
        )


def _section(heading: str, sentences: list[Sentence]) -> Iterator[Section]:
    if sentences:
        yield Section(
            heading=heading, body=_joined(sentences), citations=[cite(s) for s in sentences]
        )


def _joined(sentences: list[Sentence]) -> str:
    return " ".join(s.text for s in sentences)
