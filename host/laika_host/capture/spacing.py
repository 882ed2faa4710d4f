"""Word boundaries next to inline elements, kept through trafilatura.

trafilatura trims the text around the elements it walks outside a `<p>` (each text node on
its own), so `<div><a>Link</a> then text</div>` came out as `[Link](..)then text`: two words
glued. Before it runs, each space that separates words at an inline element's edge is
pinned with a noncharacter (U+FDD0, which Unicode reserves for a program's internal use;
`parse` removes it from pages); trimming stops at it, and it is removed again from the
result and from the page. The page's own text is untouched otherwise. One pass each way, linear.
"""

from __future__ import annotations

from lxml import etree

from .dom import Element
from .paragraphs import PHRASING

PIN = "\ufdd0"
_NOT_INLINE = frozenset({"br", "wbr"})  # a line break is a boundary of its own
_INLINE_TAGS = tuple(PHRASING - _NOT_INLINE)


def _inline(element: Element | None) -> bool:
    return (
        element is not None
        and isinstance(element.tag, str)
        and element.tag in PHRASING
        and element.tag not in _NOT_INLINE
    )


def pin_spaces(root: Element) -> list[Element]:
    """Pin the spaces at inline edges of every text node (see the module docstring); the
    elements whose text or tail may now hold a pin, for `unpin`.

    Only text beside an inline element can need a pin, so only inline elements are found
    (by tag, in C) and the text nodes around each: its own text and tail, its parent's
    text, its previous sibling's tail and its last child's tail (each element once)."""
    verbatim = _in_preformatted(root)
    around: dict[Element, None] = {}
    for inline in root.iter(*_INLINE_TAGS):
        if (verbatim and inline in verbatim) or _in_paragraph(inline):
            continue
        last = inline[-1] if len(inline) else None
        for element in (inline.getprevious(), inline.getparent(), inline, last):
            if element is not None and isinstance(element.tag, str):
                around[element] = None
    for element in around:  # first every move, so that no pin is judged before one
        _move_spaces(element)
    for element in around:
        _pin_edges(element)
    return list(around)


def _in_paragraph(inline: Element) -> bool:
    """Whether the block holding `inline` is a `<p>`: trafilatura writes a paragraph's
    inline elements with their spaces (measured: capture-dev's F1 and its halves stay the
    same without pins there, and most inline elements stand in a paragraph)."""
    block = inline.getparent()
    while block is not None and _inline(block):
        block = block.getparent()
    return block is not None and block.tag == "p"


def _move_spaces(element: Element) -> None:
    """A space alone between two inline edges, moved into the text of the element after it
    (a text node of its own would change how trafilatura weighs the line: measured, four
    more boilerplate lines kept on capture-dev; one left alone is trimmed away)."""
    if not _inline(element):
        return
    first = element[0] if len(element) else None
    if element.text and element.text.isspace() and _inline(first):
        _move_into(element.text, first)
        element.text = None
    following = element.getnext()
    if element.tail and element.tail.isspace() and _inline(following):
        _move_into(element.tail, following)
        element.tail = None


def _move_into(space: str, target: Element | None) -> None:
    """`space` put before `target`'s text; on down while that text is only space and the
    target opens with another inline element (the space must reach some words)."""
    while target is not None:
        target.text = space + (target.text or "")
        first = target[0] if len(target) else None
        if not (target.text.isspace() and _inline(first)):
            return
        space, target.text, target = target.text, None, first


def _pin_edges(element: Element) -> None:
    """Pin the element's text and tail where they touch an inline edge."""
    inline = _inline(element)
    if element.text:
        first = element[0] if len(element) else None
        after = _inline(first) if first is not None else inline
        element.text = _pinned(element.text, inline, after)
    if element.tail:
        following = element.getnext()
        after = _inline(following if following is not None else element.getparent())
        element.tail = _pinned(element.tail, inline, after)


def _in_preformatted(root: Element) -> set[Element]:
    """Elements in a `<pre>` (whose spaces are the code's, and restored from the page):
    each is added once, so nested `<pre>`s cost no more than one."""
    inside: set[Element] = set()
    for pre in root.iter("pre", "textarea"):
        if pre not in inside:
            inside.update(pre.iter())
    return inside


def _pinned(text: str, left_inline: bool, right_inline: bool) -> str:
    """`text` with a pin before its leading and after its trailing whitespace where that
    whitespace parts its words from an inline element's (a node of spaces alone is left:
    indentation before a block's first link parts nothing)."""
    if not (left_inline or right_inline) or not text or text.isspace():
        return text
    if left_inline and text[0].isspace():
        text = PIN + text
    if right_inline and text[-1].isspace():
        text = text + PIN
    return text


def unpin(elements: list[Element]) -> None:
    """Remove the pins `pin_spaces` may have put on these elements' text and tails (and
    the moved spaces stay: whitespace between the same words)."""
    for element in elements:
        if element.text and PIN in element.text:
            element.text = element.text.replace(PIN, "")
        if element.tail and PIN in element.tail:
            element.tail = element.tail.replace(PIN, "")


def unpin_spaces(root: Element) -> None:
    """Remove every pin below `root` (text and tails)."""
    found = _PINNED(root)
    for node in found if isinstance(found, list) else []:
        if isinstance(node, etree._ElementUnicodeResult):
            owner = node.getparent()
            if owner is None:
                continue
            if node.is_tail:
                owner.tail = (owner.tail or "").replace(PIN, "")
            else:
                owner.text = (owner.text or "").replace(PIN, "")


_PINNED = etree.XPath(f"descendant-or-self::text()[contains(., '{PIN}')]")
