"""Main-content candidates and the rules that choose between them.

trafilatura (precision-oriented) runs first; readability-lxml (`summary(html_partial=True)`)
runs only when trafilatura's result looks wrong, which keeps capture about as fast as
trafilatura alone. The rules are measured on `../shared/corpora/capture-dev` by
`bench/capture_quality.py`; the numbers behind each threshold are in its docstring.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from functools import cache
from typing import Any

import lxml.html
from lxml.html import HtmlElement

from .dom import Element

log = logging.getLogger("laika.capture")


@dataclass
class Candidate:
    """One extractor's idea of the main content, as an HTML element (a `<div>` or `<body>`)."""

    name: str
    root: Element

    @property
    def text_length(self) -> int:
        return sum(len(t.strip()) for t in self.root.itertext())

    def has_text(self) -> bool:
        """Whether any text is left: `text_length > 0`, stopping at the first word."""
        return any(t.strip() for t in self.root.itertext())


def trafilatura_candidate(
    tree: HtmlElement, url: str | None, *, include_images: bool
) -> Candidate | None:
    from trafilatura.core import bare_extraction
    from trafilatura.htmlprocessing import convert_to_html

    try:
        document = bare_extraction(tree, options=_options(url, include_images))
    except Exception:  # a third-party extractor must never take capture down
        log.warning("trafilatura failed on %s", url or "a page", exc_info=True)
        return None
    body = getattr(document, "body", None)
    if body is None or not len(body):
        return None
    html_root = convert_to_html(body)
    inner = html_root.find("body")
    return Candidate("trafilatura", inner if inner is not None else html_root)


@cache
def _base_options(include_images: bool) -> Any:
    """trafilatura's option object, built once (it reads its config file on every build)."""
    from trafilatura.settings import DEFAULT_CONFIG, Extractor

    return Extractor(
        config=DEFAULT_CONFIG,
        output_format="xml",  # any non-"python" format skips its unused plain-text rendering
        fast=True,
        comments=False,
        tables=True,
        links=True,
        images=include_images,
        formatting=True,
        with_metadata=False,
    )


def _options(url: str | None, include_images: bool) -> Any:
    """A copy of the base options for this page (trafilatura reads `url` and `source`)."""
    options = copy.copy(_base_options(include_images))
    options.url = url
    options.source = url
    return options


def readability_candidate(tree: HtmlElement, url: str | None) -> Candidate | None:
    from readability import Document

    try:
        summary = Document(copy.deepcopy(tree), url=url).summary(html_partial=True)
    except Exception:
        log.warning("readability failed on %s", url or "a page", exc_info=True)
        return None
    if not summary or not summary.strip():
        return None
    return Candidate("readability", lxml.html.fragment_fromstring(summary, create_parent="div"))
