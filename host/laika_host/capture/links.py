"""Outbound links of the main content: absolute http(s), deduplicated, with context.

Dropped as noise: account and legal pages (login, signup, privacy, terms, imprint), share and
feed links, mailto and javascript targets, and anchors on the page itself.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from .dom import Element, visible_text
from .urls import absolute_url, is_web_url, normalize_url, strip_credentials

MAX_CONTEXT = 200
MAX_LINKS = 500
_NOISE_URL = re.compile(
    r"/(log-?in|sign-?in|sign-?up|register|registrieren|anmelden|account|privacy|datenschutz|"
    r"terms|agb|impressum|imprint|cookie[s-]?|share|sharer|rss|feed|subscribe|newsletter)(\b|/|$)|"
    r"[?&](share|replytocom)=|^https?://(www\.)?(facebook\.com/sharer|twitter\.com/(intent|share)|"
    r"x\.com/intent|linkedin\.com/share|pinterest\.com/pin/create|wa\.me|api\.whatsapp\.com)",
    re.IGNORECASE,
)
_NOISE_TEXT = re.compile(
    r"^(log ?in|sign ?in|sign ?up|register|anmelden|registrieren|share|teilen|tweet|rss|"
    r"privacy( policy)?|datenschutz(erklärung)?|terms( of (use|service))?|impressum|imprint)$",
    re.IGNORECASE,
)
_BLOCKS = (
    "p",
    "li",
    "td",
    "th",
    "dd",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "figcaption",
)


@dataclass(frozen=True)
class OutboundLink:
    url: str
    text: str
    context: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def _context(anchor: Element, text: str, texts: dict[Element, str]) -> str:
    """The words around a link: its block's text (each block's read once, in `texts`: a
    paragraph of many links read again for each made a long one quadratic), cut to
    `MAX_CONTEXT` characters around the link's own text."""
    block = next((a for a in anchor.iterancestors() if a.tag in _BLOCKS), None)
    if block is None:
        around = visible_text(anchor)
    elif block in texts:
        around = texts[block]
    else:
        around = texts[block] = visible_text(block)
    if len(around) <= MAX_CONTEXT:
        return around
    at = max(0, around.find(text))
    start = max(0, min(at - (MAX_CONTEXT - len(text)) // 2, len(around) - MAX_CONTEXT))
    return around[start : start + MAX_CONTEXT].strip()


def outbound_links(content: Element, page_url: str | None, base: str | None) -> list[OutboundLink]:
    """Links in the main content, in order, one per normalized URL."""
    page = normalize_url(page_url) if page_url and is_web_url(page_url) else None
    seen: set[str] = set()
    texts: dict[Element, str] = {}
    found: list[OutboundLink] = []
    for anchor in content.iter("a"):
        href = absolute_url(anchor.get("href") or "", base)
        if not href or not is_web_url(href):
            continue
        text = visible_text(anchor)
        if _NOISE_URL.search(href) or _NOISE_TEXT.match(text):
            continue
        key = normalize_url(href)
        if key == page or key in seen:
            continue
        seen.add(key)
        found.append(OutboundLink(strip_credentials(href), text, _context(anchor, text, texts)))
        if len(found) >= MAX_LINKS:
            break
    return found
