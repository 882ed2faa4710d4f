"""The built-in offline runtime: no model, always works, always grounded.

It answers by extraction: the sentences of the packed sources that best match the question
(BM25 over sentences, words matched by a stem-like prefix), returned verbatim, each with its
source id and quote, so a fresh install answers something that can be checked. When nothing
matches it says so and suggests what to collect next.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from ..stopwords import STOPWORDS

MAX_SENTENCES = 3
MIN_SENTENCE = 25
MAX_SENTENCE = 600
STEM = 5
K1, B = 1.2, 0.75
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”»)]?\s+(?=[\"'“«(]?[A-Z0-9À-Ý])|\n{1,}")
_WORD = re.compile(r"[^\W_]+")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_MARKDOWN = re.compile(r"[*_`#>|]+|\[(?P<text>[^\]]*)\]\([^)]*\)")


@dataclass(frozen=True)
class Passage:
    source_id: str
    text: str
    title: str | None = None


@dataclass(frozen=True)
class Quote:
    source_id: str
    quote: str
    score: float


@dataclass
class OfflineAnswer:
    markdown: str
    citations: list[Quote] = field(default_factory=list)
    supported: bool = True

    def to_json(self) -> dict[str, object]:
        return {
            "markdown": self.markdown,
            "supported": self.supported,
            "citations": [
                {"source_id": c.source_id, "quote": c.quote, "score": round(c.score, 3)}
                for c in self.citations
            ],
        }


def terms(text: str) -> list[str]:
    """Content words, lowercased and cut to a stem-like prefix."""
    return [
        word[:STEM]
        for word in (w.lower() for w in _WORD.findall(text))
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit())
    ]


def sentences(text: str) -> list[str]:
    plain = _MARKDOWN.sub(lambda m: m.group("text") or " ", text)
    found = []
    for piece in _SENTENCE_END.split(plain):
        sentence = " ".join(piece.split())
        if MIN_SENTENCE <= len(sentence) <= MAX_SENTENCE:
            found.append(sentence)
    return found


def answer(question: str, passages: list[Passage], *, limit: int = MAX_SENTENCES) -> OfflineAnswer:
    wanted = set(terms(question))
    if not wanted:
        return _unsupported(question, "the question has no words to look for")
    if wanted <= _GENERIC:  # "what is this page about?": the gist is the answer
        return summary(passages, limit=limit)
    candidates = [(p.source_id, s) for p in passages for s in sentences(p.text)]
    ranked = _rank(wanted, candidates)
    best: list[Quote] = []
    for score, source_id, sentence in ranked:
        if score <= 0 or len(best) == limit:
            break
        if all(sentence != q.quote for q in best):
            best.append(Quote(source_id, sentence, score))
    if not best:
        return _unsupported(question, "no sentence in the sources mentions it")
    lines = [f"- “{q.quote}” [{n}]" for n, q in enumerate(best, start=1)]
    intro = "From your sources (quoted as written; no model was used):"
    return OfflineAnswer("\n".join([intro, "", *lines]), best)


def summary(passages: list[Passage], *, limit: int = 5) -> OfflineAnswer:
    """An extractive summary: the opening sentence of each of the first paragraphs, verbatim
    and cited (writers put the point of a paragraph first), taken from every source in turn
    so that several sources each get their say."""
    openings = [
        [found[0] for found in map(sentences, _PARAGRAPH_BREAK.split(p.text)) if found]
        for p in passages
    ]
    picked: list[Quote] = []
    for depth in range(max(map(len, openings), default=0)):
        for passage, firsts in zip(passages, openings, strict=True):
            if depth < len(firsts) and len(picked) < limit:
                picked.append(Quote(passage.source_id, firsts[depth], 1.0))
    if not picked:
        return OfflineAnswer("The page has no sentences to summarize.", supported=False)
    lines = [f"- “{q.quote}” [{n}]" for n, q in enumerate(picked, start=1)]
    intro = "Summary from the page's own words (no model was used):"
    return OfflineAnswer("\n".join([intro, "", *lines]), picked)


def _rank(wanted: set[str], candidates: list[tuple[str, str]]) -> list[tuple[float, str, str]]:
    bags = [Counter(terms(sentence)) for _, sentence in candidates]
    if not bags:
        return []
    average = sum(sum(bag.values()) for bag in bags) / len(bags) or 1.0
    frequency = Counter(term for bag in bags for term in set(bag) if term in wanted)
    total = len(bags)
    scored = []
    for (source_id, sentence), bag in zip(candidates, bags, strict=True):
        length = sum(bag.values())
        score = 0.0
        for term in wanted & bag.keys():
            idf = math.log(1 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
            tf = bag[term]
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        coverage = len(wanted & bag.keys()) / len(wanted)
        scored.append((score * (0.5 + coverage), source_id, sentence))
    scored.sort(key=lambda item: -item[0])
    return scored


_GENERIC_WORDS = (
    "page article text document source sources summary summarize summarise topic main "
    "point points overview gist about content contents story post"
)
_GENERIC = frozenset(word[:STEM] for word in _GENERIC_WORDS.split())
_QUESTION_WORDS = "what why how when where which who whom whose about does did do is are"
_ASKING = frozenset(_QUESTION_WORDS.split())


def _unsupported(question: str, why: str) -> OfflineAnswer:
    words = [w for w in _WORD.findall(question) if w.lower() not in STOPWORDS | _ASKING]
    topic = " ".join(words)[:120] or " ".join(question.split())[:120]
    return OfflineAnswer(
        f"Your sources do not answer this ({why}). Save a page about “{topic}” to the "
        "collection and ask again.",
        supported=False,
    )
