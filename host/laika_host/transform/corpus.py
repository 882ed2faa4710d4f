"""A collection's sources as the offline runners read them: prose sentences with their terms.

Only sentences that can stand as evidence count (`llm/evidence.py`: no headings, captions,
bylines or code), and each is kept verbatim, so any of them quoted as a citation verifies
against the stored text. Centrality is how much a sentence shares the collection's common
vocabulary (document frequency of its terms), with a lift for a paragraph's first sentence
(writers put the point there) and for early sentences. Everything is computed once per run,
in one pass over the sentences.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

from ..llm.evidence import block_sentences, blocks
from ..llm.offline import terms

DETERMINERS = frozenset(
    ["the", "a", "an", "its", "their", "his", "her", "our", "your", "each", "every"]
)
_EDGE = "\"'()[]{}.,;:!?\u201c\u201d\u2018\u2019"
OPENING_LIFT = 1.3
POINTS_BACK = frozenset(
    """it its they them their he she his her him such however but and also yet still
    thus hence therefore moreover meanwhile instead nevertheless nonetheless besides
    furthermore otherwise then""".split()  # noqa: SIM905
)
"""Openers that refer to what came before (English, which most pages are)."""
POINTS_BACK_BEFORE_NOUN = frozenset(["this", "these", "that", "those"])
""""This" points back ("This direct line ...") unless a time follows ("This week ...")."""
TIME_NOUNS = frozenset(
    """week weekend month year season spring summer autumn fall winter morning afternoon
    evening night time century decade quarter""".split()  # noqa: SIM905
)
SITE_WORDS = 5
DUPLICATE_OVERLAP = 0.6
"""Sentences sharing this share of their terms say the same thing: one is enough."""


@dataclass(frozen=True)
class SourceDoc:
    source_id: str
    url: str
    title: str
    markdown: str
    text: str
    content_hash: str
    kind: str = "url"
    web_url: str | None = None
    byline: str | None = None
    published: str | None = None
    captured_at: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> SourceDoc:
        return cls(**row)

    @property
    def heading(self) -> str:
        """The title without the site's name after it ("A Letter | Harper's Magazine"):
        what a section, slide or reference shows (the site is named on its own)."""
        return without_site(self.title, self.web_url)


def without_site(title: str, url: str | None) -> str:
    """`title` less a trailing "| Site" (any short segment after a bar) or "- Site" (a dash,
    when the segment names the page's host)."""
    host = _letters(urlsplit(url).hostname or "") if url else ""
    for separator in (" | ", " \u2013 ", " \u2014 ", " - ", " \u00b7 "):
        head, found, tail = title.rpartition(separator)
        if not found or not head.strip() or len(tail.split()) > SITE_WORDS:
            continue
        named = any(len(word) >= 4 and word in host for word in map(_letters, tail.split()))
        if separator == " | " or (host and (named or _letters(tail) in host)):
            return head.strip()
    return title


def _letters(text: str) -> str:
    return "".join(char for char in text.casefold() if char.isalnum())


@dataclass(frozen=True)
class Sentence:
    source: SourceDoc
    text: str
    position: int  # within its source
    opening: bool  # the first sentence of its block
    terms: frozenset[str] = field(default_factory=frozenset)
    order: int = 0  # within the corpus


class Corpus:
    def __init__(self, collection_id: str, title: str, sources: list[SourceDoc]) -> None:
        self.collection_id = collection_id
        self.title = title
        self.sources = sources
        self.notes: list[str] = []  # what a runner wants the user to know about its output

    @cached_property
    def sentences(self) -> list[Sentence]:
        found: list[Sentence] = []
        for source in self.sources:
            found.extend(_sentences_of(source, len(found)))
        return found

    def of(self, source: SourceDoc) -> list[Sentence]:
        return self._by_source.get(source.source_id, [])

    @cached_property
    def _by_source(self) -> dict[str, list[Sentence]]:
        grouped: dict[str, list[Sentence]] = {}
        for sentence in self.sentences:
            grouped.setdefault(sentence.source.source_id, []).append(sentence)
        return grouped

    @cached_property
    def frequency(self) -> Counter[str]:
        """In how many sentences each term occurs."""
        return Counter(term for sentence in self.sentences for term in sentence.terms)

    @cached_property
    def _scores(self) -> dict[int, float]:
        scores = {}
        for sentence in self.sentences:
            shared = sum(math.log1p(self.frequency[t] - 1) for t in sentence.terms)
            score = shared / math.sqrt(len(sentence.terms) or 1)
            score *= (OPENING_LIFT if sentence.opening else 1.0) / (1 + 0.03 * sentence.position)
            scores[sentence.order] = score
        return scores

    def centrality(self, sentence: Sentence) -> float:
        return self._scores[sentence.order]

    def central(self, limit: int, *, per_source: int | None = None) -> list[Sentence]:
        """The most central sentences, taken from each source in turn (ranked by its own
        best), no two saying the same thing; in corpus order."""
        queues = [
            sorted(self.of(source), key=lambda s: -self.centrality(s)) for source in self.sources
        ]
        queues = sorted((q for q in queues if q), key=lambda q: -self.centrality(q[0]))
        picked = list(distinct(_round_robin(queues, per_source), limit))
        return sorted(picked, key=lambda s: s.order)

    @cached_property
    def nouns(self) -> frozenset[str]:
        """Words (lowercased) that follow a determiner somewhere in the collection ("the
        starter", "a tight cluster"): without a tagger, the best sign a word names a thing."""
        found: set[str] = set()
        for sentence in self.sentences:
            tokens = [t.strip(_EDGE).lower() for t in sentence.text.split()]
            for index, token in enumerate(tokens[:-1]):
                if token in DETERMINERS:
                    found.add(tokens[index + 1])
        return frozenset(word for word in found if word.isalpha() and word not in DETERMINERS)


def distinct(sentences: Iterator[Sentence] | list[Sentence], limit: int) -> Iterator[Sentence]:
    """Up to `limit` sentences, skipping any that repeats one already given."""
    kept: list[Sentence] = []
    for sentence in sentences:
        if len(kept) == limit:
            return
        if all(_overlap(sentence, other) < DUPLICATE_OVERLAP for other in kept):
            kept.append(sentence)
            yield sentence


def _overlap(one: Sentence, other: Sentence) -> float:
    if one.text == other.text:
        return 1.0
    union = one.terms | other.terms
    return len(one.terms & other.terms) / len(union) if union else 0.0


def _round_robin(queues: list[list[Sentence]], per_source: int | None) -> Iterator[Sentence]:
    depth = 0
    while any(depth < len(q) for q in queues):
        if per_source is not None and depth >= per_source:
            return
        for queue in queues:
            if depth < len(queue):
                yield queue[depth]
        depth += 1


def _sentences_of(source: SourceDoc, start: int) -> Iterator[Sentence]:
    position = 0
    for block in blocks(source.markdown or source.text, source.title):
        for index, text in enumerate(block_sentences(block)):
            if stands_alone(text):
                yield Sentence(
                    source, text, position, index == 0, frozenset(terms(text)), start + position
                )
            position += 1


def stands_alone(sentence: str) -> bool:
    """A sentence a reader understands out of its paragraph: not half a quotation, and not
    opening with a word that points back ("This", "It", "However") to a sentence the
    artifact does not show."""
    if not quotes_pair(sentence) or introduces(sentence):
        return False
    first = sentence.split(None, 2)
    opener = first[0].strip(_EDGE).lower() if first else ""
    if opener in POINTS_BACK:
        return False
    following = first[1].strip(_EDGE).lower() if len(first) > 1 else ""
    return not (opener in POINTS_BACK_BEFORE_NOUN and following not in TIME_NOUNS)


def introduces(sentence: str) -> bool:
    """It ends in a colon: it introduces what follows (a list, code, a quotation), which
    is not in it ("And the Dockerfile like this:")."""
    return sentence.rstrip(_EDGE.replace(":", "") + " ").endswith(":")


def quotes_pair(sentence: str) -> bool:
    """Its quotation marks open and close within it: a sentence split out of a longer
    quotation ("It just doesn't," said ...) does not."""
    if sentence.count('"') % 2 or sentence.count("\u00ab") != sentence.count("\u00bb"):
        return False
    curly = [char for char in sentence if char in "\u201c\u201d\u201e"]
    return not (len(curly) % 2 or (curly and curly[0] == "\u201d"))


def words_prefix(text: str, count: int) -> str:
    """The first `count` words of `text` as written (a quote of them verifies: the words
    are the source's, in order)."""
    parts = text.split()
    return " ".join(parts[:count])


def shortened(text: str, count: int) -> tuple[str, str]:
    """(shown, quote): the first `count` words, shown with an ellipsis when cut."""
    quote = words_prefix(text, count)
    return (quote if quote == " ".join(text.split()) else quote.rstrip(",;:") + " …"), quote
