"""Put the article's own images back into the captured Markdown.

Extracting with images on makes trafilatura keep captions, photo credits and image teasers
(measured on capture-dev: 37 more boilerplate snippets, 1 point of F1). So the text is chosen
with images off, and the images of the article's container in the page are re-attached, each
before the paragraph that follows it in the page.
"""

from __future__ import annotations

import re

from lxml import etree
from lxml.html import HtmlElement

from .bounds import blocks as split_blocks
from .dom import Element, holder_paths, squash, visible_text
from .markdown_escape import image
from .urls import absolute_url, is_web_url, strip_credentials

ANCHOR_CHARS = 40
MIN_IMAGE_SIDE = 48
MAX_IMAGES = 50
_BLOCKS = ("p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre", "table")
_HOLDER_TAGS = frozenset({"p", "li", "h2", "h3"})
_HOLDER = etree.XPath(
    "//*[self::p or self::li or self::h2 or self::h3][contains(normalize-space(.), $key)]"
)


def _anchor_texts(markdown_blocks: list[str]) -> list[str]:
    texts = []
    for block in markdown_blocks:
        plain = squash(re.sub(r"[\\*_#>`\[\]]", "", block))
        if len(plain) >= ANCHOR_CHARS and not block.startswith(("!", "|")):
            texts.append(plain[:ANCHOR_CHARS])
    return texts


def _container(tree: HtmlElement, anchors: list[str]) -> HtmlElement | None:
    """The smallest element of the page holding the first and the last anchor paragraph."""
    found = []
    for key in (anchors[0], anchors[-1]):
        first = _first_holder(tree, key)
        if first is not None:
            found.append(first)
    if len(found) < 2:
        return None
    first_ancestors = [found[0], *found[0].iterancestors()]
    last_ancestors = {found[1], *found[1].iterancestors()}
    return next((a for a in first_ancestors if a in last_ancestors), None)


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
    insert_before: dict[int, list[str]] = {}
    pending: list[str] = []
    seen: set[str] = set()
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
        key = visible_text(element)[:ANCHOR_CHARS]
        if len(key) < ANCHOR_CHARS:
            continue
        at = next((i for i, flat in enumerate(flat_blocks) if key in flat), None)
        if at is not None:
            insert_before.setdefault(at, []).extend(pending)
            pending = []
        if len(seen) >= MAX_IMAGES:
            break
    out: list[str] = []
    for index, block in enumerate(blocks):
        out.extend(insert_before.get(index, []))
        out.append(block)
    return "\n\n".join(out)
