"""Page metadata from the parsed document: title, byline, published date, language, canonical.

Read from the places sites actually fill (Open Graph, `<meta>`, JSON-LD, `<time>`, `<html
lang>`), cheaply: no network, no date guessing in the body text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from lxml.html import HtmlElement

_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass(frozen=True)
class PageMetadata:
    title: str | None
    h1: str | None
    byline: str | None
    published: str | None
    language: str | None
    canonical_url: str | None
    description: str | None
    base_href: str | None


def _clean(value: str | None) -> str | None:
    if not value:
        return None
    value = " ".join(value.split())
    return value or None


def _first(tree: HtmlElement, *xpaths: str) -> str | None:
    for xpath in xpaths:
        for found in tree.xpath(xpath):
            text = _clean(found if isinstance(found, str) else found.text_content())
            if text:
                return text
    return None


def _json_ld(tree: HtmlElement) -> list[dict[str, object]]:
    items: list[dict[str, object]] = []
    for script in tree.xpath('//script[@type="application/ld+json"]'):
        try:
            data = json.loads(script.text or "")
        except ValueError:
            continue
        stack = [data]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, dict):
                items.append(node)
                stack.extend(v for k, v in node.items() if k == "@graph")
    return items


def _ld_value(items: list[dict[str, object]], key: str) -> str | None:
    for item in items:
        value = item.get(key)
        if isinstance(value, dict):
            value = value.get("name")
        if isinstance(value, list) and value:
            first = value[0]
            value = first.get("name") if isinstance(first, dict) else first
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return None


def _iso_date(value: str | None) -> str | None:
    match = _ISO_DATE.search(value or "")
    return "-".join(match.groups()) if match else None


def read_metadata(tree: HtmlElement) -> PageMetadata:
    """Metadata of the whole page (call before pruning: scripts hold JSON-LD)."""
    ld = _json_ld(tree)
    title = _first(
        tree,
        '//meta[@property="og:title"]/@content',
        '//meta[@name="twitter:title"]/@content',
        "//title",
    ) or _ld_value(ld, "headline")
    h1 = _first(tree, "//h1")
    byline = _first(
        tree,
        '//meta[@name="author"]/@content',
        '//meta[@property="article:author"]/@content',
        '//*[@rel="author"]',
    ) or _ld_value(ld, "author")
    if byline and byline.startswith(("http://", "https://")):
        byline = None
    published = _iso_date(
        _first(
            tree,
            '//meta[@property="article:published_time"]/@content',
            '//meta[@name="date"]/@content',
            '//meta[@itemprop="datePublished"]/@content',
        )
        or _ld_value(ld, "datePublished")
        or _first(tree, "//time/@datetime")
    )
    language = _first(tree, "/html/@lang", '//meta[@http-equiv="content-language"]/@content')
    canonical = _first(
        tree, '//link[@rel="canonical"]/@href', '//meta[@property="og:url"]/@content'
    )
    description = _first(
        tree, '//meta[@property="og:description"]/@content', '//meta[@name="description"]/@content'
    )
    base_href = _first(tree, "//base/@href")
    return PageMetadata(
        title=title,
        h1=h1,
        byline=byline,
        published=published,
        language=language.split("-")[0].split("_")[0].lower() if language else None,
        canonical_url=canonical,
        description=description,
        base_href=base_href,
    )
