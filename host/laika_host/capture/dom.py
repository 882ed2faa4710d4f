"""Element helpers that work on any lxml element (lxml.html's live only on HtmlElement).

trafilatura builds its result with plain lxml.etree elements; using these helpers lets capture
work on that result directly instead of serializing and re-parsing it.
"""

from __future__ import annotations

from lxml import etree

Element = etree._Element


def text_of(element: Element) -> str:
    """All text below `element`, as lxml.html's text_content() gives it (computed in C)."""
    return str(_STRING(element))


_STRING = etree.XPath("string(.)")


def squash(text: str) -> str:
    """Whitespace runs (newlines, tabs, no-break spaces) as one space, ends trimmed."""
    return " ".join(text.split())


def visible_text(element: Element) -> str:
    """An element's text as a reader sees it: one space between words."""
    return squash(text_of(element))


def drop_tree(element: Element) -> None:
    """Remove `element` and its children, keeping the text that follows it (its tail)."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def drop_tag(element: Element) -> None:
    """Remove `element` but keep its text and children in its place."""
    parent = element.getparent()
    if parent is None:
        return
    index = parent.index(element)
    previous = element.getprevious()
    leading = element.text or ""
    if leading:
        if previous is not None:
            previous.tail = (previous.tail or "") + leading
        else:
            parent.text = (parent.text or "") + leading
    children = list(element)
    for offset, child in enumerate(children):
        parent.insert(index + offset, child)
    tail = element.tail or ""
    if tail:
        if children:
            last = children[-1]
            last.tail = (last.tail or "") + tail
        else:
            before = parent[index - 1] if index > 0 else None
            if before is not None and before is not element:
                before.tail = (before.tail or "") + tail
            else:
                parent.text = (parent.text or "") + tail
    parent.remove(element)


_TEXTS_WITH = etree.XPath("//text()[contains(., $probe)]")
_HOLDS = etree.XPath("contains(normalize-space(.), $key)")


def holder_paths(
    tree: Element, key: str, tags: frozenset[str] | tuple[str, ...], *, first_only: bool = False
) -> list[list[Element]]:
    """For each text node holding `key`'s longest word (document order): the ancestors with a
    tag in `tags` whose text holds `key`, innermost first.

    Looking up from the few text nodes that hold a rare word replaces testing the text of
    every element of the page (which normalizes nested elements again and again). A key whose
    longest word is split across elements finds nothing here; callers then fall back to the
    whole-page search. `first_only` stops at the first path that has a holder.
    """
    probe = max(key.split(" "), key=len)
    paths: list[list[Element]] = []
    texts = _TEXTS_WITH(tree, probe=probe)
    for text in texts if isinstance(texts, list) else []:
        owner = getattr(text, "getparent", lambda: None)()
        if owner is not None and getattr(text, "is_tail", False):
            owner = owner.getparent()
        if owner is None:
            continue
        path = [
            element
            for element in (owner, *owner.iterancestors())
            if element.tag in tags and _HOLDS(element, key=key)
        ]
        if path:
            paths.append(path)
            if first_only:
                break
    return paths
