"""Recover the article's lead (deck, standfirst, teaser) when the extractor dropped it.

Extractors often treat the lead paragraph as a teaser and cut it. On capture-dev, 34 of
trafilatura's missed snippets sat in it. The page's own description (og:description or meta
description) tells us which visible element is the lead: we take that element's full text,
never the description itself (which may be SEO text nobody sees).
"""

from __future__ import annotations

from lxml import etree
from lxml.html import HtmlElement

from .dom import Element, holder_paths, squash, text_of, visible_text
from .prune import tokens

MIN_DESCRIPTION = 40
KEY_LENGTH = 60
LEAD_TAGS = frozenset({"p", "div", "h2", "h3", "span", "section", "header", "strong"})
_HOLDERS = etree.XPath(
    "//*["
    + " or ".join(f"self::{tag}" for tag in LEAD_TAGS)
    + "][contains(normalize-space(.), $key)]"
)


def find_lead(
    tree: HtmlElement, description: str | None, page_text: str | None = None
) -> str | None:
    """The visible element whose text is the page description, or None.

    A cheap gate first (does the description's opening occur in the page text at all?), then
    the smallest element of a lead-like tag that holds it.
    """
    wanted = squash(description or "").rstrip(".… ")
    if len(wanted) < MIN_DESCRIPTION:
        return None
    key = wanted[:KEY_LENGTH]
    text = page_text if page_text is not None else text_of(tree)
    probe = max(key.split(" "), key=len)  # the longest word: a literal test in C first
    if probe not in text or key not in squash(text):
        return None
    limit = len(wanted) * 1.6 + 40
    best: str | None = None
    for element in _holders(tree, key):
        text = visible_text(element)
        if len(text) < limit and (best is None or len(text) < len(best)):
            best = text
    return best


def _holders(tree: HtmlElement, key: str) -> list[Element]:
    """The smallest lead-tag element holding `key` on each path to a text node that holds
    its rarest word (see `dom.holder_paths`), or every holder when the word is split."""
    paths = holder_paths(tree, key, LEAD_TAGS)
    if paths:
        return [path[0] for path in paths]
    everywhere = _HOLDERS(tree, key=key)
    return (
        [e for e in everywhere if isinstance(e, etree._Element)]
        if isinstance(everywhere, list)
        else []
    )


LEAD_NAMES = frozenset(
    {
        "lead", "lede", "teaser", "intro", "standfirst", "deck", "summary", "subtitle",
        "excerpt", "abstract", "subline", "sapo", "entradilla", "bajada", "copete",
    }
)  # fmt: skip
MAX_LEAD = 1500
H1_NEIGHBOURHOOD = 2


def find_named_lead(tree: HtmlElement) -> str | None:
    """A lead the page names as such (class/id lead, teaser, standfirst, deck, ...) next to
    the article's H1: the heading's section holds it. Teasers elsewhere on the page (related
    stories) are not near the H1 and are ignored."""
    heading = tree.find(".//h1")
    if heading is None:
        return None
    region = heading
    for _ in range(H1_NEIGHBOURHOOD):
        parent = region.getparent()
        if parent is None or parent.tag in ("body", "html"):
            break
        region = parent
    for element in region.iter("p", "div", "h2", "h3", "span", "section", "header", "strong"):
        if element is heading or LEAD_NAMES.isdisjoint(tokens(element)):
            continue
        text = visible_text(element)
        if not MIN_DESCRIPTION <= len(text) <= MAX_LEAD:
            continue
        linked = sum(len(visible_text(a)) for a in element.iter("a"))
        if linked < 0.3 * len(text):
            return text
    return None
