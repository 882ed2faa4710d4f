"""Extracted HTML -> Markdown: nh3 first (defense in depth), then markdownify with our rules.

Rules: ATX headings, `-` bullets and nested lists, GFM tables with the separator row, fenced
code with the language from `class="language-*"` / `lang-*`, links and images absolute against
the page (and `<base>`), credential-like query parameters removed from every URL, images as
`![alt](url)` unless dropped, no raw HTML, and escapes only where Markdown needs them (a
snippet like `Liebe_r` or `[1]` stays as written).
"""

from __future__ import annotations

import re
from typing import Any

import nh3
from bs4 import BeautifulSoup
from lxml import etree
from markdownify import MarkdownConverter

from .dom import Element, drop_tag, drop_tree
from .urls import absolute_url, is_web_url, strip_credentials

_ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "dd", "del", "div", "dl",
    "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
    "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "section", "small", "span",
    "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u",
    "ul", "article", "main", "header", "footer", "aside", "address", "details", "summary",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "pre": {"class"},
    "code": {"class"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align"},
}
_LANGUAGE_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight|brush:?)-?([A-Za-z0-9_+#.-]+)")
_ESCAPE_STAR = re.compile(r"(?<=\S)\*|\*(?=\S)")
_ESCAPE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_LEADING_NUMBER = re.compile(r"^(\s*\d{1,9})([.)])(?=\s)")
_LEADING_MARK = re.compile(r"^(\s*)([#>+-])(?=\s|$)")
_BLANK_LINES = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


def escape_text(text: str) -> str:
    """Escape page text only where Markdown would otherwise read it as syntax."""
    if not text:
        return ""
    text = text.replace("\\", "\\\\").replace("`", "\\`")
    text = _ESCAPE_STAR.sub(r"\\*", text)
    text = _ESCAPE_UNDERSCORE.sub(r"\\_", text)
    # text that would start a list, heading or quote if it opened a line
    text = _LEADING_NUMBER.sub(r"\1\\\2", text)
    return _LEADING_MARK.sub(r"\1\\\2", text)


class _LaikaConverter(MarkdownConverter):
    """markdownify with escapes only where Markdown needs them."""

    def escape(self, text: str, parent_tags: Any) -> str:
        return escape_text(text)


def _code_language(element: Any) -> str | None:
    for node in (element, element.find("code")):
        if node is None:
            continue
        classes = " ".join(node.get("class") or [])
        match = _LANGUAGE_CLASS.search(classes)
        if match:
            return match.group(1).lower()
    return None


_CONVERTER = _LaikaConverter(
    heading_style="ATX",
    bullets="-",
    newline_style="BACKSLASH",
    code_language_callback=_code_language,
    table_infer_header=True,
    autolinks=False,
    escape_misc=False,
    wrap=True,  # collapse source line breaks inside paragraphs
    wrap_width=None,  # ... without re-wrapping lines
)


def resolve_urls(root: Element, base: str | None, *, include_images: bool) -> None:
    """Make link and image URLs absolute and credential-free; unwrap links we cannot render."""
    for link in list(root.iter("a")):
        href = absolute_url(link.get("href") or "", base)
        if href and (is_web_url(href) or href.lower().startswith("mailto:")):
            link.set("href", strip_credentials(href) if is_web_url(href) else href)
        else:
            drop_tag(link)  # keep the words, lose javascript:, anchors and empty targets
    for image in list(root.iter("img")):
        src = absolute_url(image.get("src") or image.get("data-src") or "", base)
        if include_images and src and is_web_url(src):
            image.set("src", strip_credentials(src))
        else:
            drop_tree(image)


def html_to_markdown(root: Element) -> str:
    """Markdown for an extracted fragment (already pruned and URL-resolved)."""
    html = etree.tostring(root, encoding="unicode", method="html")
    safe = nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel=None,
        strip_comments=True,
    )
    markdown = _CONVERTER.convert_soup(BeautifulSoup(safe, "lxml"))
    return tidy_markdown(markdown)


def tidy_markdown(markdown: str) -> str:
    """One blank line between blocks, no trailing spaces, no leading or trailing blank lines."""
    markdown = markdown.replace("\r\n", "\n").replace("\u00a0\n", "\n")
    markdown = _TRAILING_SPACE.sub("\n", markdown)
    return _BLANK_LINES.sub("\n\n", markdown).strip()
