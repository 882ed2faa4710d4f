"""Which sentences of a stored capture can stand as evidence for the offline runtime.

A page's Markdown mixes prose with headings, image captions, bylines, kicker labels,
reference lines ("Citation: ... retrieved ... from https://..."), code and tables. Quoted as an
answer, those read as nonsense, so the blocks are classified from the Markdown first and only
prose is split into sentences; a sentence must then look like one (enough words, closing
punctuation, no bare URL, not code). Splitting knows abbreviations, initials and day-month
dates ("Mortimer B. Zuckerman", "den 8. November"), and a line wrapped inside a paragraph
does not end a sentence. Everything is one pass over lines and one regex scan per block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

MIN_WORDS = 5
MAX_SENTENCE = 800
MAX_CAPTION = 200
MAX_BYLINE = 120
CODE_SHARE = 0.05
URL_SHARE = 0.5
"""A sentence that is more than half URL is a reference line ("Retrieved from https://..."),
not a statement; one that names a URL in passing is still prose."""
"""A sentence where more than this share of characters are code punctuation is code."""

_FENCE = re.compile(r"(?:`{3,}|~{3,})")
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_IMAGE = re.compile(r"!\[[^\[\]\n]*\]\([^()\n]*\)")  # no nested brackets: linear on "[[[["
_LINKED_IMAGE = re.compile(r"\[!\[[^\[\]\n]*\]\([^()\n]*\)\]\([^()\n]*\)")
_LINK = re.compile(r"\[(?P<text>[^\[\]\n]*)\]\([^()\n]*\)")
_ESCAPE = re.compile(r"\\(?P<char>[!-/:-@\[-`{-~])")
_EMPHASIS = re.compile(r"(?<![\w\\])[*_]{1,3}|(?<!\\)[*_]{1,3}(?!\w)|`+")  # "\*" is text
_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]+")
_QUOTE_MARK = re.compile(r">[ \t]?")
_ITALIC_BLOCK = re.compile(r"(?:\*[^*\n]+\*|_[^_\n]+_)")
_URL = re.compile(r"(?:https?://|www\.\w)\S*+", re.IGNORECASE)
_BOUNDARY = re.compile(r"(?<![.!?…])[.!?…]++[\"'\u201d\u2019»)\]*†‡]*+\s+")  # once per run
_WORD = re.compile(r"[^\W\d_]+")
_LABEL = re.compile(
    r"(?:citation|cite this|source|sources|quelle|quellen|credit|credits|photo|photos|"
    r"foto|fotos|bild|image|images|caption|copyright|doi|tags|keywords|schlagworte|"
    r"more information|further reading|read more|related|weiterlesen|mehr zum thema)"
    r"[ \t]*:",
    re.IGNORECASE,
)
_BYLINE = re.compile(
    r"(?:by|von|par|por|di|door|posted by|written by|text|texte|autor|author)[ \t]+\S",
    re.IGNORECASE,
)
_CODE_CHARS = frozenset("{}[]=<>\\|$#@")
"""Characters code is dense in and prose is not (a semicolon is prose punctuation too)."""
_CLOSERS = "\"'\u201d\u2019»)]*†‡"
"""What may follow a sentence's closing punctuation: quotes, brackets, a footnote mark."""
ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof st sr jr vs etc eg ie cf al fig nr vol ca approx inc ltd corp gov sen
    rep gen col lt sgt mt ft dept univ jan feb mar apr jun jul aug sep sept oct nov dec bzw
    zb ua usw vgl ggf evtl inkl bspw hr dipl mio mrd ziff mme mlle env pp""".split()  # noqa: SIM905
)
"""Words that a period after does not end the sentence (compared lowercased, dots removed)."""
MONTHS = frozenset(
    """january february march april may june july august september october november december
    januar jänner februar märz mai juni juli oktober dezember janvier février mars avril
    juin juillet août septembre octobre novembre décembre enero febrero marzo abril mayo
    junio julio agosto septiembre octubre noviembre diciembre""".split()  # noqa: SIM905
)
"""After `8.` a month name means a date ("den 8. November"), not a sentence end."""


@dataclass(frozen=True)
class Block:
    kind: str  # heading, image, caption, code, table, byline, label, list, paragraph
    text: str
    level: int = 0  # an ATX heading's level (a title written as plain text: 0)


def blocks(markdown: str, title: str | None = None) -> list[Block]:
    """The Markdown's blocks with their kinds; the page title written as plain text counts
    as a heading."""
    found: list[Block] = []
    after_image = False
    for kind, lines in _raw_blocks(markdown):
        block = _classify(kind, lines, after_image, title)
        found.append(block)
        after_image = block.kind == "image"
    return found


def evidence(markdown: str, title: str | None = None) -> list[str]:
    """The sentences of the page's prose that can be quoted as evidence, in page order."""
    return [s for block in blocks(markdown, title) for s in block_sentences(block)]


def paragraph_openings(markdown: str, title: str | None = None) -> list[str]:
    """The first evidence sentence of each prose block (for an extractive summary)."""
    firsts = (block_sentences(block) for block in blocks(markdown, title))
    return [found[0] for found in firsts if found]


def block_sentences(block: Block) -> list[str]:
    if block.kind not in ("paragraph", "list"):
        return []
    return [s for s in split_sentences(block.text) if is_sentence(s)]


def is_sentence(sentence: str) -> bool:
    """Enough words, closing punctuation, no bare URL, and not code."""
    if len(sentence) > MAX_SENTENCE or len(_WORD.findall(sentence)) < MIN_WORDS:
        return False
    if sentence.rstrip(_CLOSERS)[-1:] not in ".!?…:":
        return False
    if sum(len(url) for url in _URL.findall(sentence)) > URL_SHARE * len(sentence):
        return False
    code = sum(1 for char in sentence if char in _CODE_CHARS)
    return code <= CODE_SHARE * len(sentence)


def split_sentences(text: str) -> list[str]:
    """Sentences of plain prose (a line break always ends one); a period after an
    abbreviation, an initial or a day before a month does not, nor one followed by a
    lowercase word."""
    found = []
    for line in text.split("\n"):
        start = 0
        for match in _BOUNDARY.finditer(line):
            end = match.end()
            if end < len(line) and (line[end].islower() or _continues(line, match.start(), end)):
                continue
            found.append(line[start:end].strip())
            start = end
        found.append(line[start:].strip())
    return [sentence for sentence in found if sentence]


def plain(markdown: str) -> str:
    """Inline Markdown to text: images dropped, links to their text, emphasis and
    escapes undone."""
    text = _LINKED_IMAGE.sub(" ", markdown)
    text = _IMAGE.sub(" ", text)
    text = _LINK.sub(lambda m: m.group("text"), text)
    text = _EMPHASIS.sub("", text)
    return _ESCAPE.sub(lambda m: m.group("char"), text)


def _continues(text: str, stop: int, end: int) -> bool:
    """The period at `stop` belongs to an abbreviation ("then-Rep." too), an initial or a
    date."""
    if text[stop] != ".":
        return False
    before = text[max(0, stop - 24) : stop].rsplit(None, 1)[-1:] or [""]
    word = before[0].lstrip("(\"'\u201c\u2018[").rsplit("-", 1)[-1].replace(".", "").lower()
    if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return True
    following = _WORD.findall(text[end : end + 16])[:1] or [""]
    return word.isdigit() and len(word) <= 2 and following[0].lower() in MONTHS


def _raw_blocks(markdown: str) -> Iterator[tuple[str, list[str]]]:
    """Blank-line separated blocks; a fenced code block is one block whatever it holds."""
    lines: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines():
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
                yield "code", lines
                lines = []
            continue
        opening = _FENCE.match(stripped)
        if opening or not stripped:
            if lines:
                yield "text", lines
            lines = []
            fence = opening.group(0) if opening else None
            continue
        lines.append(stripped)
    if lines:
        yield ("code" if fence is not None else "text"), lines


def _classify(kind: str, lines: list[str], after_image: bool, title: str | None) -> Block:
    if kind == "code" or not lines:
        return Block("code", "")
    first = lines[0]
    if _HEADING.match(first):
        level = len(first) - len(first.lstrip("#"))
        return Block("heading", plain(first.lstrip("#").strip()), level)
    if first.startswith("|"):
        return Block("table", "")
    if _QUOTE_MARK.match(first):
        lines = [_QUOTE_MARK.sub("", line, count=1) for line in lines]
    if _LIST_ITEM.match(lines[0]):
        return Block("list", _items(lines))
    text = _joined(lines)
    if not text.strip():
        return Block("image", "")  # nothing but images
    raw = " ".join(lines)
    return Block(_prose_kind(raw, text, after_image, title), text)


def _prose_kind(raw: str, text: str, after_image: bool, title: str | None) -> str:
    words = " ".join(text.split())
    if title and words.casefold() == " ".join(title.split()).casefold() and not _statement(words):
        return "heading"  # a title that reads as a statement (a note's first line) is prose
    if _IMAGE.search(raw) and len(words) <= MAX_CAPTION:
        return "caption"  # an image with its caption in one block
    if len(words) <= MAX_CAPTION and (after_image or _ITALIC_BLOCK.fullmatch(raw)):
        return "caption"
    if _LABEL.match(words):
        return "label"
    if _BYLINE.match(words) and len(words) <= MAX_BYLINE and _names_follow(words):
        return "byline"
    return "paragraph"


def _statement(words: str) -> bool:
    return is_sentence(words) and words.rstrip(_CLOSERS)[-1:] in ".!"


def _names_follow(line: str) -> bool:
    """After its first word, a byline is mostly capitalized words (names) and does not end
    like a sentence ("By the time we got there, ..." is prose)."""
    rest = _WORD.findall(line)[1:]
    capitalized = sum(1 for word in rest if word[0].isupper())
    return line[-1:] not in ".!?…" and capitalized * 2 >= len(rest)


def _items(lines: list[str]) -> str:
    """A list's items, each its own sentence run (an item without closing punctuation is
    kept apart from the next one by a line break that ends it)."""
    items: list[list[str]] = []
    for line in lines:
        marker = _LIST_ITEM.match(line)
        if marker or not items:
            items.append([line[marker.end() :] if marker else line])
        else:
            items[-1].append(line)
    return "\n".join(_joined(item) for item in items)


def _joined(lines: list[str]) -> str:
    """A block's lines as one text: a wrapped line (no closing punctuation before, a
    lowercase word after) joins the next with a space; any other line break ends a
    sentence (kept as a newline)."""
    parts = [plain(line).strip() for line in lines]
    text = ""
    for part in parts:
        if not part:
            continue
        if not text:
            text = part
        elif text[-1] not in ".!?…:" and part[0].islower():
            text += " " + part
        else:
            text += "\n" + part
    return text
