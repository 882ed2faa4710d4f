"""Main-content candidates and the rules that choose between them.

trafilatura (precision-oriented) runs first; readability-lxml (`summary(html_partial=True)`)
runs only when trafilatura's result looks wrong, which keeps capture about as fast as
trafilatura alone. The rules are measured on `../shared/corpora/capture-dev` by
`bench/capture_quality.py`; the numbers behind each threshold are in its docstring.

Neither extractor resolves links: `convert.resolve_urls` does, once, against the page's own
URL and `<base>` (trafilatura resolved against the site root). trafilatura's HTML also loses
the shape of code: every `<code>` comes back as a `<pre>` (a block `<pre><code>` as a `<pre>`
in a `<pre>`, an inline one as a `<pre>` inside the paragraph) without its language class,
and a `<pre>` without code markers as a `<blockquote>`. `_restore_code` puts the page's own
elements back.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from functools import cache
from typing import Any

import lxml.html
from lxml.html import HtmlElement

from .dom import Element, drop_tag, squash, text_of
from .spacing import pin_spaces, unpin, unpin_spaces

log = logging.getLogger("laika.capture")


@dataclass
class Candidate:
    """One extractor's idea of the main content, as an HTML element (a `<div>` or `<body>`)."""

    name: str
    root: Element

    @property
    def text_length(self) -> int:
        return sum(len(t.strip()) for t in self.root.itertext())

    def has_text(self) -> bool:
        """Whether any text is left: `text_length > 0`, stopping at the first word."""
        return any(t.strip() for t in self.root.itertext())


def trafilatura_candidate(
    tree: HtmlElement, url: str | None, *, include_images: bool
) -> Candidate | None:
    from trafilatura.core import bare_extraction
    from trafilatura.htmlprocessing import convert_to_html

    pinned = pin_spaces(tree)  # trafilatura trims text beside inline elements: words glued
    try:
        document = bare_extraction(tree, options=_options(url, include_images))
    except Exception:  # a third-party extractor must never take capture down
        log.warning("trafilatura failed on %s", url or "a page", exc_info=True)
        return None
    finally:
        unpin(pinned)
    body = getattr(document, "body", None)
    if body is None or not len(body):
        return None
    unpin_spaces(body)
    html_root = convert_to_html(body)
    inner = html_root.find("body")
    root = inner if inner is not None else html_root
    _restore_code(root, tree)
    _code_blocks_apart(root)
    return Candidate("trafilatura", root)


def _code_blocks_apart(root: Element) -> None:
    """A `<code>` straight in trafilatura's body is a block of its own there; in a `<p>`, so
    that two in a row (the page had a `<br>` between them, which trafilatura drops) are
    not written as one glued line."""
    for node in list(root.iterchildren("code")):
        holder = node.makeelement("p", {})
        node.addprevious(holder)
        holder.tail, node.tail = node.tail, None
        holder.append(node)


def _restore_code(root: Element, page: Element) -> None:
    """trafilatura's code blocks replaced by the page's `<pre>` they came from (found by
    their text), its other `<pre>` made inline `<code>` where the page had inline code.

    Only outermost page `<pre>`/`<code>` and innermost output `<blockquote>` are read, so
    that deep nesting costs no more than one pass over the text."""
    blocks: dict[str, list[Element]] = {}
    for pre in _outermost(page, "pre"):
        blocks.setdefault(squash(text_of(pre)), []).append(pre)
    inline = {squash(text_of(code)) for code in _outermost(page, "code")}
    for node in [*_outermost(root, "pre"), *_innermost(root, "blockquote")]:
        if node.getparent() is None or next(node.iterancestors("pre"), None) is not None:
            continue  # inside a block replaced already
        key = squash(text_of(node))
        if blocks.get(key):
            _replace(node, copy.deepcopy(blocks[key].pop(0)))
        elif node.tag == "pre" and key in inline and not _holds_lines(node):
            for nested in list(node.iter("pre"))[1:]:
                drop_tag(nested)
            node.tag = "code"


def _outermost(root: Element, tag: str) -> list[Element]:
    return [node for node in root.iter(tag) if next(node.iterancestors(tag), None) is None]


def _innermost(root: Element, tag: str) -> list[Element]:
    """Elements with no `tag` inside them: in document order, an element is innermost
    unless the next one found lies within it."""
    found = list(root.iter(tag))
    return [
        node
        for index, node in enumerate(found)
        if index + 1 == len(found) or node not in found[index + 1].iterancestors(tag)
    ]


def _replace(old: Element, new: Element) -> None:
    new.tail = old.tail
    parent = old.getparent()
    if parent is not None:
        parent.replace(old, new)


def _holds_lines(node: Element) -> bool:
    return "\n" in text_of(node).strip()


@cache
def _base_options(include_images: bool) -> Any:
    """trafilatura's option object, built once (it reads its config file on every build)."""
    from trafilatura.settings import DEFAULT_CONFIG, Extractor

    return Extractor(
        config=DEFAULT_CONFIG,
        output_format="xml",  # any non-"python" format skips its unused plain-text rendering
        fast=True,
        comments=False,
        tables=True,
        links=True,
        images=include_images,
        formatting=True,
        with_metadata=False,
    )


def _options(url: str | None, include_images: bool) -> Any:
    """A copy of the base options for this page."""
    options = copy.copy(_base_options(include_images))
    options.url = None  # links stay as written: resolve_urls resolves them against <base>
    options.source = url  # named in trafilatura's log lines only
    return options


def readability_candidate(tree: HtmlElement, url: str | None) -> Candidate | None:
    from readability import Document

    try:
        # no url: links stay as written (or as <base> makes them) for resolve_urls
        summary = Document(copy.deepcopy(tree)).summary(html_partial=True)
    except Exception:
        log.warning("readability failed on %s", url or "a page", exc_info=True)
        return None
    if not summary or not summary.strip():
        return None
    return Candidate("readability", lxml.html.fragment_fromstring(summary, create_parent="div"))
