"""The built-in offline runtime: no model, always works, always grounded.

It answers by extraction: the sentences of the packed sources that best match the question,
returned verbatim, each with its source id and quote, so a fresh install answers something
that can be checked. Only prose counts as evidence (`evidence.py`: no headings, captions,
bylines, labels or fragments). Sentences are ranked by BM25 over light stems (inflection
suffixes dropped, then a 5-letter prefix) with a few synonym groups counted at half weight,
weighted by how much of the question they cover, and favoured when the question asks for a
number or a date ("when", "how many", "wann") and the sentence holds one. Sentences far
below the best are left out.

It answers only when one of the best sentences, read with its neighbours and its source's
title, holds most of the question's word weight (and a number, when one is asked for). When
the best hold some of it, they are offered as the passages that come nearest, and the answer
is unsupported; when they hold little, it says the sources do not cover the question and
suggests what to collect.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field

from ..redact import REDACTED
from ..stopwords import STOPWORDS
from .bm25 import idf, saturated
from .evidence import MONTHS, evidence, paragraph_openings

MAX_SENTENCES = 3
STEM = 5
RELATED_WEIGHT = 0.5
"""A synonym of a question word counts this much of the word itself."""
NUMBER_BONUS = 1.5
"""Weight of a sentence holding a number or a month when the question asks for one."""
COVER_SHARE = 0.2
"""The best sentence (read with its neighbours and its source's title) must cover this share of
the question's word weight (rarer words weigh more), or the answer says the sources do not
cover the question and quotes nothing."""
ANSWER_SHARE = 0.55
"""Under this share, the best sentences are offered as the passages that come closest, and the
answer is unsupported: an extractive runtime cannot tell that a sentence missing most of what
was asked answers it (on the retrieval bench's questions no page answers, 94% of best
sentences cover less; on answerable ones, 56% cover more)."""
KEEP_SHARE = 0.4
"""Sentences scoring under this share of the best one are not worth showing."""
_WORD = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"\d")
_SUFFIXES = ("ies", "ing", "est", "ed", "es", "en", "er", "ly", "s", "e")


@dataclass(frozen=True)
class Passage:
    source_id: str
    text: str
    title: str | None = None
    markdown: str = ""  # the stored Markdown, for block kinds (else the text is read)

    def sentences(self) -> list[str]:
        return evidence(self.markdown or self.text, self.title)


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
    """Content words, lowercased and cut to a stem: inflection suffixes dropped, then a
    5-letter prefix (so take/takes/taken and week/weeks meet)."""
    return [stem(word) for word in _content_words(text)]


def _content_words(text: str) -> list[str]:
    """The words of `text`, lowercased, without common and question-shaping ones."""
    return [
        word
        for word in (w.lower() for w in _WORD.findall(text))
        if word not in STOPWORDS and word not in _ASKING and (len(word) > 1 or word.isdigit())
    ]


@functools.lru_cache(maxsize=1 << 16)  # a page's words repeat; ranking stems them all
def stem(word: str) -> str:
    if not word.isdigit():
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word = word[: -len(suffix)]
                break
    return word[:STEM]


def sentences(text: str) -> list[str]:
    """The sentences of a Markdown text that can stand as evidence."""
    return evidence(text)


def answer(question: str, passages: list[Passage], *, limit: int = MAX_SENTENCES) -> OfflineAnswer:
    question = question.replace(REDACTED, " ")  # a secret taken out is no word to look for
    wanted = set(terms(question))
    if not wanted:
        return _unsupported(question, "the question has no words to look for")
    if wanted <= _GENERIC:  # "what is this page about?": the gist is the answer
        return summary(passages, limit=limit)
    read = [(p, p.sentences()) for p in passages]
    candidates = [(p.source_id, s) for p, found in read for s in found]
    bags = [Counter(terms(sentence)) for _, sentence in candidates]  # read once, used twice
    contexts = _contexts(read)
    around = [Counter(terms(contexts[sentence])) for _, sentence in candidates]
    numeric = bool(_ASKS_NUMBER.search(question))
    ranked = _rank(wanted, candidates, bags, numeric=numeric, around=around)
    top = [sentence for score, _, sentence in ranked[:MAX_SENTENCES] if score > 0]
    share, missing = _coverage(question, wanted - _GENERIC, bags, top, contexts)
    if share < COVER_SHARE:  # "this page" names no topic, so generic words are not asked
        named = _named(question, missing)
        return _unsupported(question, f"the sentences that match it best do not mention {named}")
    best = _best(ranked, limit)
    if not best:
        return _unsupported(question, "no sentence in the sources mentions it")
    lines = [f"- “{q.quote}” [{n}]" for n, q in enumerate(best, start=1)]
    if numeric:  # "how many people live in Munich?" is not answered by a sentence with no number
        top = [sentence for sentence in top if _holds_number(sentence)]
        share, missing = _coverage(question, wanted - _GENERIC, bags, top, contexts)
    if share < ANSWER_SHARE:
        lacking = f"do not mention {_named(question, missing)}" if top else "give no number"
        intro = (
            f"No sentence in your sources answers this as asked: the closest {lacking}. "
            "These come nearest (quoted as written; no model was used):"
        )
        return OfflineAnswer("\n".join([intro, "", *lines]), best, supported=False)
    intro = "From your sources (quoted as written; no model was used):"
    return OfflineAnswer("\n".join([intro, "", *lines]), best)


def _named(question: str, stems: set[str]) -> str:
    """The question's own words for `stems`, quoted: “capital”, “france”."""
    return ", ".join(f"“{w}”" for w in _words_of(question, stems))


def _best(ranked: list[tuple[float, str, str]], limit: int) -> list[Quote]:
    """The best-scoring sentences, each once, none far below the first."""
    best: list[Quote] = []
    for score, source_id, sentence in ranked:
        if score <= 0 or len(best) == limit or score < KEEP_SHARE * ranked[0][0]:
            break
        if all(sentence != q.quote for q in best):
            best.append(Quote(source_id, sentence, score))
    return best


def _contexts(read: list[tuple[Passage, list[str]]]) -> dict[str, str]:
    """Each sentence with what a reader sees around it: its source's title and the sentences
    before and after ("It opened in 1889." answers "When did the Eiffel Tower open?" when
    the sentence before names the tower)."""
    around: dict[str, str] = {}
    for passage, found in read:
        for n, sentence in enumerate(found):
            near = " ".join(found[max(0, n - 1) : n + 2])
            around.setdefault(sentence, f"{passage.title or ''} {near}")
    return around


def summary(passages: list[Passage], *, limit: int = 5) -> OfflineAnswer:
    """An extractive summary: the opening sentence of each of the first paragraphs, verbatim
    and cited (writers put the point of a paragraph first), taken from every source in turn
    so that several sources each get their say."""
    openings = [paragraph_openings(p.markdown or p.text, p.title) for p in passages]
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


def _rank(
    wanted: set[str],
    candidates: list[tuple[str, str]],
    bags: list[Counter[str]],
    *,
    numeric: bool,
    around: list[Counter[str]] | None = None,
) -> list[tuple[float, str, str]]:
    if not bags:
        return []
    weights = _expanded(wanted)
    average = sum(sum(bag.values()) for bag in bags) / len(bags) or 1.0
    frequency = Counter(term for bag in bags for term in set(bag) if term in weights)
    total = len(bags)
    scored = []
    for (source_id, sentence), bag, seen in zip(candidates, bags, around or bags, strict=True):
        length = sum(bag.values())
        score = 0.0
        for term in weights.keys() & bag.keys():
            rarity = idf(total, frequency[term])
            score += weights[term] * rarity * saturated(bag[term], length, average)
        coverage = len(_covered(wanted, seen)) / len(wanted)
        score *= 0.5 + coverage
        if numeric and _holds_number(sentence):
            score *= NUMBER_BONUS
        scored.append((score, source_id, sentence))
    scored.sort(key=lambda item: -item[0])
    return scored


def _coverage(
    question: str,
    wanted: set[str],
    bags: list[Counter[str]],
    best: list[str],
    contexts: dict[str, str],
) -> tuple[float, set[str]]:
    """The share of the question's word weight that the best-covering of the `best`
    sentences (each read in its context) holds, and the words it leaves out. A question's
    rarest words name what it is about ("capital of France" over tech news matched
    "capitalize on consumer rage"; France was nowhere), so weights are the words' inverse
    frequencies over the packed sentences; a word no sentence holds weighs most."""
    if not wanted:
        return 1.0, set()
    total = len(bags)
    holding = Counter(t for bag in bags for t in bag if t in wanted)

    def weight(term: str) -> float:
        return idf(total, holding[term])

    asked = _forms(question)
    covers = [_covered_as_asked(asked, contexts.get(s, s)) & wanted for s in best]
    covered = max(covers, key=lambda found: sum(map(weight, found)), default=set())
    share = sum(map(weight, covered)) / (sum(map(weight, wanted)) or 1.0)
    return share, wanted - covered


_INFLECTIONS = frozenset({"", "s", "es", "ed", "d", "ing", "er", "est", "ly", "ies", "en", "e"})
"""Endings that keep a word's meaning (tide, tides; feed, feeding). A derivation changes it:
"capitalize" is not about a capital, so it covers no question about one."""


def _forms(text: str) -> dict[str, set[str]]:
    """Each content stem of `text` with the words it came from."""
    forms: dict[str, set[str]] = {}
    for word in _content_words(text):
        forms.setdefault(stem(word), set()).add(word)
    return forms


def _covered_as_asked(asked: dict[str, set[str]], sentence: str) -> set[str]:
    """The asked stems the sentence holds as an inflection of the word asked (or a synonym)."""
    held = _forms(sentence)
    covered = set()
    for term, words in asked.items():
        if any(r in held for r in _RELATED.get(term, ())) or any(
            _inflected(asked_word, word) for asked_word in words for word in held.get(term, ())
        ):
            covered.add(term)
    return covered


def _inflected(asked: str, word: str) -> bool:
    """Whether one word is the other, or its root with an inflection's ending: tide/tides,
    study/studies, run/running, bake/baked; not capital/capitalize."""
    short, long_ = sorted((asked, word), key=len)
    roots = {short}
    for suffix in _SUFFIXES:
        if short.endswith(suffix) and len(short) - len(suffix) >= 3:
            roots.add(short[: -len(suffix)])
            break
    if short.endswith("y"):
        roots.add(short[:-1] + "i")
    for root in roots:
        for grown in (root, root + root[-1:]):  # run -> runn-ing
            if long_.startswith(grown) and long_[len(grown) :] in _INFLECTIONS:
                return True
    return False


def _words_of(question: str, stems: set[str]) -> list[str]:
    """The question's own words for `stems`, in its order, each once."""
    words = [w for w in _WORD.findall(question) if stem(w.lower()) in stems]
    return list(dict.fromkeys(w.lower() for w in words))[:4]


def _expanded(wanted: set[str]) -> dict[str, float]:
    """The question's stems (weight 1) and their synonyms' stems (a lower weight)."""
    weights = dict.fromkeys(wanted, 1.0)
    for term in wanted:
        for related in _RELATED.get(term, ()):
            weights.setdefault(related, RELATED_WEIGHT)
    return weights


def _covered(wanted: set[str], bag: Counter[str]) -> set[str]:
    return {t for t in wanted if t in bag or any(r in bag for r in _RELATED.get(t, ()))}


def _holds_number(sentence: str) -> bool:
    return bool(_NUMBER.search(sentence)) or any(
        word.lower() in MONTHS or word.lower() in _NUMBER_WORDS for word in _WORD.findall(sentence)
    )


_SYNONYMS = """
    tall high height; old age; start begin launch found establish open; create make build
    develop invent design; end finish stop close; big large huge size; small little tiny;
    fast quick rapid speed; slow sluggish; cost price pay fee expensive cheap; buy purchase
    acquire; sell sale; kill die death dead; cause reason because why; help support assist;
    show reveal indicate; say tell state; use employ; need require; fall drop decline
    decrease; rise grow increase climb; picture image photo; car vehicle; job work career
    employ; found discover; study research; money fund funding
"""


def _synonym_map(groups: str) -> dict[str, frozenset[str]]:
    """Each stem to the other stems of every group it is in."""
    related: dict[str, frozenset[str]] = {}
    for group in groups.split(";"):
        stems = frozenset(stem(word) for word in group.split())
        for one in stems:
            related[one] = related.get(one, frozenset()) | (stems - {one})
    return related


_RELATED = _synonym_map(_SYNONYMS)

_NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve twenty thirty forty
    fifty hundred thousand million billion half dozen century decade decades ein eine zwei
    drei vier fünf zehn hundert tausend millionen milliarden hälfte un deux trois quatre
    cinq dix cent mille million milliard moitié""".split()  # noqa: SIM905
)
_ASKS_NUMBER = re.compile(
    r"\b(?:when|how (?:many|much|long|old|often|far|big|tall|large|high|fast|heavy)|"
    r"what (?:year|date|time|age|percentage|share|proportion)|which year|"
    r"wann|seit wann|wie (?:viele?|lange|alt|oft|weit|groß|hoch|schnell)|welche[mnrs]? "
    r"(?:tag|jahr|datum)|quand|combien|cuándo|cuánto|cuántos|quanto)\b",
    re.IGNORECASE,
)


_GENERIC_WORDS = (
    "page article text document source sources summary summarize summarise topic main "
    "point points overview gist about content contents story post"
)
_GENERIC = frozenset(stem(word) for word in _GENERIC_WORDS.split())
_QUESTION_WORDS = """what why how when where which who whom whose about does did do is are
    should would could can may might must will shall often much many was were has have had
    tell explain describe mention say says said happen happens happened occur occurs occurred
    wann warum wieso weshalb welche welcher welches welchem welchen woher wohin wo
    quand pourquoi comment quel quelle quels quelles où qué cuándo cómo dónde por"""
_ASKING = frozenset(_QUESTION_WORDS.split())


def _unsupported(question: str, why: str) -> OfflineAnswer:
    words = [
        w
        for w in _WORD.findall(question)
        if w.lower() not in STOPWORDS | _ASKING and stem(w.lower()) not in _GENERIC
    ]
    topic = " ".join(words)[:120] or " ".join(question.split())[:120]
    return OfflineAnswer(
        f"Your sources do not answer this ({why}). Save a page about “{topic}” to the "
        "collection and ask again.",
        supported=False,
    )
