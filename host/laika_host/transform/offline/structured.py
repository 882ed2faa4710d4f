"""Offline runners of the structured family: FAQ, glossary, timeline, comparison, data
table, pros and cons, action items. Each row or entry quotes the sentence it comes from."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ...llm.offline import terms
from ..config import ComparisonConfig, CountConfig, DataTableConfig
from ..corpus import Corpus, Sentence, SourceDoc, shortened
from ..items import ActionItem, ComparisonRow, Event, ProCon, QuestionAnswer, TableRow, Term
from . import cite
from .patterns import candidate_terms, definition, is_instruction, quantity, stance, when

CELL_WORDS = 16
NOT_MENTIONED = "—"


def faq(corpus: Corpus, config: CountConfig) -> Iterator[QuestionAnswer]:
    asked: set[str] = set()
    for sentence in by_interest(corpus):
        question = question_for(corpus, sentence)
        if question is None or question.casefold() in asked:
            continue
        asked.add(question.casefold())
        yield QuestionAnswer(question=question, answer=sentence.text, citations=[cite(sentence)])
        if len(asked) == config.count:
            return


def question_for(corpus: Corpus, sentence: Sentence) -> str | None:
    """A question the sentence answers: what a defined term is, what explains a cause, or
    what its source says about its key term."""
    found = definition(sentence.text)
    if found is not None:
        return f"What is {found.term}?"
    lowered = sentence.text.lower()
    at = lowered.find(" because ")
    if at > 0:
        clause = sentence.text[:at].strip(" ,")
        return f"What explains that {_lower_first(clause)}?"
    key = key_term(corpus, sentence)
    return f"What does “{sentence.source.title}” say about {key}?" if key else None


def glossary(corpus: Corpus, config: CountConfig) -> Iterator[Term]:
    seen: set[str] = set()
    for sentence in corpus.sentences:
        found = definition(sentence.text)
        if found and found.term.casefold() not in seen and len(seen) < config.count:
            seen.add(found.term.casefold())
            yield Term(term=found.term, definition=found.definition, citations=[cite(sentence)])
    for sentence in corpus.central(config.count * 2):  # key terms, shown in context
        words_seen = frozenset(word for term in seen for word in term.split())
        key = key_term(corpus, sentence, words_seen)
        if key and len(seen) < config.count and not definition(sentence.text):
            seen.add(key.casefold())
            yield Term(term=key, definition=sentence.text, citations=[cite(sentence)])


def timeline(corpus: Corpus, config: CountConfig) -> Iterator[Event]:
    dated = [(found, s) for s in corpus.sentences if (found := when(s.text))]
    dated.sort(key=lambda pair: (pair[0].key, pair[1].order))
    if dated and dated[0][0].key[0] == 1:
        corpus.notes.append("no calendar dates in the sources: events are ordered as written")
    for found, sentence in dated[: config.count]:
        yield Event(date=found.label, event=sentence.text, citations=[cite(sentence)])


def comparison(corpus: Corpus, config: ComparisonConfig) -> Iterator[ComparisonRow]:
    """One row per source; the columns are the given aspects, else each source's main point
    and what several sources share."""
    aspects = list(config.aspects) or _default_aspects(corpus)
    for source in corpus.sources[: config.count]:
        cells: dict[str, str] = {}
        citations = []
        for aspect in aspects:
            sentence = _best_for(corpus, source, aspect)
            if sentence is None:
                cells[aspect] = NOT_MENTIONED
                continue
            shown, quote = shortened(sentence.text, CELL_WORDS)
            cells[aspect] = shown
            citations.append(cite(sentence, quote))
        yield ComparisonRow(subject=source.title, cells=cells, citations=citations)


def _default_aspects(corpus: Corpus) -> list[str]:
    shared = shared_aspects(corpus, limit=2)
    return shared if shared[0] == "Main point" else ["Main point", *shared]


def shared_aspects(corpus: Corpus, limit: int = 3) -> list[str]:
    """Things several sources talk about (in their words), else the main point and the
    figures of each."""
    in_sources: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for source in corpus.sources:
        own: set[str] = set()
        for sentence in corpus.of(source):
            for word in candidate_terms(sentence.text):
                if word.lower() in corpus.nouns:
                    shown.setdefault(_stem(word), word.lower())
                    own.add(_stem(word))
        in_sources.update(own)
    shared = [t for t, count in in_sources.items() if count >= 2]
    shared.sort(key=lambda t: (-in_sources[t], -corpus.frequency[t], t))
    if len(corpus.sources) < 2 or not shared:
        return ["Main point", "Figures"]
    return [shown[term] for term in shared[:limit]]


def data_table(corpus: Corpus, config: DataTableConfig) -> Iterator[TableRow]:
    """Quantity and Statement for each figure (chosen columns are refused before a run:
    `types.structured`)."""
    for sentence in [s for s in corpus.sentences if quantity(s.text)][: config.count]:
        shown, quote = shortened(sentence.text, CELL_WORDS * 2)
        found = quantity(sentence.text)
        assert found is not None
        yield TableRow(
            cells={"Quantity": found, "Statement": shown}, citations=[cite(sentence, quote)]
        )


def pros_cons(corpus: Corpus, config: CountConfig) -> Iterator[ProCon]:
    """Advantages and drawbacks in turn, each a sentence with more words of one kind."""
    pros = [s for s in corpus.sentences if stance(s.text) == "pro"]
    cons = [s for s in corpus.sentences if stance(s.text) == "con"]
    made = 0
    for index in range(config.count):
        for side, found in (("pro", pros), ("con", cons)):
            if index < len(found) and made < config.count:
                made += 1
                yield ProCon(
                    side="pro" if side == "pro" else "con",
                    text=found[index].text,
                    citations=[cite(found[index])],
                )


def action_items(corpus: Corpus, config: CountConfig) -> Iterator[ActionItem]:
    for sentence in [s for s in corpus.sentences if is_instruction(s.text)][: config.count]:
        timing = when(sentence.text)
        yield ActionItem(
            action=sentence.text,
            due=timing.label if timing else None,
            citations=[cite(sentence)],
        )


def key_term(corpus: Corpus, sentence: Sentence, avoid: frozenset[str] = frozenset()) -> str | None:
    """The sentence's main thing: a word that names something (it follows a determiner
    somewhere), preferring one the collection mentions more than once, then a longer one;
    words in `avoid` (lowercased) are passed over."""
    candidates = [
        w
        for w in candidate_terms(sentence.text)
        if w.lower() in corpus.nouns and w.lower() not in avoid and not w[0].isdigit()
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda w: (corpus.frequency[_stem(w)] > 1, len(w)))


def _best_for(corpus: Corpus, source: SourceDoc, aspect: str) -> Sentence | None:
    own = corpus.of(source)
    if aspect == "Main point":
        return max(own, key=corpus.centrality, default=None)
    if aspect == "Figures":
        return next((s for s in own if quantity(s.text)), None)
    wanted = set(terms(aspect))
    scored = [(len(wanted & s.terms), corpus.centrality(s), s) for s in own]
    best = max(scored, key=lambda t: (t[0], t[1]), default=None)
    return best[2] if best and best[0] else None


def by_interest(corpus: Corpus) -> list[Sentence]:
    """Defining and causal sentences first, then the rest by centrality."""

    def rank(sentence: Sentence) -> tuple[int, float]:
        special = definition(sentence.text) is not None or " because " in sentence.text.lower()
        return (0 if special else 1, -corpus.centrality(sentence))

    return sorted(corpus.sentences, key=rank)


def _stem(word: str) -> str:
    found = terms(word)
    return found[0] if found else word.lower()


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[1].isupper():
        return text  # an acronym
    return text[:1].lower() + text[1:]
