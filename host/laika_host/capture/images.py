"""Put the article's own images back into the captured Markdown.

Extracting with images on makes trafilatura keep captions, photo credits and image teasers
(measured on capture-dev: 37 more boilerplate snippets, 1 point of F1). So the text is chosen
with images off, and the images of the article's container in the page are re-attached, each
before the paragraph that follows it in the page.
"""

from __future__ import annotations

import re
from collections import Counter

from lxml import etree
from lxml.html import HtmlElement

from .bounds import blocks as split_blocks
from .dom import Element, holder_paths, squash, visible_text
from .markdown_escape import image
from .urls import absolute_url, is_web_url, strip_credentials

ANCHOR_CHARS = 40
MIN_IMAGE_SIDE = 48
MAX_IMAGES = 50
MAX_LAST_ANCHORS = 8
"""How many closing paragraphs to try as the container's far end (each try is one search)."""
LONG_ANCHOR_CHARS = 160
_MARKUP = re.compile(r"[\\*_#>`\[\]]")
_BLOCKS = ("p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre", "table")
_HOLDER_TAGS = frozenset({"p", "li", "h2", "h3"})
_HOLDER = etree.XPath(
    "//*[self::p or self::li or self::h2 or self::h3][contains(normalize-space(.), $key)]"
)


def _anchor_texts(markdown_blocks: list[str]) -> list[str]:
    plains = [squash(_MARKUP.sub("", block)) for block in markdown_blocks]
    openings = _openings(plains)
    return [
        _distinct_opening(plain, openings)
        for block, plain in zip(markdown_blocks, plains, strict=True)
        if len(plain) >= ANCHOR_CHARS and not block.startswith(("!", "|"))
    ]


def _openings(texts: list[str]) -> Counter[str]:
    return Counter(text[:ANCHOR_CHARS] for text in texts)


def _distinct_opening(text: str, openings: Counter[str]) -> str:
    """The opening of `text` that names one block: 40 characters, or up to 160 when other
    blocks open with the same 40 (a page whose paragraphs all open with the same phrase)."""
    opening = text[:ANCHOR_CHARS]
    if openings[opening] > 1:
        return text[:LONG_ANCHOR_CHARS]
    return opening


def _container(tree: HtmlElement, anchors: list[str]) -> HtmlElement | None:
    """The smallest element of the page holding the first anchor paragraph and a later one.

    The later one is the last anchor whose holder is another block: on a page whose
    paragraphs open alike, the last paragraph's opening first matches the first paragraph,
    and a container of one paragraph would drop every image.
    """
    first = _first_holder(tree, anchors[0])
    if first is None:
        return None
    first_ancestors = [first, *first.iterancestors()]
    for key in reversed(anchors[1:][-MAX_LAST_ANCHORS:]):
        last = _first_holder(tree, key) if key != anchors[0] else None
        if last is None or last is first:
            continue
        last_ancestors = {last, *last.iterancestors()}
        return next((a for a in first_ancestors if a in last_ancestors), None)
    return None


def _first_holder(tree: HtmlElement, key: str) -> Element | None:
    """The first block in document order whose text holds `key`: the outermost holder on
    the first text path that has one (`dom.holder_paths`); the whole-page search only when
    the key's rarest word is split across elements."""
    paths = holder_paths(tree, key, _HOLDER_TAGS, first_only=True)
    if paths:
        return paths[0][-1]
    hits = _HOLDER(tree, key=key)
    if isinstance(hits, list) and hits and isinstance(hits[0], etree._Element):
        return hits[0]
    return None


def _is_content_image(image: HtmlElement) -> bool:
    for side in ("width", "height"):
        value = image.get(side, "")
        if value.isdigit() and int(value) < MIN_IMAGE_SIDE:
            return False
    return True


def reattach_images(markdown: str, tree: HtmlElement, base: str | None) -> str:
    """`markdown` with the article's images inserted where they stand in the page."""
    if tree.find(".//img") is None:
        return markdown
    blocks = split_blocks(markdown)  # a code block's blank lines do not split it
    anchors = _anchor_texts(blocks)
    if not anchors:
        return markdown
    container = _container(tree, anchors)
    if container is None:
        return markdown
    flat_blocks = [squash(block.replace("\\", "")) for block in blocks]
    flat_openings = _openings(flat_blocks)
    insert_before: dict[int, list[str]] = {}
    pending: list[str] = []
    seen: set[str] = set()
    cursor = 0  # images go in page order: a later image never lands above an earlier one
    for element in container.iter("img", *_BLOCKS):
        if element.tag == "img":
            src = absolute_url(element.get("src") or element.get("data-src") or "", base)
            if src and is_web_url(src) and src not in seen and _is_content_image(element):
                seen.add(src)
                written = image(element.get("alt") or "", strip_credentials(src))
                if written is not None:
                    pending.append(written)
            continue
        if not pending:
            continue
        key = _distinct_opening(visible_text(element), flat_openings)
        if len(key) < ANCHOR_CHARS:
            continue
        at = next((i for i in range(cursor, len(flat_blocks)) if key in flat_blocks[i]), None)
        if at is not None:
            cursor = at
            insert_before.setdefault(at, []).extend(pending)
            pending = []
        if len(seen) >= MAX_IMAGES:
            break
    out: list[str] = []
    for index, block in enumerate(blocks):
        out.extend(insert_before.get(index, []))
        out.append(block)
    return "\n\n".join(out)
