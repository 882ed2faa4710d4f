"""Extracted HTML -> Markdown: nh3 first (defense in depth), then our Markdown writer.

Rules: ATX headings, `-` bullets and nested lists, GFM tables with the separator row, fenced
code with the language from `class="language-*"` / `lang-*`, links and images absolute against
the page (and `<base>`), credential-like query parameters removed from every URL, images as
`![alt](url)` unless dropped, no raw HTML, and page text escaped so that it stays text
(`markdown_escape`; a snippet like `Liebe_r` or `[1]` stays as written). The writer
(`markdown_writer`) only ever sees what nh3 let through: the allowlists below bound every tag
and attribute it can meet.
"""

from __future__ import annotations

import re

import nh3
from lxml import etree

from .dom import Element, drop_tag, drop_tree
from .markdown_writer import escape_text, write_markdown
from .urls import absolute_url, is_web_url, strip_credentials

__all__ = ["escape_text", "html_to_markdown", "resolve_urls", "sanitize", "tidy_markdown"]

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
_BLANK_LINES = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r"(?<![ \t])[ \t]+\n")  # from a run's start: linear
_FENCE_OPEN = re.compile(r"[ \t>]*(`{3,}|~{3,})")
_PARSER = etree.HTMLParser()


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
    body = _parse(sanitize(root))
    return tidy_markdown(write_markdown(body)) if body is not None else ""


def sanitize(root: Element) -> str:
    """The fragment as HTML with only allowlisted tags, attributes and URL schemes."""
    return nh3.clean(
        etree.tostring(root, encoding="unicode", method="html"),
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel=None,
        strip_comments=True,
    )


def _parse(safe: str) -> Element | None:
    """nh3's output as an lxml `<body>`, parsed the way BeautifulSoup's "lxml" builder did
    (libxml2 implies `<html><body>` around the fragment); None when nothing is left."""
    if not safe.strip():
        return None
    document = etree.fromstring(safe, _PARSER)
    return document.find("body") if document is not None else None


def tidy_markdown(markdown: str) -> str:
    """One blank line between blocks, no trailing spaces, no leading or trailing blank lines;
    fenced code is left exactly as written (its spaces and blank lines are the code's)."""
    markdown = markdown.replace("\r\n", "\n")
    if "```" not in markdown and "~~~" not in markdown:
        return _tidy(markdown).strip()
    runs = _split_fences(markdown)
    return "\n".join(run if fenced else _tidy(f"\n{run}\n")[1:-1] for run, fenced in runs).strip()


def _tidy(markdown: str) -> str:
    markdown = markdown.replace("\u00a0\n", "\n")
    if " \n" in markdown or "\t\n" in markdown:  # a regex scan costs more than these tests
        markdown = _TRAILING_SPACE.sub("\n", markdown)
    if "\n\n\n" in markdown:
        markdown = _BLANK_LINES.sub("\n\n", markdown)
    return markdown


def _split_fences(markdown: str) -> list[tuple[str, bool]]:
    """`markdown` as runs of lines outside and inside fenced code blocks (fence lines
    included); the runs joined by newlines give `markdown` back."""
    runs: list[tuple[str, bool]] = []
    current: list[str] = []
    fence = ""
    for line in markdown.split("\n"):
        if not fence and (opened := _FENCE_OPEN.match(line)):
            if current:
                runs.append(("\n".join(current), False))
            current, fence = [], opened.group(1)
        current.append(line)
        if fence and len(current) > 1 and _closes(line, fence):
            runs.append(("\n".join(current), True))
            current, fence = [], ""
    if current:
        runs.append(("\n".join(current), bool(fence)))
    return runs


def _closes(line: str, fence: str) -> bool:
    body = line.lstrip(" \t>").rstrip()
    return len(body) >= len(fence) and body == fence[0] * len(body)
