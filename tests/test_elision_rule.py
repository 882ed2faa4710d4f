"""What an ellipsis may hide (issue 24, `agent/elision.py`): sentences built from parts
(subject, verb, object, asides, attributions, conditions, contrasts, negations, numbers,
clauses of their own), quoted with a gap over one part; a quote verifies exactly when the
hidden part is one the rule allows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.agent.verify import PackedSource, VerifiedCitation, verify_citations


def verify_on_text(text: str, quote: str) -> VerifiedCitation:
    source = PackedSource("doc-1", "src_1", "https://page.test/", text)
    return verify_citations([{"doc_id": "doc-1", "quote": quote}], [source]).citations[0]


# --- the cases found on held-out pages ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "quote", "named"),
    [
        (
            "As incomes rise, the amount of pollution produced increases; at some point, the "
            "pollution decreases again.",
            "As incomes rise ... the pollution decreases again",
            "a finite verb",
        ),
        (
            "The new drug, critics claim, causes serious harm to the liver.",
            "The new drug ... causes serious harm to the liver",
            "'critics', an attribution",
        ),
        (
            "Bread prices here, according to the ministry, will rise again next year.",
            "Bread prices here ... will rise again next year",
            "'according', an attribution",
        ),
        (
            "The bridge is safe for heavy trucks, the engineer said, after the repairs.",
            "The bridge is safe for heavy trucks … after the repairs",
            "'said', an attribution",
        ),
        (
            "The vaccine is effective, researchers reported, in older patients.",
            "The vaccine is effective … in older patients",
            "'reported', an attribution",
        ),
        (
            "Coffee is good for the heart, the study suggests, in small doses.",
            "Coffee is good for the heart … in small doses",
            "'suggests', an attribution",
        ),
        (
            "The harbour will close, if the storm arrives, for the whole week.",
            "The harbour will close … for the whole week",
            "'if', a condition",
        ),
        (
            "Exports grew strongly, by 40 percent, in the first quarter.",
            "Exports grew strongly … in the first quarter",
            "'40', a number",
        ),
    ],
)
def test_a_gap_that_hides_what_the_kept_words_lean_on_is_refused(
    text: str, quote: str, named: str
) -> None:
    found = verify_on_text(text, quote)
    assert not found.verified, found.quote
    assert found.reason is not None
    assert named in found.reason, found.reason


@pytest.mark.parametrize(
    ("honest", "twin", "quote"),
    [
        (
            "The harbour pilots, who train for years, know the channel well.",
            "The harbour pilots, the mayor said, know the channel well.",
            "The harbour pilots … know the channel well",
        ),
        (
            "The old harbour, a relic of the sailing age, was rebuilt by the council.",
            "The old harbour, it seems, was rebuilt by the council.",
            "The old harbour … was rebuilt by the council",
        ),
        (
            "The market sold apples, pears, plums, and figs to the crews.",
            "The market sold apples, 40 pears, plums, and figs to the crews.",
            "The market sold apples … and figs to the crews",
        ),
        (
            "The harbour report, published in the spring, describes the port in detail.",
            "The harbour report, if published in the spring, describes the port in detail.",
            "The harbour report … describes the port in detail",
        ),
        (
            "The city museum (a former customs house) opens its doors at ten.",
            "The city museum (built in 1890) opens its doors at ten.",
            "The city museum … opens its doors at ten",
        ),
        (
            "The tide turned at noon. It rose 3 metres above the mark. The boats came home.",
            "The tide turned at noon. The harbour master said so at once. The boats came home.",
            "The tide turned at noon. … The boats came home.",
        ),
    ],
)
def test_an_aside_a_list_item_a_parenthetical_or_whole_sentences_may_be_left_out(
    honest: str, twin: str, quote: str
) -> None:
    """Each honest elision beside its twin: the same shape, hiding an attribution, a
    condition, a number or a clause of its own instead."""
    found = verify_on_text(honest, quote)
    assert found.verified, found.reason
    assert found.method == "elided"
    refused = verify_on_text(twin, quote)
    assert not refused.verified, refused.quote
    assert refused.reason is not None
    assert "ellipsis" in refused.reason


# --- generated sentences -------------------------------------------------------------------

SUBJECTS = [
    "the harbour council", "the old port authority", "the river pilots", "the city museum board",
    "the northern ferry line", "our local fishing club",
]  # fmt: skip
VERBS = ["expanded", "repaired", "inspected", "painted", "reopened", "cleaned"]
OBJECTS = [
    "the northern pier", "the main channel", "its oldest warehouse", "the ferry terminal",
    "the long sea wall", "the green lighthouse",
]  # fmt: skip

ALLOWED_ASIDES = {
    "appositive": ["a quiet body of local members", "the oldest in the region", "a former town"],
    "adjective": ["old and slow", "proud and busy", "quiet and careful"],
    "relative": [
        "which opened in the spring", "who know the channel well",
        "whose members meet in the old hall", "which was founded long ago",
    ],
    "participle": ["built in stone", "founded by fishermen", "painted green"],
    "phrase": ["in a good year", "with great care", "as a rule"],
}  # fmt: skip
FORBIDDEN_ASIDES = {
    "attribution": [
        "according to the mayor", "the mayor said", "critics claim", "officials say",
        "the report suggests", "sources told reporters", "it was reportedly",
    ],
    "condition": [
        "if the budget allows", "when the tide is low", "unless it rains", "only in summer",
        "provided funds arrive", "until the storm",
    ],
    "contrast": ["but slowly", "although late", "however", "despite the storm", "whereas others"],
    "negation": ["not the city", "never before", "without a permit", "hardly at all"],
    "number": ["by 40 percent", "in 2019", "for three years", "at a cost of 2.5 million"],
    "clause": [
        "the tide rose", "the amount of traffic increases", "they repaired the crane",
        "the budget was cut", "the old crane fell", "the water level dropped",
    ],
    "comparison": ["more than ever", "above the old level", "before the winter"],
}  # fmt: skip
ALLOWED_SENTENCES = [
    "The gulls circled the pier", "It took 3 years and 2 million", "Work rose above the plan",
    "The crews painted the boats",
]  # fmt: skip
FORBIDDEN_SENTENCES = {
    "attribution": ["The mayor said so", "Critics claim otherwise", "That is what reports say"],
    "condition": ["It closes if it rains", "Work stops when the tide turns"],
    "contrast": ["But the port stayed small", "However the cost grew"],
    "negation": ["It was not enough", "Nobody came"],
}
MARKS = [(", ", ", "), (" (", ") "), (" — ", " — ")]
ELLIPSES = ["...", "…", " [...] ", " … ", "(…)"]


@dataclass
class Case:
    text: str
    quote: str
    hidden: str
    kind: str
    allowed: bool


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


@st.composite
def asides(draw: st.DrawFn) -> Case:
    """`Subject, ASIDE, verb object.` quoted as `Subject … verb object`."""
    allowed = draw(st.booleans())
    table = ALLOWED_ASIDES if allowed else FORBIDDEN_ASIDES
    kind = draw(st.sampled_from(sorted(table)))
    hidden = draw(st.sampled_from(table[kind]))
    subject, verb, thing = (draw(st.sampled_from(words)) for words in (SUBJECTS, VERBS, OBJECTS))
    opening, closing = draw(st.sampled_from(MARKS))
    text = f"{capital(subject)}{opening}{hidden}{closing.rstrip()} {verb} {thing}."
    quote = f"{capital(subject)}{draw(st.sampled_from(ELLIPSES))}{verb} {thing}"
    return Case(text, quote, hidden, kind, allowed)


@st.composite
def main_clauses(draw: st.DrawFn) -> Case:
    """`As incomes rise, HIDDEN, the pollution decreases again.`: the hidden part between a
    subordinate clause and a main clause."""
    allowed = draw(st.booleans())
    if allowed:
        kind = draw(st.sampled_from(["phrase", "adjective"]))
        hidden = draw(st.sampled_from(ALLOWED_ASIDES[kind]))
    else:
        kind = draw(st.sampled_from(["clause", "attribution", "condition", "number"]))
        hidden = draw(st.sampled_from(FORBIDDEN_ASIDES[kind]))
    lead = draw(st.sampled_from(["As incomes rise", "While fees stay low", "As the tide falls"]))
    main = draw(st.sampled_from(["the pollution decreases again", "the harbour gets busy"]))
    text = f"{lead}, {hidden}, {main}."
    return Case(text, f"{lead}{draw(st.sampled_from(ELLIPSES))}{main}", hidden, kind, allowed)


@st.composite
def sentences(draw: st.DrawFn) -> Case:
    """`First sentence. HIDDEN SENTENCE. Last sentence.` quoted without the middle one."""
    allowed = draw(st.booleans())
    if allowed:
        kind, hidden = "sentence", draw(st.sampled_from(ALLOWED_SENTENCES))
    else:
        kind = draw(st.sampled_from(sorted(FORBIDDEN_SENTENCES)))
        hidden = draw(st.sampled_from(FORBIDDEN_SENTENCES[kind]))
    first = f"{capital(draw(st.sampled_from(SUBJECTS)))} {draw(st.sampled_from(VERBS))} it"
    last = f"{capital(draw(st.sampled_from(OBJECTS)))} looks fine"
    text = f"{first}. {hidden}. {last}."
    return Case(text, f"{first}.{draw(st.sampled_from(ELLIPSES))}{last}.", hidden, kind, allowed)


@st.composite
def lists(draw: st.DrawFn) -> Case:
    """`The market sold a, B, C, and d to the crews.` quoted without the middle items."""
    items = draw(st.permutations(["apples", "pears", "plums", "figs", "nets", "ropes"]))
    allowed = draw(st.booleans())
    middle = [items[1], items[2] if allowed else f"{draw(st.sampled_from(['40', 'twelve']))} "
              f"{items[2]}"]  # fmt: skip
    text = f"The market sold {items[0]}, {middle[0]}, {middle[1]}, and {items[3]} to the crews."
    quote = (
        f"The market sold {items[0]}{draw(st.sampled_from(ELLIPSES))}and {items[3]} to the crews"
    )
    kind = "list item" if allowed else "number"
    return Case(text, quote, ", ".join(middle), kind, allowed)


@settings(max_examples=400, deadline=None)
@given(st.one_of(asides(), main_clauses(), sentences(), lists()))
def test_a_gap_verifies_exactly_when_what_it_hides_is_allowed(case: Case) -> None:
    found = verify_on_text(case.text, case.quote)
    assert found.verified == case.allowed, (case.kind, case.text, case.quote, found.reason)
    if case.allowed:
        assert found.method == "elided"
        assert case.hidden not in found.quote
    else:
        assert found.reason is not None
        assert "ellipsis" in found.reason
        assert found.quote == case.quote


# --- time ------------------------------------------------------------------------------------


@pytest.mark.slow  # > 3 s with the cores busy
def test_placing_elided_quotes_stays_linear_with_the_rule() -> None:
    """Every sentence a candidate for each part, every gap walked back to its longest with
    the rule's bookkeeping (relative clauses, participles, numbers, verbs)."""
    unit = (
        "The harbour pilots, who train for years and were paid well, know the channel well, "
        "as a rule, built in stone in 2019, the budget was cut. "
    )
    quotes = [
        "The harbour pilots … know the channel well",
        "know the channel well … the budget was cut",  # hides a clause: refused everywhere
        "The harbour pilots … the budget was cut",  # hides a number and a verb: refused
        "The harbour pilots … know the channel well … built in stone in 2019",
    ]

    def prepare(repeat: int) -> Callable[[], object]:
        source = PackedSource("doc-1", "src_1", "https://page.test/", unit * repeat)
        citations = [{"doc_id": "doc-1", "quote": quote} for quote in quotes]
        return lambda: verify_citations(citations, [source])

    source = PackedSource("doc-1", "src_1", "https://page.test/", unit * 20)
    found = verify_citations([{"doc_id": "doc-1", "quote": q} for q in quotes], [source])
    assert [c.verified for c in found.citations] == [True, False, False, True]
    assert_linear(prepare, 250, 2000, bound=24)  # 8x the text: linear 8, quadratic 64
