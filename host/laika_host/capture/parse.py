"""Page text to an lxml tree, bounded in size and in time linear in the page's length.

A page over `MAX_PARSE_CHARS` is fed to lxml's own parser in pieces; scripts and styles are
emptied as soon as the parser has read them (comments are never kept), and feeding stops,
before a tag, once what is kept reaches the bound. The parser decides what is a comment or
a script (a `<script>` inside a comment is text), so nothing visible is lost to a guess, and
no pass rescans the page: a regex stripper that did took 40 s on a 2.5 MB page of 3,000
unclosed `<script>` tags. libxml2 stops reading at 256 nested elements; such a page is
reported as cut too.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree
from lxml.html import HtmlComment, HtmlElement, HtmlEntity, HtmlProcessingInstruction

from .dom import drop_tree
from .errors import CaptureError
from .limits import bound_attributes

MAX_PARSE_CHARS = 2_000_000
FEED_CHARS = 1 << 16
_HIDDEN = ("script", "style")
_DEPTH_LIMIT = "Excessive depth"  # libxml2's message when it stops at 256 nested elements
_FULL_DOCUMENT = re.compile(r"\s*<(?:html|!doctype)", re.IGNORECASE)  # as lxml.html decides
_CONTROLS = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])
_NONCHARACTERS = ("\ufdd0".encode(), "\ufffe".encode(), "\uffff".encode())
"""What no XML text may hold (C0 controls but tab and newlines; U+FFFE, U+FFFF) and the
noncharacter `spacing.PIN` reserves. libxml2's HTML parser keeps them in the tree, and lxml
then refuses any text that holds one (a page with a stray U+001D crashed capture the first
time a step rewrote a text), so they leave the bytes handed to the parser (a C0 byte in
UTF-8 is always that character; `bytes.translate` drops them in one C pass)."""


def _lookup() -> etree.ElementDefaultClassLookup:
    """One element class for every tag. lxml.html's own lookup picks form and input classes
    (which capture never uses) in Python, for every element object that prune, the
    extractors and the converter touch: about 2% of capture time."""
    return etree.ElementDefaultClassLookup(
        element=HtmlElement,
        comment=HtmlComment,
        pi=HtmlProcessingInstruction,
        entity=HtmlEntity,
    )


def _html_parser() -> lxml.html.HTMLParser:
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    parser.set_element_class_lookup(_lookup())
    return parser


_PARSER = _html_parser()


def parse_page(
    text: str, *, fragment: bool, limit: int = MAX_PARSE_CHARS
) -> tuple[HtmlElement, bool]:
    """The page's tree (a `<div>` holding the fragment when `fragment`), and whether part of
    the page was left out (over `limit` characters, or nested too deep to read)."""
    text, _ = bound_attributes(text)  # the parser is quadratic in a tag's attributes
    if fragment and not _FULL_DOCUMENT.match(text):
        text = f"<html><body>{text}</body></html>"
    if len(text) <= limit:
        root, cut = _parse_whole(text)
    else:
        root, cut = _parse_bounded(text, limit)
    if root is None:
        raise CaptureError("empty", "the page has no content (only comments or whitespace)")
    return (_as_fragment(root) if fragment else root), cut


def _safe_bytes(text: str) -> bytes:
    """`text` as UTF-8 for the parser, without the characters no XML text may hold."""
    data = text.encode("utf-8", "replace").translate(None, _CONTROLS)
    for character in _NONCHARACTERS:
        if character in data:
            data = data.replace(character, b"")
    return data


def _parse_whole(text: str) -> tuple[HtmlElement | None, bool]:
    try:
        root: HtmlElement | None = etree.fromstring(_safe_bytes(text), _PARSER)
    except etree.XMLSyntaxError:
        root = None
    return root, _stopped_early(_PARSER)


def _parse_bounded(text: str, limit: int) -> tuple[HtmlElement | None, bool]:
    """Feed `text` piece by piece, dropping scripts and styles once read, until `limit`
    characters are kept (cut before a tag) or the page ends."""
    parser = etree.HTMLPullParser(
        events=("end",),
        tag=_HIDDEN,
        encoding="utf-8",
        remove_comments=True,
        remove_pis=True,
    )
    parser.set_element_class_lookup(_lookup())
    kept = 0
    position = 0
    cut = False
    emptied: list[HtmlElement] = []
    while position < len(text):
        piece = text[position : _before_tag(text, position + FEED_CHARS)]
        if kept + len(piece) > limit:
            room = max(0, limit - kept)
            before_tag = piece.rfind("<", 0, room)
            piece = piece[: before_tag if before_tag > 0 else room]
            cut = True
        parser.feed(_safe_bytes(piece))
        position += len(piece)
        kept += len(piece) - _empty_read(parser, emptied)
        if cut:
            break
    try:
        root: HtmlElement | None = parser.close()
    except etree.XMLSyntaxError:
        root = None
    for element in emptied:  # the parser is done: now the tree may be rearranged
        if element.getparent() is not None:
            drop_tree(element)
    return root, cut or _stopped_early(parser)


def _before_tag(text: str, at: int) -> int:
    """Where the piece that reaches `at` ends: before the next `<`, so that no tag, comment
    opener or closer is split between two pieces and the cut at the bound can fall before a
    tag. Each search starts past the last one."""
    found = text.find("<", at)
    return len(text) if found == -1 else found


def _empty_read(parser: etree.HTMLPullParser, emptied: list[HtmlElement]) -> int:
    """Empty the scripts and styles the parser finished; the characters they held.

    Only their insides go while the parser runs: it appends the next text to the last text
    node it made using the length it remembers, so moving a tail into a neighbour's text (as
    `drop_tree` does) made it write at a stale offset: `-->` + style + `\n-->` read as
    `--->`, so a page fed in pieces showed other words than the whole page. Each emptied
    element is dropped once parsing ends."""
    dropped = 0
    for _event, element in parser.read_events():
        if isinstance(element, HtmlElement) and element.getparent() is not None:
            dropped += len(element.text or "")
            element.text = None
            emptied.append(element)
    return dropped


def _stopped_early(parser: etree.HTMLParser) -> bool:
    """Whether libxml2 gave up before the end of the page (too deeply nested)."""
    return any(_DEPTH_LIMIT in entry.message for entry in parser.error_log)


def _as_fragment(root: HtmlElement) -> HtmlElement:
    """The `<body>`'s content in a new `<div>`, as lxml.html's fragment_fromstring gives it."""
    body = root.find("body")
    wrapper: HtmlElement = lxml.html.Element("div")
    if body is None:
        return wrapper
    if body.text and body.text.strip():
        wrapper.text = body.text
    wrapper.extend(list(body))
    return wrapper
