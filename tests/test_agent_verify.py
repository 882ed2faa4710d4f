"""Citation verification against stored text: normalized word matching (never forgiving a
changed word), the source's own words shown, ellipses, locators, headings, rejected sources,
URLs that only ever come from the pack, and linear time on long sources."""

from __future__ import annotations

import itertools
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from laika_host.agent.elision import FREE, relation
from laika_host.agent.verify import (
    MAX_CITATIONS,
    PackedSource,
    VerifiedCitation,
    normalize,
    verify_citations,
)

TEXT = (
    "Harbour tides\n\nHigh water comes twice a day because the moon pulls the oceans.\n\n"
    "Spring tides\n\nSpring tides are the largest of the month — when sun and moon pull "
    "together — and “neap” tides the smallest. Tides are the largest at the equinox.\n\n"
    "Tides are the largest at the equinox. The range is 3.5 metres, -5 °C at 50% of 1,000 "
    "days."
)
MARKDOWN = (
    "# Harbour tides\n\nHigh water comes twice a day because the moon pulls the oceans.\n\n"
    "## Spring tides ##\n\nSpring tides are the largest of the month — when sun and moon pull "
    "together — and “neap” tides the smallest. Tides are the largest at the equinox.\n\n"
    "Tides are the largest at the equinox. The range is 3.5 metres, -5 °C at 50% of 1,000 "
    "days."
)
SOURCE = PackedSource("doc-1", "src_1", "https://tides.test/page#top", TEXT, MARKDOWN, "Tides")


def check(quote: str, **ids: str) -> VerifiedCitation:
    citation = {"quote": quote, **(ids or {"doc_id": "doc-1"})}
    return verify_citations([citation], [SOURCE]).citations[0]


def test_an_exact_quote_is_verified_with_a_locator_and_heading() -> None:
    found = check("High water comes twice a day because the moon pulls the oceans.")
    assert found.verified
    assert found.method == "exact"
    assert found.source_id == "src_1"
    assert found.quote == "High water comes twice a day because the moon pulls the oceans"
    assert found.locator is not None
    assert found.locator.startswith("https://tides.test/page#:~:text=")
    assert unquote(found.locator.split("=", 1)[1]).startswith("High water comes twice a,")
    assert found.heading == "Harbour tides"


def test_quote_marks_dashes_case_and_whitespace_are_forgiven_and_the_source_shown() -> None:
    found = check(
        '"spring tides are the largest of the month - when sun and moon pull together, and '
        "'neap'   tides\""
    )
    assert found.verified
    assert found.method == "exact"
    assert found.quote == (
        "Spring tides are the largest of the month — when sun and moon pull together — and "
        "“neap” tides"
    )
    assert found.heading == "Spring tides"


@pytest.mark.parametrize(
    "quote",
    [
        "Spring tides are not the largest of the month",  # negation added
        "Spring tides are the largest of the year",  # a word replaced
        "Spring tides are the largest of month",  # a word dropped
        "High water comes two times a day because the moon pulls the oceans.",
        "The range is 35 metres",  # 3.5 is not 35
        "The range is 3.6 metres",
        "The range is 3.5 feet",  # the unit
        "metres, 5 °C at 50%",  # -5 is not 5
        "-5 °C at 50 of 1,000 days",  # 50% is not 50
        "at 50% of 1000 days",  # 1,000 is written differently: not claimed as the same
        "largest of the mont",  # part of a word is not the word
    ],
)
def test_a_changed_word_number_or_unit_is_not_verified(quote: str) -> None:
    found = check(quote)
    assert not found.verified
    assert found.method == "none"
    assert found.reason is not None
    assert "not in the source" in found.reason
    assert found.quote == quote  # an unverified quote stays the model's, flagged
    assert found.locator is None


@pytest.mark.parametrize(
    "quote",
    ["The range is 3.5 metres", "-5 °C at 50 % of 1,000 days", "range is 3.5 metres, −5 °c"],
)
def test_numbers_units_and_signs_match_as_written(quote: str) -> None:
    assert check(quote).verified


def test_a_repeated_quote_gets_prefix_and_suffix() -> None:
    found = check("the largest at the equinox")
    assert found.verified
    assert found.locator is not None
    fragment = unquote(found.locator.split("=", 1)[1])
    assert fragment == "smallest. Tides are-,the largest at the equinox,-. Tides are"


def test_an_ellipsis_leaves_out_whole_clauses_and_shows_the_sources_parts() -> None:
    aside = verify_on_text(
        "Big spring tides, the highest of the month, and “neap” tides, the lowest, alternate.",
        "Big spring tides ... and neap tides, the lowest, alternate",
    )
    assert aside.verified
    assert aside.method == "elided"
    assert aside.quote == "Big spring tides … and “neap” tides, the lowest, alternate"
    # issue 24: "— when sun and moon pull together —" is a condition with its own verb
    condition = check("Spring tides are the largest of the month ... and neap tides the smallest")
    assert not condition.verified
    assert condition.reason is not None
    assert "'when', a condition" in condition.reason
    sentence = verify_on_text(
        "The tide turned at noon. Gulls rose over the pier. The boats came home.",
        "The tide turned at noon. [...] The boats came home.",
    )
    assert (sentence.verified, sentence.method) == (True, "elided")
    assert sentence.quote == "The tide turned at noon … The boats came home"
    backwards = check("and neap tides the smallest … Spring tides are the largest")
    assert not backwards.verified
    as_written = verify_on_text("Wait… what? It rose.", "wait ... what? it rose")
    assert as_written.verified  # an ellipsis that is the source's own joins nothing
    assert as_written.method == "exact"
    assert as_written.quote == "Wait… what? It rose"
    one_word = check("High … oceans")
    assert not one_word.verified
    assert one_word.reason is not None
    assert "ellipsis" in one_word.reason


@pytest.mark.parametrize(
    ("quote", "reason"),
    [
        ("High water comes twice a day ... the moon pulls the oceans", "one word ('because')"),
        ("Spring tides are the largest … sun and moon pull together", "part of a clause"),
        ("tides the smallest. … The range is 3.5 metres", "across paragraphs"),
    ],
)
def test_an_ellipsis_that_drops_one_word_cuts_a_clause_or_spans_paragraphs_is_refused(
    quote: str, reason: str
) -> None:
    found = check(quote)
    assert not found.verified
    assert found.reason is not None
    assert reason in found.reason, found.reason
    assert found.quote == quote


@pytest.mark.parametrize(
    ("quote", "reason"),
    [
        ("Invented words here … and neap tides the smallest", "not in the source"),
        ("Spring tides are the largest of the month … invented words here", "not in the source"),
        (
            "High water comes twice a day … Spring tides are the largest … invented words here",
            "not in the source",
        ),
        (" … ".join(["Tides are the largest"] * 9), "at most 8 parts"),
    ],
)
def test_an_elided_quote_with_a_part_not_in_the_source_is_not_verified(
    quote: str, reason: str
) -> None:
    found = check(quote)
    assert not found.verified
    assert found.reason is not None
    assert reason in found.reason


def test_a_line_break_alone_is_no_boundary_and_spaced_dots_are_an_ellipsis() -> None:
    wrapped = "Spring tides are\nsaid by some to be\nlarger than neap tides.\nBoats wait."
    found = verify_on_text(wrapped, "Spring tides are … larger than neap tides")
    assert not found.verified  # a hard-wrapped sentence is still one sentence
    assert found.reason is not None
    assert "part of a clause" in found.reason
    spaced = verify_on_text(
        "The tide turned at noon. Gulls rose over the pier. The boats came home.",
        "The tide turned at noon . . . The boats came home",
    )
    assert (spaced.verified, spaced.method) == (True, "elided")


ATTACK = (
    "Spring tides are not larger than neap tides in this harbour, the survey found. "
    "The harbour master said the tide never rises above 3 metres in summer. "
    "Ships may not enter the harbour at low tide without a pilot. "
    "In 2019 the council rejected the plan to dredge the channel. "
    "Researchers grew 10\u00b2 cells in the lab and counted 5\u00bd percent as damaged."
)


@pytest.mark.parametrize(
    "quote",
    [
        "Spring tides are … larger than neap tides in this harbour",  # drops "not"
        "Ships may … enter the harbour at low tide",  # drops "not"
        "Ships may not enter the harbour at low tide … a pilot",  # drops "without"
        "the tide never rises … 3 metres in summer",  # drops "above"
        "the harbour master said the tide … rises above 3 metres",  # drops "never"
        "In 2019 the council … the plan to dredge the channel",  # drops "rejected"
        "In 2019 the council … plan to dredge the channel",  # drops "rejected the"
        "Spring tides are ... the plan to dredge the channel",  # splices two sentences
        "The harbour master said … the plan to dredge the channel",
        "the survey found. ... Ships may not enter the harbour at low tide without a pilot",
        "Researchers grew 102 cells in the lab",  # 10² is not 102
        "counted 51/2 percent as damaged",  # 5½ is not 51/2
    ],
)
def test_the_reviewers_changed_quotes_are_not_verified(quote: str) -> None:
    found = verify_on_text(ATTACK, quote)
    assert not found.verified, found.quote
    assert found.reason is not None
    assert found.quote == quote


def test_the_reviewers_source_still_verifies_honest_elisions() -> None:
    text = (
        ATTACK + " The harbour pilots, who train for years, know the channel well. The tug "
        "crews rest on Sundays. Cargo arrives at dawn."
    )
    clause = verify_on_text(text, "The harbour pilots … know the channel well")
    assert (clause.verified, clause.method) == (True, "elided")
    assert clause.quote == "The harbour pilots … know the channel well"
    sentence = verify_on_text(text, "know the channel well. ... Cargo arrives at dawn.")
    assert (sentence.verified, sentence.method) == (True, "elided")
    assert sentence.quote == "know the channel well … Cargo arrives at dawn"
    negated = verify_on_text(text, "the plan to dredge the channel. … The harbour pilots")
    assert negated.verified  # the left-out sentence ("Researchers grew...") negates nothing
    reversed_claim = verify_on_text(text, "without a pilot. … Researchers grew 10² cells")
    assert not reversed_claim.verified  # it would leave out "rejected"
    assert reversed_claim.reason is not None
    assert "'rejected'" in reversed_claim.reason


def verify_on_text(text: str, quote: str) -> VerifiedCitation:
    source = PackedSource("doc-1", "src_1", "https://page.test/", text)
    return verify_citations([{"doc_id": "doc-1", "quote": quote}], [source]).citations[0]


def test_sources_outside_the_pack_are_rejected() -> None:
    outside = check("High water comes twice a day", source_id="src_other")
    assert not outside.verified
    assert outside.reason is not None
    assert outside.reason.startswith("rejected")
    mismatch = check("High water comes twice a day", doc_id="doc-1", source_id="src_9")
    assert not mismatch.verified
    assert mismatch.reason is not None
    assert "different sources" in mismatch.reason


def test_inline_markers_map_to_citations() -> None:
    result = verify_citations(
        [{"doc_id": "doc-1", "quote": "the moon pulls the oceans"}],
        [SOURCE],
        "Twice a day [1]. Also see [2].",
    )
    assert result.citations[0].marker == 1
    assert result.warnings == ["the answer cites [2], which names no citation"]
    many = verify_citations([], [SOURCE], " ".join(f"[{n}]" for n in range(1, 900)) * 40)
    assert many.warnings == [
        "the answer cites [1], [2], [3], [4], [5] and 894 more, which name no citation"
    ]


def test_citations_beyond_the_bound_are_dropped_with_a_warning() -> None:
    citations = [{"doc_id": "doc-1", "quote": "the moon pulls the oceans"}] * (MAX_CITATIONS + 5)
    result = verify_citations(citations, [SOURCE])
    assert len(result.citations) == MAX_CITATIONS
    assert f"only the first {MAX_CITATIONS}" in result.warnings[0]


def test_normalize() -> None:
    assert normalize("  “Quoted” — text\u00a0HERE, Straße ﬁne ") == "quoted text here strasse fine"
    assert normalize("3.5 km, -5 °C, 50%") == "3.5 km -5 ° c 50 %"


# --- properties over random sources -------------------------------------------------------

MEANINGFUL = [
    "not", "no", "never", "0", "1", "2", "7", "12", "2024", "1999", "january", "march",
    "july", "december", "monday", "km", "kg", "mg", "ml", "metres", "miles", "percent",
    "paris", "london", "alice", "bob", "million", "billion", "year", "month", "day",
]  # fmt: skip
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüøñßÉÜ"
plain_words = st.text(alphabet=ALPHABET, min_size=1, max_size=9)
any_words = st.one_of(st.sampled_from(MEANINGFUL), plain_words)
TRAIL = ["", ",", ".", ";", ":", "!", "?", ")", "”", "’", '"', " —", " -", " –"]
LEAD = ["", "(", "“", "‘", '"', "'", "[", "*", "_"]
SPACES = [" ", "  ", "\n", "\n\n", "\t", " \u00a0", "\u2003"]


def key(word: str) -> str:
    return unicodedata.normalize("NFKC", word).casefold()


@dataclass
class Page:
    words: list[str]
    text: str
    starts: list[int]
    ends: list[int]

    def span(self, first: int, last: int) -> str:
        return self.text[self.starts[first] : self.ends[last]]


def separator(draw: st.DrawFn) -> str:
    """Whitespace with optional punctuation on either side, as prose has between words."""
    return (
        draw(st.sampled_from(TRAIL)) + draw(st.sampled_from(SPACES)) + draw(st.sampled_from(LEAD))
    )


@st.composite
def pages(draw: st.DrawFn, min_words: int = 2) -> Page:
    chosen = draw(st.lists(any_words, min_size=min_words, max_size=40, unique_by=key))
    text, starts, ends = draw(st.sampled_from(LEAD)), [], []
    for word in chosen:
        starts.append(len(text))
        text += word
        ends.append(len(text))
        text += separator(draw)
    return Page(chosen, text, starts, ends)


@st.composite
def spans(draw: st.DrawFn, min_size: int = 1) -> tuple[Page, int, int]:
    page = draw(pages(min_words=min_size))
    first = draw(st.integers(0, len(page.words) - min_size))
    last = draw(st.integers(first + min_size - 1, len(page.words) - 1))
    return page, first, last


CASES: list[Callable[[str], str]] = [str.lower, str.upper, str.title, str.swapcase, str]


def noisy(draw: st.DrawFn, chosen: list[str]) -> str:
    """The words again with other case, whitespace, quote marks and punctuation."""
    out = draw(st.sampled_from(['"', "“", "'", "", "‘"]))
    for number, word in enumerate(chosen):
        out += draw(st.sampled_from(CASES))(word)
        if number < len(chosen) - 1:
            out += separator(draw)
    return out + draw(st.sampled_from(['"', "”", ".", "", ",”", "’", " "]))


def verify_on(page: Page, quote: str, url: str = "https://page.test/a") -> VerifiedCitation:
    source = PackedSource("doc-1", "src_1", url, page.text)
    return verify_citations([{"doc_id": "doc-1", "quote": quote}], [source]).citations[0]


@settings(max_examples=300, deadline=None)
@given(st.data(), spans())
def test_any_span_with_noise_verifies_and_shows_the_sources_words(
    data: st.DataObject, span: tuple[Page, int, int]
) -> None:
    page, first, last = span
    quote = noisy(data.draw, page.words[first : last + 1])
    found = verify_on(page, quote)
    assert found.verified, (quote, page.text)
    assert found.quote == page.span(first, last)
    assert found.url == "https://page.test/a"


def unused_word(page: Page) -> st.SearchStrategy[str]:
    used = {key(word) for word in page.words}
    return any_words.filter(lambda word: key(word) not in used)


@settings(max_examples=300, deadline=None)
@given(
    st.data(),
    st.one_of(spans(min_size=2), spans(min_size=10)),  # long ones: a fuzzy match's blind spot
    st.sampled_from(["insert", "delete", "replace"]),
)
def test_a_span_with_one_word_inserted_deleted_or_replaced_is_not_verified(
    data: st.DataObject, span: tuple[Page, int, int], change: str
) -> None:
    page, first, last = span
    chosen = page.words[first : last + 1]
    if change == "insert":  # anywhere, a word the page does not have
        at = data.draw(st.integers(0, len(chosen)))
        chosen.insert(at, data.draw(unused_word(page)))
    elif change == "delete":  # inside: dropping an end word leaves a shorter true quote
        assume(len(chosen) >= 3)
        del chosen[data.draw(st.integers(1, len(chosen) - 2))]
    else:  # by any other word, from the page or not
        at = data.draw(st.integers(0, len(chosen) - 1))
        other = data.draw(st.one_of(unused_word(page), st.sampled_from(page.words)))
        assume(key(other) != key(chosen[at]))
        chosen[at] = other
    quote = noisy(data.draw, chosen) if data.draw(st.booleans()) else " ".join(chosen)
    found = verify_on(page, quote)
    assert not found.verified, (quote, found.quote)
    assert found.url == "https://page.test/a"


# --- elisions -------------------------------------------------------------------------------

NEGATIONS = [
    "not", "never", "no", "nor", "without", "none", "nothing", "neither", "hardly", "barely",
    "scarcely", "except", "unless", "isn't", "didn’t", "can't", "failed", "nicht", "nie",
    "keine", "keinen", "jamais", "pas", "n'est", "sin", "nunca", "non", "niet", "geen", "ne",
]  # fmt: skip
COMPARISONS = ["more", "less", "larger", "smaller", "above", "below", "before", "after", "up"]
NONE_, CLAUSE, SENTENCE, PARAGRAPH = 0, 1, 2, 3
MARKS = {
    NONE_: [" ", "  ", "\u00a0", " “", "” ", "\t", " *", "\n"],
    CLAUSE: [", ", "; ", ": ", " — ", " – ", " - ", " (", ") ", ",\u00a0", "， "],
    SENTENCE: [". ", "! ", "? ", ".\n", "… ", ".” ", "。 "],
    PARAGRAPH: ["\n\n", ".\n\n", "\n \n", ".\r\n\r\n"],
}
neutral_words = st.one_of(
    st.sampled_from([w for w in MEANINGFUL if relation(w) == FREE]),
    st.text(alphabet=[c for c in ALPHABET if not c.isdigit()], min_size=1, max_size=9),
).filter(lambda word: relation(normalize(word)) == FREE and normalize(word) != "t")
"""Words a gap may hold anywhere (issue 24: no number, verb or relative word either)."""


@dataclass
class Elision:
    page: Page
    head: tuple[int, int]
    tail: tuple[int, int]

    def quote(self, draw: st.DrawFn, mark: str, invented: bool = False) -> str:
        """Head, mark, tail; with `invented`, one of their words is one the page lacks."""
        kept = [
            self.page.words[self.head[0] : self.head[1] + 1],
            self.page.words[self.tail[0] : self.tail[1] + 1],
        ]
        if invented:
            part = kept[draw(st.integers(0, 1))]
            part[draw(st.integers(0, len(part) - 1))] = "invented2word"  # longer than any
        return noisy(draw, kept[0]) + mark + noisy(draw, kept[1])

    def shown(self) -> str:
        return self.page.span(*self.head) + " … " + self.page.span(*self.tail)


def written(draw: st.DrawFn, chosen: list[str], levels: list[int]) -> Page:
    text, starts, ends = "", [], []
    for number, word in enumerate(chosen):
        starts.append(len(text))
        text += word
        ends.append(len(text))
        if number < len(levels):
            text += draw(st.sampled_from(MARKS[levels[number]]))
    return Page(chosen, text + ".", starts, ends)


@st.composite
def elisions(draw: st.DrawFn, flaw: str = "none") -> Elision:
    """Prose with a head, a left-out gap and a tail; `flaw` makes the gap one that may not
    be left out (else it is whole clauses or sentences of 2..40 neutral words)."""
    size = {"single": 1, "long": draw(st.integers(41, 60))}.get(flaw, draw(st.integers(2, 38)))
    before, head, tail, after = (draw(st.integers(lo, 8)) for lo in (0, 3, 3, 0))
    chosen = draw(
        st.lists(neutral_words, min_size=before + head + size + tail + after,
                 max_size=before + head + size + tail + after, unique_by=key)
    )  # fmt: skip
    levels = draw(st.lists(st.integers(0, 3), min_size=len(chosen) - 1, max_size=len(chosen) - 1))
    first, last = before + head, before + head + size - 1  # the gap's words
    for at in range(before, before + head - 1):  # kept parts stay inside one paragraph
        levels[at] = min(levels[at], SENTENCE)
    for at in range(last + 1, last + tail):
        levels[at] = min(levels[at], SENTENCE)
    inner = [draw(st.integers(0, SENTENCE)) for _ in range(size - 1)]
    top = max(inner, default=NONE_)
    edges = [draw(st.integers(max(top, CLAUSE), SENTENCE)) for _ in range(2)]
    if flaw == "cut":  # the gap starts or ends inside a clause
        edges[draw(st.integers(0, 1))] = NONE_
    elif flaw == "splice":  # a sentence boundary inside, a clause boundary at one end
        assume(size >= 2)
        inner[draw(st.integers(0, size - 2))] = SENTENCE
        edges[draw(st.integers(0, 1))] = CLAUSE
    elif flaw == "paragraph":
        where = draw(st.integers(0, size))
        if where < size - 1:
            inner[where] = PARAGRAPH
        else:
            edges[where - size + 1] = PARAGRAPH
    elif flaw == "comparison":  # inside one sentence
        inner = [min(level, CLAUSE) for level in inner]
        edges[draw(st.integers(0, 1))] = CLAUSE
    levels[first - 1], levels[last] = edges
    levels[first:last] = inner
    if flaw in ("negation", "comparison"):  # one of the gap's words says "not" (or "more")
        words = NEGATIONS if flaw == "negation" else COMPARISONS
        chosen[draw(st.integers(first, last))] = draw(st.sampled_from(words))
    page = written(draw, chosen, levels)
    return Elision(page, (before, first - 1), (last + 1, last + tail))


FLAWS = ["single", "long", "cut", "splice", "paragraph", "negation", "comparison", "invented"]
ELLIPSES = ["...", "…", " [...] ", " (…) ", " ... ", "[…]", " . . . "]


@settings(max_examples=300, deadline=None)
@given(st.data(), elisions())
def test_leaving_out_whole_clauses_or_sentences_verifies_and_shows_the_sources_parts(
    data: st.DataObject, elision: Elision
) -> None:
    quote = elision.quote(data.draw, data.draw(st.sampled_from(ELLIPSES)))
    found = verify_on(elision.page, quote)
    assert found.verified, (quote, elision.page.text, found.reason)
    assert found.method == "elided"
    assert found.quote == elision.shown()
    assert found.locator is not None


@settings(max_examples=300, deadline=None)
@given(
    st.data(),
    st.sampled_from(FLAWS).flatmap(lambda flaw: st.tuples(st.just(flaw), elisions(flaw))),
)
def test_an_ellipsis_that_changes_what_the_kept_words_say_is_not_verified(
    data: st.DataObject, flawed: tuple[str, Elision]
) -> None:
    flaw, elision = flawed
    mark = data.draw(st.sampled_from(ELLIPSES))
    quote = elision.quote(data.draw, mark, invented=flaw == "invented")
    found = verify_on(elision.page, quote)
    assert not found.verified, (flaw, quote, elision.page.text)
    assert found.reason is not None
    assert ("not in the source" if flaw == "invented" else "ellipsis") in found.reason
    assert found.quote == quote


@settings(max_examples=300, deadline=None)
@given(st.data(), spans(min_size=7), st.sampled_from(NEGATIONS), st.booleans())
def test_a_quote_without_a_negation_or_one_word_of_its_source_is_not_verified(
    data: st.DataObject, span: tuple[Page, int, int], negation: str, negate: bool
) -> None:
    """Any source, any span: put a negation inside it and quote the span without it, or quote
    the span without one of its words; an ellipsis in its place or not."""
    page, first, last = span
    chosen = page.words[first : last + 1]
    if negate:
        at = data.draw(st.integers(3, len(chosen) - 3))
        where = page.starts[first + at]
        text = page.text[:where] + negation + " " + page.text[where:]
        head, tail = chosen[:at], chosen[at:]
    else:
        at = data.draw(st.integers(3, len(chosen) - 4))
        text = page.text
        head, tail = chosen[:at], chosen[at + 1 :]
    mark = data.draw(st.sampled_from([*ELLIPSES, " "]))
    quote = noisy(data.draw, head) + mark + noisy(data.draw, tail)
    found = verify_on(Page(page.words, text, [], []), quote)
    assert not found.verified, (quote, text)


HOSTILE = ["javascript:alert(1)", "data:text/html,<script>x</script>", "https://evil.test/x"]
HOSTILE_URLS = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(max_size=40),
    st.none(),
)


@settings(max_examples=200, deadline=None)
@given(
    spans(),
    HOSTILE_URLS,
    st.sampled_from(["doc-1", "doc-x", None]),
    st.sampled_from(["src_1", "src_x", None]),
    st.booleans(),
)
def test_a_citation_url_only_ever_comes_from_the_pack(
    span: tuple[Page, int, int],
    url: str | None,
    doc_id: str | None,
    source_id: str | None,
    true_quote: bool,
) -> None:
    page, first, last = span
    quote = page.span(first, last) if true_quote else "invented words here"
    source = PackedSource("doc-1", "src_1", "https://page.test/a#frag", page.text)
    citation = {"doc_id": doc_id, "source_id": source_id, "quote": quote, "url": url}
    citation["locator"] = {"type": "text_fragment", "value": url}
    [found] = verify_citations([citation], [source]).citations
    shown = found.to_json()
    by_doc = doc_id == "doc-1" and source_id in ("src_1", None)
    packed = by_doc or (doc_id != "doc-1" and source_id == "src_1")
    assert shown["url"] == ("https://page.test/a#frag" if packed else None)
    if shown["locator"] is not None:
        assert shown["locator"].startswith("https://page.test/a#:~:text=")
    if url in HOSTILE:
        assert url not in str({k: v for k, v in shown.items() if k != "quote"})


# --- time -----------------------------------------------------------------------------------


def best_time(run: Callable[[], object], rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        # CPU time, not wall time: other processes on these cores must not fail a complexity bound
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


def long_source(chars: int) -> PackedSource:
    """Near-miss text everywhere: every window almost matches the quote."""
    unit = "the tide is high and the tide is low. "
    text = unit * (chars // len(unit)) + "the tide is high, as a rule, and the moon is full."
    markdown = "".join(f"## Part {n}\n\n{unit * 3}\n\n" for n in range(chars // 130)) + text
    return PackedSource("doc-1", "src_1", "https://long.test/", text, markdown)


def verify_long(source: PackedSource) -> None:
    quotes = [
        "the tide is high and the tide is low. " * 50 + "the tide is high, as a rule, and",
        "the tide is high and the tide is high",  # never there: a full scan
        "the tide is high ... and the moon is full",  # every "the tide is high" a candidate
        "the tide is high and ... the tide is high",  # each walks back the longest gap, in vain
    ]
    result = verify_citations([{"doc_id": "doc-1", "quote": q} for q in quotes], [source])
    assert [c.verified for c in result.citations] == [True, False, True, False]
    assert result.citations[0].heading is not None


@pytest.mark.slow  # > 3 s with the cores busy
def test_verification_is_linear_in_the_length_of_the_source() -> None:
    small, large = long_source(50_000), long_source(200_000)
    verify_long(small)  # warm up
    small_time = best_time(lambda: verify_long(small))
    large_time = best_time(lambda: verify_long(large))
    assert large_time < 2.0
    assert large_time / small_time < 11, (small_time, large_time)  # linear 4, quadratic 16


# --- numbers: no normalization makes two different numbers equal ---------------------------


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("Researchers grew 10² cells in the lab", "Researchers grew 102 cells in the lab"),
        ("Researchers grew 10² cells in the lab", "Researchers grew 10 2 cells in the lab"),
        ("Researchers grew 10² cells in the lab", "Researchers grew 10^2 cells in the lab"),
        ("They counted 5½ percent as damaged", "They counted 51/2 percent as damaged"),
        ("They counted 5½ percent as damaged", "They counted 51⁄2 percent as damaged"),
        ("They counted 5½ percent as damaged", "They counted 5 1/2 percent as damaged"),
        ("The flat has 40 m² of floor", "The flat has 40 m2 of floor"),
        ("The flat has 40 ㎡ of floor", "The flat has 40 m2 of floor"),
        ("The level of CO₂ rose", "The level of CO2 rose"),
        ("Step ⑫ comes next", "Step 12 comes next"),
        ("Step ⒈ comes next", "Step 1. comes next"),
        ("It takes 2ⁿ steps", "It takes 2n steps"),
        ("A dose of 10⁻³ grams", "A dose of 10-3 grams"),
        ("A dose of 10^3 grams", "A dose of 10 3 grams"),
    ],
)
def test_superscripts_fractions_and_other_number_forms_are_not_plain_digits(
    text: str, quote: str
) -> None:
    assert not verify_on_text(text, quote).verified
    as_written = verify_on_text(text, text.upper())
    assert as_written.verified
    assert as_written.quote == text


FULL_WIDTH = {chr(ord("0") + n): chr(0xFF10 + n) for n in range(10)}
NUMBER_CHARS = "0123456789" + "".join(FULL_WIDTH.values()) + "⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉½⅓¼¾⅛⅟↉①⑩⑴⒈㉑🄂𝟐"
NUMBER_SEPARATORS = [",", ".", "'", "’", "\u00a0", "\u202f", " ", "٫", "٬", "·", "^", "/"]
SAME_AS = {
    **{v: k for k, v in FULL_WIDTH.items()},
    "𝟐": "2",
    "’": "'",
    "\u00a0": " ",
    "\u202f": " ",
}


@st.composite
def number_texts(draw: st.DrawFn) -> list[str]:
    """A number as written, as a list of characters: digits in any form, separators between."""
    groups = draw(st.lists(st.text(NUMBER_CHARS, min_size=1, max_size=4), min_size=1, max_size=4))
    chars = list(groups[0])
    for group in groups[1:]:
        chars += [draw(st.sampled_from(NUMBER_SEPARATORS)), *group]
    return chars


def well_formed(chars: list[str]) -> bool:
    """Digits at both ends, and never two separators in a row."""
    marks = [char in NUMBER_SEPARATORS for char in chars]
    return (
        bool(chars)
        and not marks[0]
        and not marks[-1]
        and not any(a and b for a, b in itertools.pairwise(marks))
    )


def meaning(chars: list[str]) -> str:
    """What the number says: the same digits in another width, or the same space, say it too."""
    return "".join(SAME_AS.get(char, char) for char in chars)


@settings(max_examples=500, deadline=None)
@given(st.data(), number_texts())
def test_two_numbers_compare_equal_only_when_they_say_the_same(
    data: st.DataObject, chars: list[str]
) -> None:
    other = list(chars)
    at = data.draw(st.integers(0, len(other) - 1))
    change = data.draw(st.sampled_from(["replace", "insert", "delete"]))
    if change == "replace":
        kind = NUMBER_SEPARATORS if other[at] in NUMBER_SEPARATORS else list(NUMBER_CHARS)
        other[at] = data.draw(st.sampled_from(kind))
    elif change == "insert":
        other.insert(at, data.draw(st.sampled_from(list(NUMBER_CHARS))))
    else:
        del other[at]
    assume(well_formed(other))
    written, changed = "".join(chars), "".join(other)
    same = meaning(chars) == meaning(other)
    assert (normalize(written) == normalize(changed)) == same, (written, changed)
    quoted = verify_on_text(f"The count was {written} in all", f"the count was {changed} in all")
    assert quoted.verified == same
