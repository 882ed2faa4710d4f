"""Answers as one standalone HTML page: each answer through the host's safe renderer, its
citations listed with their state, under a CSP that lets nothing run or load."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..render.answer_html import answer_to_html

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}"
    ".verified{color:#11663a}.unverified{color:#a33}blockquote{margin:.2rem 0 .8rem 1rem}"
)

Entry = tuple[str, str, Sequence[Mapping[str, Any]]]


def answers_page(entries: Sequence[Entry]) -> str:
    sections = "".join(_section(q, markdown, citations) for q, markdown, citations in entries)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
        f"<title>Laika demo answers</title><style>{STYLE}</style></head><body>"
        f"<h1>Laika demo answers</h1>{sections}</body></html>\n"
    )


def _section(question: str, markdown: str, citations: Sequence[Mapping[str, Any]]) -> str:
    items = "".join(_citation(n, c) for n, c in enumerate(citations, start=1))
    listed = f"<ol>{items}</ol>" if items else "<p>No citations.</p>"
    return f"<h2>{escape(question)}</h2>{answer_to_html(markdown, citations)}{listed}"


def _citation(number: int, citation: Mapping[str, Any]) -> str:
    state = "verified" if citation.get("verified") else "unverified"
    reason = "" if state == "verified" else f" ({escape(str(citation.get('reason') or ''))})"
    quote = escape(str(citation.get("quote") or ""))
    return (
        f"<li value='{number}'><span class='{state}'>{state}</span>{reason}"
        f"<blockquote>{quote}</blockquote></li>"
    )
