"""The offline runtime of each phase: heuristics that write what a model would.

- classify: knowledge is declarative, general prose (facts, definitions, figures); activity
  is first-person narrative, dated announcements, calls to action and navigation-like text.
  Each signal found is named in the reason, and the confidence grows with them.
- reword: the block's knowledge sentences, each trimmed of a leading connective ("So,",
  "However,") to stand alone; the citation quotes the sentence exactly, so it verifies.
- integrate: a block's statements go under its nearest heading (or a topic term when the
  heading is the page's bare title and a term names it better): `replace` where the block
  made statements before, `add_under` an existing section, `add_section` a new one.

Every test is a pass over a sentence's words (sentences are at most 800 characters).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ..corpus import introduces, quotes_pair
from ..items import Cited
from ..offline.patterns import candidate_terms, definition, quantity, when, words
from .blocks import Block
from .models import ContentRewordingChunk, IntegrationDecisionChunk, KnowledgeClassificationChunk
from .notebook import UNFILED, Notebook

MAX_STATEMENTS = 3
"""A model's statements kept per block; the heuristic writes one (its best sentence)."""
FIRST_PERSON = frozenset(
    "i i'm i've i'd i'll me my mine we we're we've we'll our ours us".split()  # noqa: SIM905
)
ANNOUNCING = frozenset(
    """announce announces announced announcing launch launches launched launching today
    yesterday tomorrow tonight upcoming register registration webinar event sale""".split()  # noqa: SIM905
)
CALLS = frozenset(
    """subscribe subscribed unsubscribe signup click tap download donate share comment
    newsletter login cookies cookie""".split()  # noqa: SIM905
)
CALL_PHRASES = ("sign up", "read more", "learn more", "click here", "log in", "follow us")
NAVIGATION = frozenset(
    "home menu next previous back top skip contact about search".split()  # noqa: SIM905
)
CONNECTIVES = (
    "so",
    "also",
    "and",
    "but",
    "however",
    "moreover",
    "furthermore",
    "in fact",
    "of course",
    "then",
    "thus",
    "therefore",
    "today",
    "now",
    "currently",
    "recently",
    "nowadays",
    "these days",
)
"""Leads a statement drops: connectives, and the temporal ones that date it (spec 001)."""
BARE = frozenset({"so", "also", "and", "but", "then", "thus", "therefore"})
"""Leads dropped without a comma after them ("So the ..."); the others need one."""


def signals(sentence: str) -> tuple[int, list[str]]:
    """(score, reasons) of one sentence: above zero reads as knowledge."""
    found = [w.lower() for w in words(sentence)]
    lowered = f" {sentence.lower()} "
    score, reasons = 1, ["a declarative statement"]
    if sentence.rstrip().endswith("?"):
        score, reasons = score - 2, ["a question"]
    if any(w in FIRST_PERSON for w in found):
        score, reasons = score - 3, [*reasons, "first-person narrative"]
    if any(w in CALLS for w in found) or any(p in lowered for p in CALL_PHRASES):
        score, reasons = score - 3, [*reasons, "a call to action"]
    dated = when(sentence)
    if any(w in ANNOUNCING for w in found):
        score, reasons = score - 2, [*reasons, "an announcement"]
    if found and len(found) <= 8 and sum(w in NAVIGATION for w in found) >= 2:
        score, reasons = score - 3, [*reasons, "navigation-like text"]
    if definition(sentence):
        score, reasons = score + 2, [*reasons, "a definition"]
    if quantity(sentence) or (dated is not None and score > 0):
        score, reasons = score + 1, [*reasons, "a fact with figures or dates"]
    return score, reasons


def classify(block: Block) -> KnowledgeClassificationChunk:
    scored = [signals(sentence) for sentence in block.sentences]
    best, reasons = max(scored, key=lambda pair: pair[0])
    knowledge = best > 0
    if not knowledge:
        reasons = [r for _, found in scored for r in found if r != "a declarative statement"]
    confidence = min(0.95, 0.55 + 0.1 * abs(best))
    shown = ", ".join(dict.fromkeys(reasons)) or "no lasting statement"
    return KnowledgeClassificationChunk(
        block_id=block.id,
        is_knowledge=knowledge,
        confidence=confidence,
        reason=("knowledge: " if knowledge else "activity: ") + shown,
    )


def trimmed(sentence: str) -> str:
    """The sentence as a statement: a leading connective dropped, the first letter raised."""
    text = " ".join(sentence.split())
    lowered = text.lower()
    for lead in CONNECTIVES:
        after = lowered[len(lead) : len(lead) + 1]
        if lowered.startswith(lead) and (after == "," or (after == " " and lead in BARE)):
            rest = text[len(lead) :].lstrip(", ")
            if len(rest.split()) >= 4:
                text = rest
            break
    return text[:1].upper() + text[1:]


def reword(block: Block) -> Iterator[ContentRewordingChunk]:
    """The block's strongest knowledge sentence (the first of equals) as its statement; a
    sentence cut out of a longer quotation, or one that introduces what follows it, is
    never one."""
    whole = [(n, s) for n, s in enumerate(block.sentences) if quotes_pair(s) and not introduces(s)]
    scored = [(signals(s)[0], -n, s) for n, s in whole]
    best = max(scored, default=None)
    if best is not None and best[0] > 0:
        sentence = best[2]
        yield ContentRewordingChunk(
            block_id=block.id,
            reworded_content=trimmed(sentence),
            citations=[Cited(source_id=block.source_id, quote=sentence)],
        )


def topic(block: Block) -> str:
    """Where the block's statements belong: its nearest heading (the page's title when it
    has none), else its most used term."""
    if block.heading.strip():
        return block.heading
    terms = Counter(w.lower() for s in block.sentences for w in candidate_terms(s))
    return terms.most_common(1)[0][0].capitalize() if terms else UNFILED


def integrate(
    block: Block, statements_from_before: bool, book: Notebook, page: str, title: str
) -> IntegrationDecisionChunk:
    section = book.section(title)
    if statements_from_before:
        earlier = book.of_block(block.id)[0]
        action, target = "replace", earlier[0].statements[earlier[1]].id
        why = "the block's statement changed: the new one replaces it in its section"
    elif section is not None:
        action, target = "add_under", section.id
        why = f"the section “{section.title}” already holds this topic"
    else:
        action, target = "add_section", None
        why = "a new topic: its own section"
    return IntegrationDecisionChunk(
        knowledge_block_id=block.id,
        target_page=page,
        action=action,  # type: ignore[arg-type]
        target_block_id=target,
        target_block_title=title,
        confidence=0.6,
        reasoning=why,
    )
