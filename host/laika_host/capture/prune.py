"""Noise pruning on the parsed page, before any extractor sees it.

Removed: scripts, styles, embeds and form controls (`<noscript>` stays until after extraction:
some sites ship the whole post inside it); navigation, site headers and footers and
asides; dialogs and overlays; and elements whose id, class or aria-label *tokens* name noise
(ad, sponsor, promo, related, share, newsletter, subscribe, cookie, consent, modal, paywall,
banner). Tokens are whole words: `header-ad` and `shareBar` match, `download` and `shared-lib`
do not. Nothing is removed that holds the main content: the `<h1>`, an `<article>` or `<main>`,
or most of the page's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import cast

from lxml import etree
from lxml.html import HtmlElement

from .dom import drop_tree
from .signals import OVERLAY_MARK

ALWAYS_DROP = frozenset(
    {
        "script",
        "style",
        "template",
        "iframe",
        "object",
        "embed",
        "canvas",
        "input",
        "select",
        "textarea",
        "button",
        "option",
        "datalist",
        "dialog",
    }
)
LANDMARKS = frozenset({"nav", "header", "footer", "aside"})
LANDMARK_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "dialog", "alertdialog", "search"}
)
NOISE_TOKENS = frozenset(
    {
        "ad",
        "ads",
        "advert",
        "advertisement",
        "sponsor",
        "sponsored",
        "promo",
        "related",
        "share",
        "sharing",
        "newsletter",
        "subscribe",
        "subscription",
        "cookie",
        "cookies",
        "consent",
        "modal",
        "paywall",
        "banner",
    }
)
PROTECTED = frozenset({"html", "body", "main", "article", "pre", "code"})  # code: names languages
_TOKEN_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
MAIN_CONTENT_SHARE = 0.5
PROSE_PARAGRAPH = 100
MAX_PROSE_LINK_DENSITY = 0.3


def tokens(element: HtmlElement) -> frozenset[str]:
    """Lowercase word tokens of the element's id, class and aria-label."""
    get = element.get  # three C calls; no attribute proxy
    return _names(get("id"), get("class"), get("aria-label"))


_NO_NAMES: frozenset[str] = frozenset()


def _names(ident: str | None, classes: str | None, label: str | None) -> frozenset[str]:
    if ident is None and label is None:
        raw = classes
    else:
        raw = " ".join(value for value in (ident, classes, label) if value)
    return _split_tokens(raw) if raw else _NO_NAMES


@lru_cache(maxsize=65536)
def _split_tokens(raw: str) -> frozenset[str]:
    """Cached: the same class strings repeat across a page and across pages."""
    if raw.islower() or not any(c.isupper() for c in raw):
        spaced = raw.lower()
    else:
        spaced = _CAMEL.sub(" ", raw).lower()
    return frozenset(_TOKEN_SPLIT.split(spaced)) - {""}


def is_noise_by_name(element: HtmlElement) -> bool:
    return not NOISE_TOKENS.isdisjoint(tokens(element))


Observer = Callable[[HtmlElement, frozenset[str]], None]


def prune(root: HtmlElement, observe: Observer | None = None) -> int:
    """Remove noise in place; returns how many elements were removed.

    `observe(element, tokens)` sees every element that has name tokens, a role,
    aria-modal or the extension's overlay mark, and every `<dialog>` with an attribute,
    before anything is removed: page signals are read in this same pass instead
    of a second walk over the page.
    """
    body_text = _text_length(root)
    keep = _main_content_path(root)
    # comments, processing instructions, scripts, embeds, form controls
    doomed = list(root.iter(etree.Comment, etree.ProcessingInstruction, *ALWAYS_DROP))
    # elements without attributes (most of them): only the landmark rule can apply
    doomed += [
        element
        for element in root.iter(*LANDMARKS)
        if not element.attrib and element not in keep and _is_landmark_noise(element)
    ]
    for element in _attributed(root):  # the hot loop: each attribute is read once
        tag = element.tag
        get = element.get
        if tag in ALWAYS_DROP:
            if tag == "dialog" and observe is not None:  # an open one is shown
                observe(element, _names(get("id"), get("class"), get("aria-label")))
            continue
        names = _names(get("id"), get("class"), get("aria-label"))
        role, modal = get("role"), get("aria-modal")
        if observe is not None and (names or role or modal or get(OVERLAY_MARK) is not None):
            observe(element, names)
        if tag in PROTECTED or element in keep:
            continue
        role = role.lower() if role else ""
        if (
            modal == "true"
            or role in ("dialog", "alertdialog")
            or ((tag in LANDMARKS or role in LANDMARK_ROLES) and _is_landmark_noise(element))
            or (not NOISE_TOKENS.isdisjoint(names) and not _looks_like_content(element, body_text))
        ):
            doomed.append(element)
    removed = 0
    for element in doomed:
        parent = element.getparent()
        if parent is None or not _still_attached(element, root):
            continue
        drop_tree(element)
        removed += 1
    return removed


def _attributed(root: HtmlElement) -> list[HtmlElement]:
    """Elements that have attributes, selected in C, in document order."""
    return cast("list[HtmlElement]", _WITH_ATTRIBUTES(root))


def _main_content_path(root: HtmlElement) -> set[HtmlElement]:
    """The h1s, articles and mains and all their ancestors: never removed by name rules."""
    keep: set[HtmlElement] = set()
    for anchor in root.iter("h1", "article", "main"):
        keep.add(anchor)
        keep.update(anchor.iterancestors())
    return keep


def _is_landmark_noise(element: HtmlElement) -> bool:
    role = (element.get("role") or "").lower()
    if element.tag not in LANDMARKS and role not in LANDMARK_ROLES:
        return False
    if element.tag == "header" or role == "banner":
        # an article's own header holds its title, lead and byline
        return not any(a.tag in ("article", "main") for a in element.iterancestors())
    return True


def _looks_like_content(element: HtmlElement, body_text: int) -> bool:
    """Prose, not a widget: most of the page's text, or several long paragraphs few links.

    Measured: one CMS marks its whole article `div.content.sharing`; WordPress themes put
    `share` on the entry. Real share bars, related lists and ad slots are short or link-dense.
    """
    length = _text_length(element)
    if body_text > 0 and length > MAIN_CONTENT_SHARE * body_text:
        return True
    long_paragraphs = _xpath_number(_LONG_PARAGRAPHS, element)
    if long_paragraphs < 2:
        return False
    link_text = sum(_text_length(a) for a in element.iter("a"))
    return link_text < MAX_PROSE_LINK_DENSITY * length


def _text_length(element: HtmlElement) -> int:
    """Characters of visible text, counted in C (normalized whitespace)."""
    return int(_xpath_number(_TEXT_LENGTH, element))


def _xpath_number(expression: etree.XPath, element: HtmlElement) -> float:
    value = expression(element)
    return float(value) if isinstance(value, int | float) else 0.0


_WITH_ATTRIBUTES = etree.XPath("descendant-or-self::*[@*]")
_TEXT_LENGTH = etree.XPath("string-length(normalize-space(.))")
_LONG_PARAGRAPHS = etree.XPath(
    f"count(.//p[string-length(normalize-space(.)) >= {PROSE_PARAGRAPH}])"
)


def _still_attached(element: HtmlElement, root: HtmlElement) -> bool:
    return any(ancestor is root for ancestor in element.iterancestors()) or element is root
