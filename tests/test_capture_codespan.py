"""Inline code, emphasis and links nested with blocks read back as the page's text.

A code span cannot cross a paragraph break: backticks opened before a `<p>` inside `<code>`
and closed after it show as text, and a literal backslash at a span's edge must never become
a hard break or escape the next character. Generated fragments nest inline code, emphasis and
links with blocks, their text drawn from the characters Markdown gives a meaning to; a
CommonMark reader (markdown-it-py, and cmark-gfm as `laika render` reads it) must see exactly
the page's visible text, and every backtick run it does not read as a code span delimiter must
be an escaped one (a span left open across a blank line shows its backticks as text).
"""

from __future__ import annotations

import time

import lxml.html
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import etree
from markdown_it import MarkdownIt

from laika_host.capture.convert import html_to_markdown, sanitize
from laika_host.capture.dom import Element
from markdown_view import cmark_view, squash, view

_CHARACTERS = list("\\`*_[]<>#-+.!|\n\xa0 ab")
_TEXTS = st.lists(st.sampled_from(_CHARACTERS), min_size=1, max_size=6).map("".join)
_INLINE = ["code", "kbd", "em", "strong", "span", "a"]
_BLOCK = ["p", "div", "blockquote", "ul", "section"]
_ATTRIBUTES = {"a": ' href="https://ex.org/x"'}
# What the writer (and a browser) lays out as blocks: their edges separate words.
_BLOCKS = frozenset({"p", "div", "blockquote", "ul", "ol", "li", "section", "article", "pre"})
_PLAIN_READER = MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _element(tag: str, children: list[str]) -> str:
    inner = "".join(children)
    if tag == "ul":
        inner = f"<li>{inner}</li>"
    return f"<{tag}{_ATTRIBUTES.get(tag, '')}>{inner}</{tag}>"


_FRAGMENTS = st.recursive(
    _TEXTS.map(_escape),
    lambda inner: st.builds(
        _element, st.sampled_from(_INLINE + _BLOCK), st.lists(inner, min_size=1, max_size=4)
    ),
    max_leaves=16,
)


def _written_tree(html: str) -> Element:
    """The tree the writer walks: the fragment in a `<div>`, through nh3, parsed again."""
    root = lxml.html.fragment_fromstring(f"<div>{html}</div>")
    body = etree.fromstring(sanitize(root), etree.HTMLParser()).find("body")
    assert body is not None
    return body


def visible_text(element: Element) -> str:
    """What a browser shows of `element`: its text, words apart where a block begins or ends
    (an empty one too: the words around it stand on lines of their own), whitespace
    collapsed."""
    parts: list[str] = []
    _collect(element, parts)
    return squash("".join(parts))


def _collect(element: Element, parts: list[str]) -> None:
    edge = " " if element.tag in _BLOCKS else ""
    parts += [edge, element.text or ""]
    for kid in element:
        if isinstance(kid.tag, str):
            _collect(kid, parts)
        parts.append(kid.tail or "")
    parts.append(edge)


def stray_backticks(markdown: str) -> list[str]:
    """Text the reader shows that holds an unescaped backtick: a span delimiter that did not
    pair (an escaped backtick is its own token)."""
    found: list[str] = []
    for token in _PLAIN_READER.parse(markdown):
        for child in token.children or []:
            if child.type == "text" and "`" in child.content:
                found.append(child.content)
    return found


def assert_reads_back(html: str) -> None:
    markdown = html_to_markdown(lxml.html.fragment_fromstring(f"<div>{html}</div>"))
    expected = visible_text(_written_tree(html))
    assert stray_backticks(markdown) == [], markdown
    assert view(markdown).text == expected, markdown
    assert cmark_view(markdown).text == expected, markdown


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_FRAGMENTS, min_size=1, max_size=3).map("".join))
@example("<code>a<p>\\</p></code>")
@example("a<code>a<p>\\</p>\n</code>a")
@example("a<code>a<p>b\\</p>\n</code>a")
@example("<code>a<span>b<p>c</p></span>d</code>")
@example("<code>a<p></p>b</code>")
def test_code_emphasis_and_links_around_blocks_read_back(html: str) -> None:
    assert_reads_back(html)


def _seconds(html: str) -> float:
    """The best of three conversions of `html` (the least disturbed by other processes)."""
    root = lxml.html.fragment_fromstring(f"<div>{html}</div>")
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        html_to_markdown(root)
        best = min(best, time.perf_counter() - start)
    return best


def test_code_holding_blocks_converts_in_linear_time() -> None:
    """Each inline element in split code looks for blocks below it (a scan in C, bounded by
    libxml2's 256 levels): four times the elements take about four times as long, not 16."""

    def page(count: int) -> str:
        return "<code>" + "<span>a\\<p>b*</p><em>c</em></span>" * count + "</code>"

    small, large = _seconds(page(500)), _seconds(page(2000))
    assert large / small < 8, (small, large)
