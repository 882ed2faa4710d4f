"""`capture_html`: one page in, one bounded, sanitized Markdown source out.

decode -> parse -> metadata + signals (whole page) -> prune -> short captions out -> loose
runs as paragraphs -> main content (by mode) ->
boilerplate blocks -> URLs resolved -> Markdown (nh3, then our writer over the lxml tree) ->
lead and title -> bound -> chunk -> text, links, hash.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from lxml.html import HtmlElement

from ..redact import pinned, redact_text, redact_url
from .body import is_sparse, stored_body
from .boilerplate import remove_boilerplate_blocks
from .bounds import blocks
from .captions import drop_captions, is_caption_named
from .convert import escape_text, html_to_markdown, resolve_urls, tidy_markdown
from .decode import decode_html
from .dom import Element, drop_tree, squash
from .errors import CaptureError
from .extract import Candidate, readability_candidate, trafilatura_candidate
from .images import reattach_images
from .kicker import is_kicker, without_kickers
from .lead import find_lead, find_named_lead
from .limits import bound_tree
from .links import outbound_links
from .markdown_escape import heading_line
from .metadata import PageMetadata, read_metadata
from .models import Capture, CaptureOptions
from .paragraphs import wrap_loose_runs
from .parse import parse_page
from .prune import prune
from .signals import (
    NamedSignals,
    markup_signals,
    ordered,
    page_text,
    phrase_signals,
    script_weight,
    settle,
)
from .urls import absolute_url, is_web_url, strip_credentials

T = TypeVar("T")
_HTML_HINT = ("<html", "<body", "<div", "<p", "<head", "<!doctype", "<article", "<span", "<a ")
SHORT_EXTRACTION = 500
SHORT_SHARE = 0.2
READABILITY_WINS = 3.0
MIN_LIST_LINKS = 10
HEADING_WINDOW = 3
TITLE_AGREEMENT = 0.5  # the article H1 is among the first blocks, after a lead image or date


class _Clock:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    def run(self, phase: str, work: Callable[[], T]) -> T:
        started = time.perf_counter()
        try:
            return work()
        finally:
            self.timings[phase] = round((time.perf_counter() - started) * 1000, 3)


@pinned  # the user's extra secret names read once, not once per link and text redacted
def capture_html(
    html: str | bytes, url: str | None = None, *, options: CaptureOptions | None = None
) -> Capture:
    """Capture one page (or, in selection mode, one fragment) as Markdown.

    The whole capture redacts with one reading of the settings' extra secret names (a link
    redacted cost 5 path joins and a `stat` of the registry: 60% of a link-dense page's URL
    resolution), so a capture is also consistent with itself when they change under it."""
    options = options or CaptureOptions()
    clock = _Clock()
    text, encoding = clock.run("decode", lambda: _decode(html, url))
    _check_html(text)
    tree, input_cut = clock.run(
        "parse", lambda: parse_page(text, fragment=options.mode == "selection")
    )
    meta = clock.run("metadata", lambda: read_metadata(tree))
    found = clock.run("signals", lambda: markup_signals(tree, text))
    script_chars = script_weight(tree)
    if input_cut:
        found.add("truncated")
    named = NamedSignals()
    page_url = redact_url(url) if url else url  # a bad port is no reason to keep a password
    base = absolute_url(meta.base_href, page_url) if meta.base_href else page_url
    if clock.run("prune", lambda: _prune(tree, named)):
        found.add("truncated")
    visible = page_text(tree)  # one pass over the pruned page, shared by the steps below
    found |= named.found | phrase_signals(visible, script_chars=script_chars, tree=tree)
    content, extractor = clock.run(
        "extract", lambda: _main_content(tree, page_url, options, found, visible)
    )
    markdown = clock.run(
        "convert",
        lambda: _to_markdown(
            content,
            tree,
            meta=meta,
            base=base,
            options=options,
            extractor=extractor,
            visible=visible,
        ),
    )
    body = stored_body(markdown, page_url, options)
    if body["truncated"]:
        found.add("truncated")
    sparse = is_sparse(body["text"])
    if sparse:
        found.add("sparse_text")
    found = settle(found, body["text"], sparse=sparse)
    links = (
        clock.run("links", lambda: outbound_links(content, page_url, base))
        if options.include_links
        else []
    )
    links = [
        replace(link, text=redact_text(link.text), context=redact_text(link.context))
        for link in links
    ]
    return Capture(
        title=_redacted(meta.title or meta.h1),
        byline=_redacted(meta.byline),
        published=meta.published,
        language=meta.language,
        canonical_url=_canonical(meta, base),
        url=page_url,
        extracted_links=links,
        signals=ordered(found),
        extractor=extractor,
        encoding=encoding,
        timings=clock.timings,
        **body,
    )


def _redacted(text: str | None) -> str | None:
    return redact_text(text) if text else text


def _decode(html: str | bytes, url: str | None) -> tuple[str, str | None]:
    if isinstance(html, bytes):
        return decode_html(html, url)
    if not html.strip():
        raise CaptureError("empty", "the page is empty: nothing to capture")
    return html, None


def _prune(tree: HtmlElement, named: NamedSignals) -> bool:
    """Noise out, loose text runs made paragraphs, then the bounds that keep extraction fast;
    whether a bound cut content."""
    captions: list[Element] = []

    def observe(element: HtmlElement, names: frozenset[str]) -> None:
        named(element, names)
        if is_caption_named(names):
            captions.append(element)

    prune(tree, observe)
    drop_captions(tree, captions)
    wrap_loose_runs(tree)
    return bound_tree(tree)


def _check_html(text: str) -> None:
    head = text[:4096].lower()
    if "\x00" in head:
        raise CaptureError("binary", "this looks like a binary file, not an HTML page")
    if not any(hint in head for hint in _HTML_HINT) and "<" not in text[:65536]:
        raise CaptureError(
            "not_html", "this is not HTML (no tags found); give the page's HTML source"
        )


def _main_content(
    tree: HtmlElement, url: str | None, options: CaptureOptions, found: set[str], visible: str
) -> tuple[Element, str]:
    if options.mode == "selection":
        return tree, "selection"
    if options.mode == "full":
        return _body(tree), "full"
    if options.mode == "list":
        found.add("list_page")
        return _body(tree), "list"

    candidate = _article(tree, url, len("".join(visible.split())))
    if candidate is not None and candidate.has_text():
        return candidate.root, candidate.name
    if options.mode == "auto" and len(tree.xpath("//a[@href]")) >= MIN_LIST_LINKS:
        found.add("list_page")
        return _body(tree), "list"
    return _body(tree), "fallback:full"


def _article(tree: HtmlElement, url: str | None, page_length: int) -> Candidate | None:
    """trafilatura; readability only when trafilatura's result is short for this page."""
    # images off: trafilatura's image mode keeps captions and credits; images come back later
    best = trafilatura_candidate(tree, url, include_images=False)
    length = best.text_length if best else 0
    if length < SHORT_EXTRACTION or length < SHORT_SHARE * page_length:
        other = readability_candidate(tree, url)
        if other is not None and other.text_length > READABILITY_WINS * length:
            best = other
    if best is not None:
        remove_boilerplate_blocks(best.root)
    return best


def _body(tree: HtmlElement) -> HtmlElement:
    main = tree.find(".//main")
    if main is not None:
        return main
    body = tree.find("body")
    return body if body is not None else tree


def _to_markdown(
    content: Element,
    tree: HtmlElement,
    *,
    meta: PageMetadata,
    base: str | None,
    options: CaptureOptions,
    extractor: str,
    visible: str,
) -> str:
    for noscript in list(content.iter("noscript")):
        drop_tree(noscript)
    resolve_urls(content, base, include_images=options.include_images)
    body = html_to_markdown(content)
    if extractor == "selection":
        return body
    parts = blocks(body)  # a code block's blank lines do not split it
    shown = squash(body.replace("\\", ""))  # escapes aside, words are as shown
    title = _article_title(meta)
    heading_at = next(
        (i for i, part in enumerate(parts[:HEADING_WINDOW]) if part.startswith("# ")), None
    )
    if heading_at is None and title and title not in shown:
        parts.insert(0, heading_line(title))
        heading_at = 0
    if heading_at is not None and extractor not in ("full", "list"):
        parts, heading_at = _without_labels(parts, heading_at, meta.title or meta.h1)
    if extractor not in ("full", "list"):
        lead = find_lead(tree, meta.description, visible) or find_named_lead(tree)
        if lead and lead[:60] not in shown:
            parts.insert(0 if heading_at is None else heading_at + 1, escape_text(lead))
    markdown = tidy_markdown("\n\n".join(parts))
    if options.include_images and extractor == "trafilatura":
        markdown = reattach_images(markdown, tree, base)
    return markdown


def _without_labels(parts: list[str], heading_at: int, title: str | None) -> tuple[list[str], int]:
    """The kicker labels above the title heading left out; a short H1 right above another
    H1 is such a label, and the second is the title."""
    following = heading_at + 1
    if (
        following < len(parts)
        and parts[following].startswith("# ")
        and is_kicker(parts[heading_at], parts[following], title)
    ):
        heading_at = following
    return without_kickers(parts, heading_at, title)


def _article_title(meta: PageMetadata) -> str | None:
    """The H1 when the page's metadata agrees it is the article's title.

    A page whose H1 is a section label ("Press releases") while its metadata names the
    article gets no title line rather than a wrong one.
    """
    if not meta.h1:
        return meta.title
    if not meta.title:
        return meta.h1
    h1, named = meta.h1.lower(), meta.title.lower()
    if h1 in named or named in h1:
        return meta.h1
    h1_words, named_words = set(h1.split()), set(named.split())
    shared = len(h1_words & named_words) / max(1, min(len(h1_words), len(named_words)))
    return meta.h1 if shared >= TITLE_AGREEMENT else None


def _canonical(meta: PageMetadata, base: str | None) -> str | None:
    if not meta.canonical_url:
        return None
    resolved = absolute_url(meta.canonical_url, base)
    return strip_credentials(resolved) if resolved and is_web_url(resolved) else None
