"""Markdown (model output, captured pages) -> HTML that is safe to insert into a UI.

Two independent layers, so one bug does not open the door:

1. CommonMark (cmark-gfm, see `_commonmark`) never passes markup through: raw HTML in the
   Markdown comes out as escaped text, as markdown-it-py's `html=False` shows it, and its safe
   mode already empties `javascript:`, `vbscript:`, `file:` and most `data:` targets.
2. nh3 (ammonia) then re-parses the result as a browser would and keeps only a strict allowlist
   of tags and attributes, links only to absolute http, https and mailto URLs, and puts
   `rel="noopener noreferrer nofollow ugc"` on every link.

Images are off by default: under prompt injection an image URL in model output is a way to send
data out the moment the answer is shown, with no click. An image therefore renders as its alt
text; `allow_images=True` keeps `<img>` with an http(s) `src` for trusted callers.
"""

from __future__ import annotations

from collections.abc import Callable

import nh3

from ..protocol.render_tree import Document
from ._commonmark import markdown_to_html
from .tree_markdown import document_to_markdown

ALLOWED_TAGS = frozenset(
    {"p", "br", "strong", "em", "code", "pre", "blockquote", "hr", "ul", "ol", "li"}
    | {"h1", "h2", "h3", "h4", "h5", "h6"}
    | {"table", "thead", "tbody", "tr", "th", "td", "a"}
)
"""Everything CommonMark plus GFM tables produce, minus images."""

ALLOWED_ATTRIBUTES: dict[str, set[str]] = {"*": set(), "a": {"href"}, "ol": {"start"}}
"""An empty `*` drops nh3's default `lang` and `title` everywhere. `ol[start]` keeps a list that
begins at 3 numbered from 3."""

ANNOTATION_TAGS = frozenset({"span", "mark"})
"""Markup the host adds itself to rendered HTML (citation markers, a reader highlight); CommonMark
never produces it, since raw HTML in Markdown is shown as text."""

ALLOWED_CLASSES: dict[str, set[str]] = {"a": {"citation"}, "span": {"citation-unverified"}}
"""The only class values that survive, on annotated HTML only (nh3 drops every other class)."""

URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow ugc"


def _cleaner(*, images: bool, annotated: bool = False) -> nh3.Cleaner:
    tags = ALLOWED_TAGS | {"img"} if images else ALLOWED_TAGS
    attributes = {**ALLOWED_ATTRIBUTES, "img": {"src", "alt"}} if images else ALLOWED_ATTRIBUTES
    return nh3.Cleaner(
        tags=set(tags | ANNOTATION_TAGS if annotated else tags),
        attributes=attributes,
        allowed_classes=ALLOWED_CLASSES if annotated else None,
        url_schemes=set(URL_SCHEMES),
        url_relative="deny",  # a relative URL would resolve against the extension's own origin
        link_rel=LINK_REL,
        strip_comments=True,
    )


_CLEANERS = {images: _cleaner(images=images) for images in (False, True)}
_ANNOTATED = _cleaner(images=False, annotated=True)


MAX_MARKDOWN_CHARS = 200_000
TRUNCATED_NOTE = "\n\n*[Truncated: the rest of this text was too long to display]*\n"


def markdown_to_safe_html(markdown: str, *, allow_images: bool = False) -> str:
    """Render untrusted Markdown to HTML that contains no script, style or foreign URL.

    Input past `MAX_MARKDOWN_CHARS` is cut (with a visible note): rendering time grows with
    the input, and no answer worth reading is longer.
    """
    html = markdown_to_html(_bounded(markdown), images=allow_images)
    return _CLEANERS[allow_images].clean(html)


def markdown_to_annotated_html(markdown: str, annotate: Callable[[str], str]) -> str:
    """Like `markdown_to_safe_html` (no images), with `annotate` adding the host's own markup
    (`ANNOTATION_TAGS`, `ALLOWED_CLASSES`) to CommonMark's HTML before the sanitizer runs:
    whatever `annotate` writes, nh3 still keeps only the allowlist."""
    html = annotate(markdown_to_html(_bounded(markdown), images=False))
    return _ANNOTATED.clean(html)


def _bounded(markdown: str) -> str:
    if len(markdown) > MAX_MARKDOWN_CHARS:
        cut = markdown.rfind("\n", 0, MAX_MARKDOWN_CHARS)
        markdown = markdown[: cut if cut > 0 else MAX_MARKDOWN_CHARS] + TRUNCATED_NOTE
    return markdown


def document_to_safe_html(document: Document, *, allow_images: bool = False) -> str:
    """Render a validated render Document through the same Markdown -> safe HTML path."""
    return markdown_to_safe_html(document_to_markdown(document), allow_images=allow_images)


__all__ = ["document_to_safe_html", "markdown_to_annotated_html", "markdown_to_safe_html"]
