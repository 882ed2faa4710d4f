"""Offline runners of the learning family: flashcards and a multiple-choice quiz.

Cards ask for defined terms, then blank a sentence's key term (a cloze). Quiz questions blank
a key term too; the wrong options are key terms of other sentences of the same kind (a
number for a number, a name for a name), so no option gives itself away by its form. Option
order is a checksum of the question: the same collection gives the same quiz.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator

from ..config import CountConfig, QuizConfig
from ..corpus import Corpus, Sentence
from ..items import Card, QuizQuestion, option_key
from . import cite
from .patterns import definition, term_kind
from .structured import key_term

BLANK = "_____"


def flashcards(corpus: Corpus, config: CountConfig) -> Iterator[Card]:
    made: set[str] = set()
    asked: set[int] = set()  # sentences already on a card
    for sentence in corpus.sentences:
        found = definition(sentence.text)
        if found and found.term.casefold() not in made and len(made) < config.count:
            made.add(found.term.casefold())
            asked.add(sentence.order)
            yield Card(
                front=f"What is {found.term}?", back=sentence.text, citations=[cite(sentence)]
            )
    for sentence in corpus.central(config.count * 2):
        if len(made) >= config.count:
            return
        cloze = None if sentence.order in asked else _cloze(corpus, sentence, frozenset(made))
        if cloze and cloze[1].casefold() not in made:
            made.add(cloze[1].casefold())
            yield Card(front=cloze[0], back=cloze[1], citations=[cite(sentence)])


def quiz(corpus: Corpus, config: QuizConfig) -> Iterator[QuizQuestion]:
    pool = _answers(corpus)
    used: set[str] = set()
    for sentence in corpus.central(config.count * 3):
        if len(used) == config.count:
            return
        cloze = _cloze(corpus, sentence, frozenset(used))
        if cloze is None:
            continue
        question, answer = cloze
        wrong = _distractors(answer, sentence, pool, config.options - 1)
        if len(wrong) < 2:
            continue
        options = _placed(question, answer, wrong)
        used.add(answer.lower())
        yield QuizQuestion(
            question=f"Fill in the blank: {question}",
            options=options,
            answer=answer,
            explanation=sentence.text,
            citations=[cite(sentence)],
        )


def _cloze(
    corpus: Corpus, sentence: Sentence, avoid: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """(the sentence with its key term blanked, the term); terms in `avoid` (lowercased,
    already asked) are passed over."""
    term = key_term(corpus, sentence, avoid)
    if term is None:
        return None
    blanked, count = re.subn(rf"(?<!\w){re.escape(term)}(?!\w)", BLANK, sentence.text, count=1)
    return (blanked, term) if count else None


def _answers(corpus: Corpus) -> list[str]:
    """Every sentence's key term, once each (the distractor pool)."""
    seen: dict[str, str] = {}
    for sentence in corpus.sentences:
        term = key_term(corpus, sentence)
        if term:
            seen.setdefault(option_key(term), term)
    return list(seen.values())


def _distractors(answer: str, sentence: Sentence, pool: list[str], wanted: int) -> list[str]:
    text = sentence.text.casefold()
    usable = [t for t in pool if option_key(t) != option_key(answer) and t.casefold() not in text]
    same = [t for t in usable if term_kind(t) == term_kind(answer)]
    others = [t for t in usable if t not in same and term_kind(t) != "number"]
    ordered = sorted(same, key=lambda t: abs(len(t) - len(answer))) + others
    return ordered[:wanted]


def _placed(question: str, answer: str, wrong: list[str]) -> list[str]:
    spot = zlib.crc32(question.encode("utf-8")) % (len(wrong) + 1)
    return [*wrong[:spot], answer, *wrong[spot:]]
