"""Offline runners of the prose family: summaries, briefs, reports, guides, emails, custom.

Each is made of the collection's most central sentences (`Corpus.central`), verbatim, grouped
into the type's items; sections add sentences with figures, instructions or definitions.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...llm.offline import Passage
from ...llm.offline import answer as offline_answer
from ..config import CustomConfig, EmailConfig, ProseConfig
from ..corpus import Corpus, Sentence, shortened
from ..items import Bullet, Cited, EmailPart, Paragraph, Part, Section
from . import cite
from .patterns import definition, is_instruction, quantity, when


def summary(corpus: Corpus, config: ProseConfig) -> Iterator[Paragraph]:
    """One paragraph per source, of its most central sentences (in page order)."""
    picked = corpus.central(config.count)
    for source in corpus.sources:
        own = [s for s in picked if s.source is source]
        if own:
            yield Paragraph(text=_joined(own), citations=[cite(s) for s in own])


def key_takeaways(corpus: Corpus, config: ProseConfig) -> Iterator[Bullet]:
    for sentence in corpus.central(config.count):
        yield Bullet(text=sentence.text, citations=[cite(sentence)])


def executive_brief(corpus: Corpus, config: ProseConfig) -> Iterator[Section]:
    ranked = sorted(corpus.central(config.count + 1), key=lambda s: -corpus.centrality(s))
    yield from _section("Bottom line", ranked[:1])
    yield from _section("Key points", sorted(ranked[1:], key=lambda s: s.order))
    used = {s.text for s in ranked}
    figures = [s for s in corpus.sentences if quantity(s.text) and s.text not in used]
    yield from _section("Figures", figures[:3])
    steps = [s for s in corpus.sentences if is_instruction(s.text) and s.text not in used]
    yield from _section("Next steps", steps[:3])


def report(corpus: Corpus, config: ProseConfig) -> Iterator[Section]:
    overview = corpus.central(min(3, config.count))
    yield from _section("Overview", overview)
    per_source = max(2, config.count // 2)
    for source in corpus.sources:
        own = sorted(corpus.of(source), key=lambda s: -corpus.centrality(s))[:per_source]
        yield from _section(source.title, sorted(own, key=lambda s: s.order))


def study_guide(corpus: Corpus, config: ProseConfig) -> Iterator[Section]:
    yield from _section("Main ideas", corpus.central(config.count))
    for sentence in [s for s in corpus.sentences if definition(s.text)][: config.count]:
        found = definition(sentence.text)
        assert found is not None
        yield Section(heading=f"Term: {found.term}", body=sentence.text, citations=[cite(sentence)])
    facts = [s for s in corpus.sentences if when(s.text) or quantity(s.text)]
    yield from _section("Facts to remember", facts[: config.count])


def email_summary(corpus: Corpus, config: EmailConfig) -> Iterator[EmailPart]:
    ranked = sorted(corpus.central(config.count), key=lambda s: -corpus.centrality(s))
    if not ranked:
        return
    shown, quote = shortened(ranked[0].text, 10)
    yield EmailPart(part="subject", text=shown, citations=[cite(ranked[0], quote)])
    opening = sorted(ranked[:2], key=lambda s: s.order)
    yield EmailPart(part="paragraph", text=_joined(opening), citations=[cite(s) for s in opening])
    for sentence in sorted(ranked[2:], key=lambda s: s.order):
        yield EmailPart(part="bullet", text=sentence.text, citations=[cite(sentence)])


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
