"""Citation verification: a citation is shown as verified only when its quote is found in the
stored text of a source that was actually in the pack.

Matching normalizes case, whitespace, quote marks, dashes and ellipses, then looks for the
quote exactly; failing that, a bounded fuzzy match accepts small variations (a changed word,
dropped punctuation: similarity >= 0.9 over a span within 15% of the quote's length). Each
verified citation gets a locator: a `#:~:text=` URL (start,end for long quotes; prefix- and
-suffix when the quote occurs more than once) and the nearest section heading above it.
Unverified citations are kept, flagged, never shown as verified.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote as percent

FUZZY_RATIO = 0.9
LENGTH_SLACK = 0.15
MAX_QUOTE = 2000
FRAGMENT_WORDS = 5
_TRANSLATE = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"',
        "\u00bb": '"', "\u2033": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-",
        "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-", "\u00a0": " ",
        "\u200b": "", "\u200c": "", "\u200d": "", "\ufeff": "", "\u00ad": "",
    }
)  # fmt: skip
_SPACE = re.compile(r"\s+")
_MARKER = re.compile(r"\[(\d{1,3})\]")
_HEADING = re.compile(  # closing hashes are tried only after a word: linear, not cubic
    r"^(#{1,6})\s++(.+?)(?<![\s#])[ \t]*+#*+[ \t]*+$", re.MULTILINE
)

Method = Literal["exact", "fuzzy", "none"]


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

    def to_json(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "doc_id": self.doc_id,
            "url": self.url,
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


def normalize(text: str) -> str:
    return _SPACE.sub(" ", text.translate(_TRANSLATE)).strip().lower()


class _Index:
    """A source's text normalized once, with a map back to original offsets."""

    def __init__(self, text: str) -> None:
        chars: list[str] = []
        offsets: list[int] = []
        last_space = True
        for position, char in enumerate(text.translate(_TRANSLATE).lower()):
            space = char.isspace()
            if space and last_space:
                continue
            last_space = space
            chars.append(" " if space else char)
            offsets.append(position)
        self.text = "".join(chars)
        self.offsets = offsets
        self.original = text.translate(_TRANSLATE)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original offsets of a normalized span [start, end)."""
        return self.offsets[start], self.offsets[max(start, end - 1)] + 1


def verify_citations(
    citations: list[dict[str, Any]], sources: list[PackedSource], answer_markdown: str = ""
) -> Verification:
    """Check each citation against the packed sources; map inline markers like [1]."""
    by_doc = {s.doc_id: s for s in sources}
    by_source = {s.source_id: s for s in sources if s.source_id}
    indexes: dict[str, _Index] = {}
    result = Verification()
    for citation in citations:
        result.citations.append(_verify_one(citation, by_doc, by_source, indexes))
    _map_markers(answer_markdown, result)
    return result


def _verify_one(
    citation: dict[str, Any],
    by_doc: dict[str, PackedSource],
    by_source: dict[str, PackedSource],
    indexes: dict[str, _Index],
) -> VerifiedCitation:
    doc_id, source_id = citation.get("doc_id"), citation.get("source_id")
    quote = str(citation.get("quote") or "")[:MAX_QUOTE]
    source = by_doc.get(str(doc_id)) if doc_id else None
    if source is None and source_id:
        source = by_source.get(str(source_id))
    claimed = VerifiedCitation(source_id, doc_id, citation.get("url"), quote, verified=False)
    if source is None:
        claimed.reason = "rejected: it names a source that was not in the pack"
        return claimed
    if doc_id and source_id and source.source_id and source.source_id != source_id:
        claimed.reason = "rejected: doc_id and source_id name different sources"
        return claimed
    claimed.source_id, claimed.doc_id, claimed.url = source.source_id, source.doc_id, source.url
    if not normalize(quote):
        claimed.reason = "unverified: the quote is empty"
        return claimed
    index = indexes.setdefault(source.doc_id, _Index(source.text))
    found = _find(index, normalize(quote))
    if found is None:
        claimed.reason = "unverified: the quote is not in the source's stored text"
        return claimed
    start, end, method = found
    claimed.verified, claimed.method = True, method
    claimed.locator = text_fragment_url(source.url, index, start, end)
    claimed.heading = nearest_heading(
        source.markdown, index.original[slice(*index.span(start, end))]
    )
    return claimed


def _find(index: _Index, quote: str) -> tuple[int, int, Method] | None:
    at = index.text.find(quote)
    if at >= 0:
        return at, at + len(quote), "exact"
    return _fuzzy(index.text, quote)


def _fuzzy(text: str, quote: str) -> tuple[int, int, Method] | None:
    """The best span of `text` within a small edit distance of `quote`, anchored on the
    longest piece they share (bounded: one SequenceMatcher pass, then one ratio check)."""
    if len(quote) < 20:
        return None
    matcher = difflib.SequenceMatcher(None, text, quote, autojunk=False)
    anchor = matcher.find_longest_match(0, len(text), 0, len(quote))
    if anchor.size < len(quote) // 4:
        return None
    start = max(0, anchor.a - anchor.b)
    best: tuple[float, int, int] | None = None
    slack = int(len(quote) * LENGTH_SLACK)
    for length in range(len(quote) - slack, len(quote) + slack + 1, max(1, slack // 4 or 1)):
        span = text[start : start + length]
        ratio = difflib.SequenceMatcher(None, span, quote, autojunk=False).ratio()
        if best is None or ratio > best[0]:
            best = (ratio, start, start + len(span))
    if best is None or best[0] < FUZZY_RATIO:
        return None
    return best[1], best[2], "fuzzy"


def text_fragment_url(url: str, index: _Index, start: int, end: int) -> str:
    """`url#:~:text=[prefix-,]start[,end][,-suffix]` for the span, unique in the text."""
    span = index.original[slice(*index.span(start, end))]
    words = span.split()
    if len(words) > 2 * FRAGMENT_WORDS:
        first, last = " ".join(words[:FRAGMENT_WORDS]), " ".join(words[-FRAGMENT_WORDS:])
        directive = f"{_encode(first)},{_encode(last)}"
    else:
        directive = _encode(" ".join(words))
    if index.text.count(index.text[start:end]) > 1:
        before = index.original[: index.span(start, end)[0]].split()[-3:]
        after = index.original[index.span(start, end)[1] :].split()[:3]
        if before:
            directive = f"{_encode(' '.join(before))}-,{directive}"
        if after:
            directive = f"{directive},-{_encode(' '.join(after))}"
    return f"{url.split('#', 1)[0]}#:~:text={directive}"


def _encode(text: str) -> str:
    """Percent-encode for a text directive (`-`, `,` and `&` are syntax there)."""
    return percent(text, safe="").replace("-", "%2D")


def nearest_heading(markdown: str, quote_text: str) -> str | None:
    """The last Markdown heading above the quote (None when the quote is not placed)."""
    if not markdown:
        return None
    flat = normalize(markdown)
    at = flat.find(normalize(quote_text)[:80])
    if at < 0:
        return None
    heading = None
    for match in _HEADING.finditer(markdown):
        if flat.find(normalize(match.group(0))) <= at:
            heading = match.group(2).strip()
    return heading


def _map_markers(answer: str, result: Verification) -> None:
    for match in _MARKER.finditer(answer):
        number = int(match.group(1))
        if 1 <= number <= len(result.citations):
            result.citations[number - 1].marker = number
        else:
            result.warnings.append(f"the answer cites [{number}], which names no citation")
