"""Short image captions and photo credits, removed before extraction.

Extraction runs with images off (they are re-attached from the page), so a caption stays
behind as a lone paragraph that reads like the article's own words ("Rust am Westufer des
Neusiedler Sees.", "Foto: dpa"). A caption is a `<figcaption>`, or an element named
caption, credit or copyright (class, id or aria-label tokens) beside an image. Only short
ones go: measured on half A of capture-dev, 50 of the annotators' boilerplate snippets sit in
such elements and 4 of their main-text snippets, all in captions of 129-305 characters (a
caption that long reads as prose and is kept).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from lxml import etree
from lxml.html import HtmlElement

from .dom import Element, drop_tree
from .prune import tokens

MAX_CAPTION = 120
"""Characters of a caption that is dropped; longer ones are kept as prose."""
CAPTION_NAMES = frozenset({"caption", "figcaption", "credit", "credits", "copyright"})
IMAGE_TAGS = frozenset({"img", "picture", "figure", "svg", "video"})
_LOOK_NODES = 64
"""Nodes looked at per question (text length, a nearby image): a page of 10,000 nested
captions stays linear."""
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_ATTRIBUTED = etree.XPath("descendant-or-self::*[@*]")


def is_caption_named(names: frozenset[str]) -> bool:
    """Whether name tokens (`prune.tokens`) call an element a caption or credit."""
    return not CAPTION_NAMES.isdisjoint(names)


def drop_captions(root: HtmlElement, named: Iterable[Element] | None = None) -> int:
    """Remove short captions in place; returns how many. `named`: the elements already
    found named like captions (the prune pass reads every name once); None: look here."""
    if named is None:
        attributed = _ATTRIBUTED(root)  # in C; most elements have no attributes
        named = [
            e
            for e in (attributed if isinstance(attributed, list) else [])
            if isinstance(e, etree._Element)
        ]
    unique = dict.fromkeys([*root.iter("figcaption"), *named])  # a named figcaption: twice
    doomed = [e for e in unique if _is_caption(e)]
    for element in doomed:
        drop_tree(element)
    return len(doomed)


def _is_caption(element: Element) -> bool:
    tag = element.tag
    if not isinstance(tag, str) or tag in _HEADINGS:
        return False
    if tag == "figcaption":
        return _is_short(element) and not _holds_image(element)
    if not element.attrib or CAPTION_NAMES.isdisjoint(tokens(element)):
        return False
    # a wrapper named caption that holds the image itself is the figure: its text part is
    # found on its own (a `p.wp-caption-text` in a `div.wp-caption`)
    return _is_short(element) and not _holds_image(element) and _beside_image(element)


def _is_short(element: Element) -> bool:
    """Some text, under MAX_CAPTION characters (words and single spaces), in no more than
    _LOOK_NODES text nodes (more: not a short caption)."""
    length = 0
    for count, text in enumerate(element.itertext(), 1):
        length += len(" ".join(str(text).split()))
        if length > MAX_CAPTION or count > _LOOK_NODES:
            return False
    return length > 0


def _beside_image(element: Element) -> bool:
    """An image next to the element, or next to its parent (a caption's wrapper)."""
    parent = element.getparent()
    for node in (element, parent):
        if node is not None and any(_holds_image(near) for near in _siblings(node)):
            return True
    return parent is not None and parent.tag == "figure"


def _siblings(node: Element) -> list[Element]:
    before = itertools.islice(node.itersiblings(preceding=True), 2)
    after = itertools.islice(node.itersiblings(), 2)
    return [*before, *after]


def _holds_image(node: Element) -> bool:
    return any(
        isinstance(inner.tag, str) and inner.tag in IMAGE_TAGS
        for inner in itertools.islice(node.iter(), _LOOK_NODES)
    )
