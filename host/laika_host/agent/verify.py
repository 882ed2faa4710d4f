"""Citation verification: a citation is shown as verified only when its quote's words are the
words of a source that was actually in the pack.

Matching (`agent/words.py`) forgives case, Unicode form, whitespace, quote marks, dashes and
punctuation, never a word: a quote that negates, or changes a number, a date, a name or a unit,
is not verified. The pack shows sources as Markdown, so a quote is read as the stored text
is (`capture/text.markdown_to_text`, `readings`): a link is its text, an image nothing,
emphasis, code spans, escapes and character references what a reader sees; a quote may start
or end inside a link. A link's address is never a quoted word: a quote that puts a link
around words the source has plain verifies on those words, and an address cannot stand for a
word the quote lacks. The verified quote is the stored text's span (no syntax, no address),
and its heading is looked up in the Markdown read line by line (`lines_as_text`), so link
markup between the words no longer hides it.

An ellipsis (`...`, `. . .`, `…`, `[...]`) splits a quote into parts of at least
MIN_PART_WORDS words, found in order in the same source, and may stand only for what can be
left out without changing the meaning (`agent/elision.py`): two or more words, whole clauses
or sentences inside one paragraph, never a negation, restriction, contrast, condition or
attribution, and inside a sentence only an aside (no number, comparison or clause with its
own finite verb). A verified
citation shows the source's own words (the span that matched; elided parts joined by ` … `),
never the model's, with a locator: a `#:~:text=` URL (start,end for long quotes; prefix- and
-suffix when the words occur more than once) and the nearest section heading above them.
Unverified citations are kept, flagged with the reason, never shown as verified. A citation's
URL is always the packed source's (None when it names no packed source): nothing link-like
that the model wrote is passed on. Every step is a linear pass, a `str.find` over a source or
a bounded walk back from a match, so long sources stay fast.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote as percent

from ..capture.bounds import PAGE_MARKER, TRUNCATION_MARKER
from ..capture.text import lines_as_text, links_as_text, markdown_to_text
from .elision import MAX_PARTS, MIN_PART_WORDS, Gaps, in_order, place
from .words import WordIndex, normalize, words

__all__ = [
    "MAX_CITATIONS",
    "PackedSource",
    "SourceIndexes",
    "Verification",
    "VerifiedCitation",
    "nearest_heading",
    "normalize",
    "state_of",
    "text_fragment_url",
    "verify_citations",
]

MAX_QUOTE = 2000
MAX_CITATIONS = 64
"""Citations checked per answer; a reply with more keeps the first ones and says so."""
MAX_ID = 200
FRAGMENT_WORDS = 5
HEADING_WORDS = 8
ELIDED = " … "
_DOTS = r"(?:\.(?:[ \t]?\.){2,}|…)"  # `...`, `. . .`, `…`
_ELLIPSIS = re.compile(rf"\[[ \t]*{_DOTS}[ \t]*\]|\([ \t]*{_DOTS}[ \t]*\)|{_DOTS}")
_MARKER = re.compile(r"\[(\d{1,3})\]")
_MARKUP = re.compile(r"[\\`*_~&<>#|\[\]+-]")  # what `markdown_to_text` may read otherwise
_TICKS = re.compile(r"`++")
_HEADING = re.compile(r"^#{1,6}+[ \t]++([^\n]*+)$", re.MULTILINE)  # possessive: linear
_PAGE_OR_CUT = re.compile(
    rf"{PAGE_MARKER.pattern}|^{re.escape(TRUNCATION_MARKER)}$", re.MULTILINE
)  # a PDF page starts, or text was left out
MAX_MARKER_WARNINGS = 5

Method = Literal["exact", "elided", "none"]
State = Literal["verified", "unverified", "rejected"]


def state_of(verified: bool, reason: str | None) -> State:
    """What the UI shows: every reason set here starts with `rejected:` (the citation names
    no packed source, or is not a valid citation) or `unverified:` (a real source, but the
    quote is not in its text); a citation stored before `state` existed gets the same rule."""
    if verified:
        return "verified"
    return "rejected" if (reason or "").startswith("rejected") else "unverified"


@dataclass(frozen=True)
class PackedSource:
    """A source as it was packed: its ids and the text a quote must come from."""

    doc_id: str
    source_id: str | None
    url: str
    text: str
    markdown: str = ""
    title: str | None = None


@dataclass
class VerifiedCitation:
    source_id: str | None
    doc_id: str | None
    url: str | None
    quote: str
    verified: bool
    method: Method = "none"
    reason: str | None = None
    locator: str | None = None
    heading: str | None = None
    marker: int | None = None
    title: str | None = None

    @property
    def state(self) -> State:
        return state_of(self.verified, self.reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "doc_id": self.doc_id,
            "url": self.url,
            "title": self.title,
            "state": self.state,
            "quote": self.quote,
            "locator": self.locator,
            "heading": self.heading,
            "verified": self.verified,
            "method": self.method,
            "reason": self.reason,
            "marker": self.marker,
        }


@dataclass
class Verification:
    citations: list[VerifiedCitation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def all_verified(self) -> bool:
        return all(c.verified for c in self.citations)


@dataclass(frozen=True)
class _Run:
    """A run of `count` source words starting at word `first`."""

    first: int
    count: int

    @property
    def last(self) -> int:
        return self.first + self.count - 1


class _Indexes:
    """Each source's text (and Markdown, for headings) indexed once per verification."""

    def __init__(self) -> None:
        self.texts: dict[str, WordIndex] = {}
        self.markdowns: dict[str, WordIndex] = {}
        self.gaps: dict[str, Gaps] = {}

    def text(self, source: PackedSource) -> WordIndex:
        if source.doc_id not in self.texts:
            self.texts[source.doc_id] = WordIndex(source.text)
        return self.texts[source.doc_id]

    def gaps_of(self, source: PackedSource) -> Gaps:
        """What an ellipsis may leave out of this source (computed on the first elided quote)."""
        if source.doc_id not in self.gaps:
            self.gaps[source.doc_id] = Gaps(self.text(source))
        return self.gaps[source.doc_id]

    def markdown(self, source: PackedSource) -> WordIndex:
        if source.doc_id not in self.markdowns:
            self.markdowns[source.doc_id] = WordIndex(lines_as_text(source.markdown))
        return self.markdowns[source.doc_id]


SourceIndexes = _Indexes
"""Word indexes of sources, built on first use; pass one to several `verify_citations` calls
over the same sources so each source is indexed once."""


def verify_citations(
    citations: list[dict[str, Any]],
    sources: list[PackedSource],
    answer_markdown: str = "",
    *,
    indexes: SourceIndexes | None = None,
) -> Verification:
    """Check each citation against the packed sources; map inline markers like [1].
    `indexes` keeps the sources' word indexes across calls (one per item of a transform)."""
    by_doc = {s.doc_id: s for s in sources}
    by_source = {s.source_id: s for s in sources if s.source_id}
    indexes = indexes if indexes is not None else _Indexes()
    result = Verification()
    if len(citations) > MAX_CITATIONS:
        result.warnings.append(
            f"the reply has {len(citations)} citations; only the first {MAX_CITATIONS} "
            "are checked and kept"
        )
    for citation in citations[:MAX_CITATIONS]:
        result.citations.append(_verify_one(citation, by_doc, by_source, indexes))
    _map_markers(answer_markdown, result)
    return result


def _bounded_id(value: Any) -> str | None:
    return str(value)[:MAX_ID] if value not in (None, "") else None


def _verify_one(
    citation: dict[str, Any],
    by_doc: dict[str, PackedSource],
    by_source: dict[str, PackedSource],
    indexes: _Indexes,
) -> VerifiedCitation:
    doc_id, source_id = _bounded_id(citation.get("doc_id")), _bounded_id(citation.get("source_id"))
    quote = str(citation.get("quote") or "")[:MAX_QUOTE]
    source = by_doc.get(doc_id) if doc_id else None
    if source is None and source_id:
        source = by_source.get(source_id)
    claimed = VerifiedCitation(source_id, doc_id, None, quote, verified=False)  # no model URL
    if "invalid" in citation:  # kept only so that the reply's [n] markers stay in step
        claimed.reason = f"rejected: the reply's citation is not valid ({citation['invalid']})"
        return claimed
    if source is None:
        claimed.reason = "rejected: it names a source that was not in the pack"
        return claimed
    if doc_id and source_id and source.source_id and source.source_id != source_id:
        claimed.reason = "rejected: doc_id and source_id name different sources"
        return claimed
    claimed.source_id, claimed.doc_id, claimed.url = source.source_id, source.doc_id, source.url
    claimed.title = source.title
    reason = None
    for parts in readings(quote):
        _verify_parts(claimed, source, parts, indexes)
        if claimed.verified:
            return claimed
        reason = reason or claimed.reason  # the first reading's
    claimed.reason = reason
    return claimed


def _verify_parts(
    claimed: VerifiedCitation, source: PackedSource, parts: list[list[str]], indexes: _Indexes
) -> None:
    """Verify one reading of a quote's words, or set the reason it is not verified."""
    if not parts:
        claimed.reason = "unverified: the quote has no words"
        return
    index = indexes.text(source)
    whole = [word for part in parts for word in part]  # the source's own `…`, or none left out
    found = index.find(whole)
    if found is not None:
        _mark_verified(claimed, source, index, [_Run(found, len(whole))], indexes)
    elif len(parts) == 1:
        claimed.reason = _NOT_FOUND
    else:
        _verify_elided(claimed, source, parts, indexes)


_NOT_FOUND = "unverified: the quote's words are not in the source's stored text"


def _verify_elided(
    claimed: VerifiedCitation, source: PackedSource, parts: list[list[str]], indexes: _Indexes
) -> None:
    """Verify a quote whose ellipses leave words out, or say why it is not verified."""
    if len(parts) > MAX_PARTS:
        claimed.reason = f"unverified: a quote may have at most {MAX_PARTS} parts between ellipses"
        return
    if min(len(part) for part in parts) < MIN_PART_WORDS:
        claimed.reason = (
            f"unverified: each part of a quote with an ellipsis needs {MIN_PART_WORDS} words"
        )
        return
    index, gaps = indexes.text(source), indexes.gaps_of(source)
    firsts = place(index, gaps, parts)
    if firsts is None:
        claimed.reason = _why_not(index, gaps, parts)
        return
    runs = [_Run(first, len(part)) for first, part in zip(firsts, parts, strict=True)]
    _mark_verified(claimed, source, index, runs, indexes)


def _why_not(index: WordIndex, gaps: Gaps, parts: list[list[str]]) -> str:
    """The reason an elided quote is not verified: a missing part, or the first gap (in the
    earliest placement of the parts) that may not be left out."""
    firsts = in_order(index, parts)
    if firsts is None:
        return _NOT_FOUND
    for (first, part), resumed in zip(zip(firsts, parts, strict=True), firsts[1:], strict=False):
        problem = gaps.problem(first + len(part) - 1, resumed)
        if problem is not None:
            return f"unverified: {problem}"
    return "unverified: the ellipses leave out words that may not be left out"


def readings(quote: str, *, as_written: bool = False) -> list[list[list[str]]]:
    """The ways to read a quote's words, each as its parts between ellipses: as written but
    for links (a link is its text, an image nothing: the pack shows sources as Markdown),
    then, when it holds other inline syntax, as Markdown (emphasis, code, escapes and
    references read as a reader shows them). A link's address is never read as words, so a
    quote that puts a link around words the source has plain is checked on those words
    only. A quote without links is read as written first: what verified before still does,
    the same way. `as_written`: read it wholly as written first (to mark text a reader sees,
    such as a verified quote, the source's own text; never to verify)."""
    found = [_parts(links_as_text(quote, excerpt=True))]
    if _MARKUP.search(quote):
        found.append(_parts(markdown_to_text(quote, excerpt=True)))
        found += [_parts(cut) for cut in _cut_code(quote)]
    if as_written:
        found.insert(0, _parts(quote))
    return [parts for at, parts in enumerate(found) if parts not in found[:at]]


def _cut_code(quote: str) -> list[str]:
    """A quote cut inside a code span, read so: the words before its first backtick run (it
    starts inside code) or after its last one (it ends inside code) are code, kept literal,
    the rest Markdown. An odd number of runs is cut at one end, an even one maybe at both."""
    runs = list(_TICKS.finditer(quote))
    if not runs:
        return []
    first, last = runs[0], runs[-1]
    head, tail = quote[: first.start()], quote[last.end() :]
    if len(runs) % 2:
        return [
            f"{head} {markdown_to_text(quote[first.end() :], excerpt=True)}",
            f"{markdown_to_text(quote[: last.start()], excerpt=True)} {tail}",
        ]
    return [f"{head} {markdown_to_text(quote[first.end() : last.start()], excerpt=True)} {tail}"]


def _parts(quote: str) -> list[list[str]]:
    parts = ([word.text for word in words(part)] for part in _ELLIPSIS.split(quote))
    return [part for part in parts if part]


def _mark_verified(
    claimed: VerifiedCitation,
    source: PackedSource,
    index: WordIndex,
    runs: list[_Run],
    indexes: _Indexes,
) -> None:
    claimed.verified = True
    claimed.method = "exact" if len(runs) == 1 else "elided"
    claimed.quote = ELIDED.join(index.text[slice(*index.span(r.first, r.count))] for r in runs)
    claimed.reason = None
    claimed.locator = text_fragment_url(source.url, index, runs[0].first, runs[-1].last)
    if source.markdown:
        shown = index.words[runs[0].first : runs[0].first + min(runs[0].count, HEADING_WORDS)]
        wanted = [w.text for w in shown]
        claimed.heading = nearest_heading(indexes.markdown(source), wanted)
        page = page_of(indexes.markdown(source), wanted)
        if page is not None:  # a PDF: viewers open `#page=N`, not text fragments
            claimed.locator = f"{source.url.split('#', 1)[0]}#page={page}"


def text_fragment_url(url: str, index: WordIndex, first: int, last: int) -> str:
    """`url#:~:text=[prefix-,]start[,end][,-suffix]` for words first..last, unique in the
    text (prefix and suffix are added when those words occur more than once)."""
    start, end = index.span(first, last - first + 1)
    shown = index.text[start:end].split()
    if len(shown) > 2 * FRAGMENT_WORDS:
        head, tail = " ".join(shown[:FRAGMENT_WORDS]), " ".join(shown[-FRAGMENT_WORDS:])
        directive = f"{_encode(head)},{_encode(tail)}"
    else:
        directive = _encode(" ".join(shown))
    if index.repeated([word.text for word in index.words[first : last + 1]]):
        before = index.text[:start].rsplit(maxsplit=3)[-3:]
        after = index.text[end:].split(maxsplit=3)[:3]
        if before:
            directive = f"{_encode(' '.join(before))}-,{directive}"
        if after:
            directive = f"{directive},-{_encode(' '.join(after))}"
    return f"{url.split('#', 1)[0]}#:~:text={directive}"


def _encode(text: str) -> str:
    """Percent-encode for a text directive (`-`, `,` and `&` are syntax there)."""
    return percent(text, safe="").replace("-", "%2D")


def nearest_heading(markdown: WordIndex, wanted: Sequence[str]) -> str | None:
    """The last Markdown heading at or above the first place these words occur (None when
    they are not found in the Markdown; index it `lines_as_text`, so that link markup
    between the words does not split them)."""
    found = markdown.find(wanted)
    if found is None:
        return None
    offset = markdown.words[found].start
    heading = None
    for match in _HEADING.finditer(markdown.text):
        if match.start() > offset:
            break
        heading = _heading_title(match.group(1)) or heading
    return heading


def page_of(markdown: WordIndex, wanted: Sequence[str]) -> int | None:
    """The PDF page these words are on: the last `[Page N]` marker above their first place,
    unless a truncation marker lies between (the pages in between were left out). None for
    a source without page markers."""
    if "[Page " not in markdown.text:
        return None
    found = markdown.find(wanted)
    if found is None:
        return None
    offset = markdown.words[found].start
    page = None
    for match in _PAGE_OR_CUT.finditer(markdown.text, 0, offset):
        page = int(match.group(1)) if match.group(1) else None
    return page


def _heading_title(line: str) -> str | None:
    """An ATX heading's text without its optional closing `#`s."""
    title = line.strip()
    bare = title.rstrip("#")
    if bare != title and (not bare or bare[-1] in " \t"):
        title = bare.strip()
    return title or None


def _map_markers(answer: str, result: Verification) -> None:
    unknown: list[int] = []
    for match in _MARKER.finditer(answer):
        number = int(match.group(1))
        if 1 <= number <= len(result.citations):
            result.citations[number - 1].marker = number
        elif number not in unknown:
            unknown.append(number)
    if not unknown:
        return
    named = ", ".join(f"[{n}]" for n in unknown[:MAX_MARKER_WARNINGS])
    more = len(unknown) - MAX_MARKER_WARNINGS
    if more > 0:
        named += f" and {more} more"
    verb = "names" if len(unknown) == 1 else "name"
    result.warnings.append(f"the answer cites {named}, which {verb} no citation")
