"""Page metadata from the parsed document: title, byline, published date, language, canonical.

Read from the places sites actually fill (Open Graph, `<meta>`, JSON-LD, `<time>`, `<html
lang>`), cheaply: no network, no date guessing in the body text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from lxml.html import HtmlElement

from .dom import squash

_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
MAX_JSON_LD_CHARS = 500_000
"""A JSON-LD block is skipped beyond this (capture-dev's largest holds 17,510 characters)."""


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
    return squash(value) or None


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
        data = load_json_ld(script.text or "")
        stack = [data]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, dict):
                items.append(node)
                stack.extend(v for k, v in node.items() if k == "@graph")
    return items


def load_json_ld(text: str) -> object:
    """One JSON-LD block, or None when it is broken, over `MAX_JSON_LD_CHARS`, or nested
    deeper than the JSON parser recurses (it raises RecursionError at about 1,000 levels):
    metadata then comes from the page's other tags, never an error."""
    if len(text) > MAX_JSON_LD_CHARS:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _ld_value(items: list[dict[str, object]], key: str) -> str | None:
    for item in items:
        value = item.get(key)
        if isinstance(value, dict):
            value = value.get("name")
        if isinstance(value, list) and value:
            first = value[0]
            value = first.get("name") if isinstance(first, dict) else first
        if isinstance(value, str) and value.strip():
            return squash(value)
    return None


def _iso_date(value: str | None) -> str | None:
    match = _ISO_DATE.search(value or "")
    return "-".join(match.groups()) if match else None


def _scan(tree: HtmlElement) -> tuple[dict[str, str], dict[str, str]]:
    """One walk over the page for every tag metadata reads: the `<meta>` values, and the
    first non-empty title, h1, time@datetime, canonical link@href and base@href."""
    metas: dict[str, str] = {}
    firsts: dict[str, str] = {}
    for element in tree.iter("meta", "title", "h1", "time", "link", "base"):
        tag = element.tag
        if tag == "meta":
            _add_meta(element, metas)
        elif tag not in firsts:
            value = _first_value(element, tag)
            if value:
                firsts[tag] = value
    return metas, firsts


def _first_value(element: HtmlElement, tag: str) -> str | None:
    if tag in ("title", "h1"):
        return _clean(element.text_content())
    if tag == "time":
        return _clean(element.get("datetime"))
    if tag == "link":
        return _clean(element.get("href")) if element.get("rel") == "canonical" else None
    return _clean(element.get("href"))  # base


def _add_meta(meta: HtmlElement, found: dict[str, str]) -> None:
    """A `<meta>` value by its property, name, itemprop or http-equiv (first one wins)."""
    get = meta.get
    key = get("property") or get("name") or get("itemprop") or get("http-equiv")
    value = _clean(get("content"))
    if key and value:
        found.setdefault(key.lower(), value)


def read_metadata(tree: HtmlElement) -> PageMetadata:
    """Metadata of the whole page (call before pruning: scripts hold JSON-LD).

    One pass over the `<meta>` tags; JSON-LD is parsed only when they leave a field empty.
    """
    tags, firsts = _scan(tree)
    ld: list[dict[str, object]] | None = None

    def from_ld(key: str) -> str | None:
        nonlocal ld
        if ld is None:
            ld = _json_ld(tree)
        return _ld_value(ld, key)

    title = tags.get("og:title") or tags.get("twitter:title") or firsts.get("title")
    title = title or from_ld("headline")
    h1 = firsts.get("h1")
    byline = tags.get("author") or tags.get("article:author") or _first(tree, '//*[@rel="author"]')
    byline = byline or from_ld("author")
    if byline and byline.startswith(("http://", "https://")):
        byline = None
    published = _iso_date(
        tags.get("article:published_time")
        or tags.get("date")
        or tags.get("datepublished")
        or from_ld("datePublished")
        or firsts.get("time")
    )
    language = _first(tree, "/html/@lang") or tags.get("content-language")
    canonical = firsts.get("link") or tags.get("og:url")
    description = tags.get("og:description") or tags.get("description")
    base_href = firsts.get("base")
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
