"""The citation list: APA, MLA or Chicago references from the stored metadata, no model.

Author (the byline's names, in the style's form: `authors.py`), title (less the site's name
after it), site (the URL's host), date (published, else "n.d." with the
capture date as the access date) and URL, in each style's order and punctuation, as plain
text (no Markdown emphasis: the host escapes what it renders). Each reference cites the
opening words of its source, so its link opens the source it names.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from urllib.parse import urlsplit

from ..config import CitationConfig
from ..corpus import Corpus, SourceDoc, words_prefix
from ..items import Cited, Reference
from .authors import authors, people

OPENING_WORDS = 8
_MONTHS = "January February March April May June July August September October November December"
MONTHS = _MONTHS.split()
MLA_MONTHS = ["Jan.", "Feb.", "Mar.", "Apr.", "May", "June", "July", "Aug.", "Sept.", "Oct.",
              "Nov.", "Dec."]  # fmt: skip


def citation_list(corpus: Corpus, config: CitationConfig) -> Iterator[Reference]:
    style = {"apa": apa, "mla": mla, "chicago": chicago}[config.style]
    for source in sorted(corpus.sources, key=lambda s: (_sort_name(s) or s.title).casefold()):
        opening = words_prefix(source.text, OPENING_WORDS)
        citations = [Cited(source_id=source.source_id, quote=opening)] if opening else []
        yield Reference(source_id=source.source_id, text=style(source), citations=citations)


def apa(source: SourceDoc) -> str:
    published = _date(source.published)
    when = (
        f"({published.year}, {MONTHS[published.month - 1]} {published.day})"
        if published
        else "(n.d.)"
    )
    title, author = _title(source), _apa_author(source)
    head = f"{_ended(author)} {when}. {_ended(title)}" if author else f"{_ended(title)} {when}."
    parts = [head, f"{_site(source)}." if _site(source) else ""]
    accessed = _date(source.captured_at)
    if source.web_url and not published and accessed:
        parts.append(f"Retrieved {_long(accessed)}, from {source.web_url}")
    elif source.web_url:
        parts.append(source.web_url)
    return _spaced(parts)


def mla(source: SourceDoc) -> str:
    published, accessed = _date(source.published), _date(source.captured_at)
    parts = [_ended(_mla_author(source)), f"“{_ended(_title(source))}”"]
    container = [_site(source), _mla_date(published) if published else "", source.web_url or ""]
    parts.append(", ".join(part for part in container if part) + ".")
    if accessed:
        parts.append(f"Accessed {_mla_date(accessed)}.")
    return _spaced(parts)


def chicago(source: SourceDoc) -> str:
    published, accessed = _date(source.published), _date(source.captured_at)
    parts = [_ended(_chicago_author(source)), f"“{_ended(_title(source))}”"]
    parts.append(f"{_site(source)}." if _site(source) else "")
    if published:
        parts.append(f"{_long(published)}.")
    elif accessed:
        parts.append(f"Accessed {_long(accessed)}.")
    parts.append(f"{source.web_url}." if source.web_url else "")
    return _spaced(parts)


def _apa_author(source: SourceDoc) -> str:
    """ "Lovelace, A., & Babbage, C." (an organization as written)."""
    found = authors(source.byline)
    if found is None:
        return _as_written(source)
    shown = [author.apa() for author in found]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])}, & {shown[-1]}"


def _mla_author(source: SourceDoc) -> str:
    """ "Lovelace, Ada", "Lovelace, Ada, and Charles Babbage", "Lovelace, Ada, et al."."""
    found = authors(source.byline)
    if found is None:
        return _as_written(source)
    if len(found) > 2:
        return f"{found[0].inverted()}, et al"
    return (
        f"{found[0].inverted()}, and {found[1].natural()}"
        if len(found) == 2
        else (found[0].inverted())
    )


def _chicago_author(source: SourceDoc) -> str:
    """ "Lovelace, Ada, Charles Babbage, and Mary Somerville" (every author named)."""
    found = authors(source.byline)
    if found is None:
        return _as_written(source)
    rest = [author.natural() for author in found[1:]]
    if not rest:
        return found[0].inverted()
    listed = ", ".join([found[0].inverted(), *rest[:-1]])
    return f"{listed}, and {rest[-1]}"


def _as_written(source: SourceDoc) -> str:
    return ", ".join(people(source.byline))


def _sort_name(source: SourceDoc) -> str:
    found = authors(source.byline)
    return found[0].inverted() if found else _as_written(source)


def _ended(text: str) -> str:
    """`text` as a sentence of the reference: "Lovelace, A." keeps its one period, and a
    title ending in "?" or "!" takes none."""
    return "" if not text else text if text.endswith((".", "?", "!")) else f"{text}."


def _title(source: SourceDoc) -> str:
    return " ".join(source.heading.split()).rstrip(".") or "Untitled"


def _site(source: SourceDoc) -> str:
    if not source.web_url:
        return "Note"
    host = urlsplit(source.web_url).hostname or ""
    return host.removeprefix("www.")


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat((value or "")[:10])
    except ValueError:
        return None


def _long(day: date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


def _mla_date(day: date) -> str:
    return f"{day.day} {MLA_MONTHS[day.month - 1]} {day.year}"


def _spaced(parts: list[str]) -> str:
    return " ".join(part for part in parts if part)
