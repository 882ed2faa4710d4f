"""Answers as one standalone HTML page: each answer through the host's safe renderer, its
citations listed with their state, under a CSP that lets nothing run or load.

The demo pages' addresses never resolve (`pages.DEMO_HOST`), so the page says so and shows
each verified quote in the stored copy of its page, marked, as the reader view does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..render.answer_html import answer_to_html
from ..render.highlight import highlighted_html
from .pages import DEMO_HOST

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}"
    ".verified{color:#11663a}.unverified{color:#a33}blockquote{margin:.2rem 0 .8rem 1rem}"
    "details{margin:0 0 1rem 1rem;padding:0 .8rem;border-left:3px solid #ccc}mark{background:#fe8}"
)
ABOUT_LINKS = (
    f"The citation links open the demo pages at the quoted words, but the pages live only "
    f"inside Laika: their addresses under {DEMO_HOST} are reserved never to resolve. Each "
    f"verified citation below shows the page as Laika stored it, with the quote marked. For "
    f"pages you save from the web, the same links open the live page at the quoted words."
)

Entry = tuple[str, str, Sequence[Mapping[str, Any]]]


def answers_page(entries: Sequence[Entry], stored: Mapping[str, str]) -> str:
    """The page; `stored` maps a source id to its stored Markdown (where quotes are shown)."""
    sections = "".join(
        _section(q, markdown, citations, stored) for q, markdown, citations in entries
    )
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
        f"<title>Laika demo answers</title><style>{STYLE}</style></head><body>"
        f"<h1>Laika demo answers</h1><p class='about'>{escape(ABOUT_LINKS)}</p>"
        f"{sections}</body></html>\n"
    )


def _section(
    question: str,
    markdown: str,
    citations: Sequence[Mapping[str, Any]],
    stored: Mapping[str, str],
) -> str:
    items = "".join(_citation(n, c, stored) for n, c in enumerate(citations, start=1))
    listed = f"<ol>{items}</ol>" if items else "<p>No citations.</p>"
    return f"<h2>{escape(question)}</h2>{answer_to_html(markdown, citations)}{listed}"


def _citation(number: int, citation: Mapping[str, Any], stored: Mapping[str, str]) -> str:
    state = "verified" if citation.get("verified") else "unverified"
    reason = "" if state == "verified" else f" ({escape(str(citation.get('reason') or ''))})"
    quote = str(citation.get("quote") or "")
    return (
        f"<li value='{number}'><span class='{state}'>{state}</span>{reason}"
        f"<blockquote>{escape(quote)}</blockquote>{_stored_copy(citation, quote, stored)}</li>"
    )


def _stored_copy(citation: Mapping[str, Any], quote: str, stored: Mapping[str, str]) -> str:
    """The cited page as stored, the quote marked (the host's safe HTML), folded away."""
    markdown = stored.get(str(citation.get("source_id"))) if citation.get("verified") else None
    if markdown is None:
        return ""
    html, _found = highlighted_html(markdown, quote)
    return f"<details><summary>The stored copy, quote marked</summary>{html}</details>"
