"""Structural bounds, applied before the parser and the extractors see a page.

The extractors cost about 25-70 us per element here (trafilatura's Python passes; a link
costs most), and some shapes cost more than linear time: libxml2 checks each attribute of a
tag against all the others (80,000 attributes took 8 s to parse, and trafilatura 34 s more),
and trafilatura's table code is quadratic in the cells of a row (80,000 took 24-60 s). A page
under 1 MB can hold 250,000 elements, so every such measure gets a bound, generous next to
real pages (the 602 capture-dev pages have at most 1,933 elements, 26 attributes on a tag
and 13 cells in a row). Whatever a bound leaves out is reported (`truncated`).
"""

from __future__ import annotations

import itertools
import re

from lxml import etree

MAX_ATTRIBUTES = 256
"""Attributes kept on one tag; the parser is quadratic in them, so this acts on the text."""
MAX_ROW_CELLS = 1_000
MAX_ELEMENTS = 10_000
"""Elements kept after pruning: a page of 10,000 links (the costliest kind) takes 1-2 s."""
_START_TAG = re.compile(
    # a whole start tag: name, then attributes with quoted or bare values, then `>` (or the
    # end of the page). Every character fits some part, so a match never fails half-way and
    # possessive repeats never backtrack: one linear pass over the page.
    r"<[A-Za-z][^\s/>]*+"
    r"""(?:[\s/]*+[^\s/>][^\s/>=]*+(?:\s*+=\s*+(?:"[^"]*+"|'[^']*+'|[^\s>"'][^\s>]*+))?+)*+"""
    r"[\s/]*+(?:>|\Z)"
)
_ATTRIBUTE = re.compile(  # starts after a name or value, never inside a run of spaces
    r"""(?<![\s/])[\s/]*+[^\s/>][^\s/>=]*+(?:\s*+=\s*+(?:"[^"]*+"|'[^']*+'|[^\s>"'][^\s>]*+))?+"""
)
_TAG_NAME = re.compile(r"<[A-Za-z][^\s/>]*+")
_LONG_TAG = 2 * MAX_ATTRIBUTES  # a shorter tag cannot hold more attributes than the bound


def bound_attributes(text: str) -> tuple[str, bool]:
    """`text` with at most `MAX_ATTRIBUTES` attributes on each start tag (the first ones);
    whether any tag had more."""
    kept: list[str] = []
    copied = 0
    for tag in _START_TAG.finditer(text):
        if tag.end() - tag.start() <= _LONG_TAG:
            continue
        bounded = _first_attributes(tag.group())
        if bounded is not None:
            kept.append(text[copied : tag.start()])
            kept.append(bounded)
            copied = tag.end()
    if not kept:
        return text, False
    kept.append(text[copied:])
    return "".join(kept), True


def _first_attributes(tag: str) -> str | None:
    """The tag with its first `MAX_ATTRIBUTES` attributes, or None when it has no more."""
    name = _TAG_NAME.match(tag)
    assert name is not None
    attributes = _ATTRIBUTE.finditer(tag, name.end())
    last = next(itertools.islice(attributes, MAX_ATTRIBUTES, None), None)
    if last is None:
        return None
    return tag[: last.start()] + ">"


def bound_tree(root: etree._Element) -> bool:
    """Cut rows to `MAX_ROW_CELLS` cells and the page to `MAX_ELEMENTS` elements (in document
    order); whether anything was cut."""
    cut = False
    for row in root.iter("tr"):
        if len(row) > MAX_ROW_CELLS:
            del row[MAX_ROW_CELLS:]
            cut = True
    last = next(itertools.islice(root.iter(), MAX_ELEMENTS - 1, None), None)
    if last is not None and _has_more(last):
        _cut_after(last)
        cut = True
    return cut


def _has_more(element: etree._Element) -> bool:
    if len(element):
        return True
    return any(node.getnext() is not None for node in (element, *element.iterancestors()))


def _cut_after(element: etree._Element) -> None:
    """Remove everything that follows `element`'s start in document order."""
    del element[:]
    node = element
    while (parent := node.getparent()) is not None:
        del parent[parent.index(node) + 1 :]
        node.tail = None
        node = parent
