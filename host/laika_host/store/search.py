"""Full-text search over sources (title + text) and artifacts (title + content), bm25-ranked.

User text never reaches FTS5's query syntax as is: words and "quoted phrases" become quoted
FTS strings (a trailing `*` keeps prefix search), all required; when that finds nothing, any
of them will do. Common words ("the", "und", ...) are left out when the query has others: they
add nothing to relevance and would make SQLite score nearly every page. A query of common
words only still matches them, newest pages first.
"""

from __future__ import annotations

import re

from ..defaults import MAX_SEARCH_LIMIT, SEARCH_LIMIT
from ..stopwords import STOPWORDS
from ._db import Database, Row
from .errors import InvalidInputError
from .records import SearchHit
from .rows import from_row

TITLE_WEIGHT = 8.0
SNIPPET_CHARS = 200
_TERM = re.compile(r'"([^"]*)"|(\S+)')
_WORD = re.compile(r"\w+")


class Query:
    """What the user typed, as FTS terms: content terms rank; common words only filter."""

    def __init__(self, text: str) -> None:
        self.terms: list[str] = []
        self.common: list[str] = []
        self.words: list[str] = []
        for phrase, word in _TERM.findall(text):
            words = _WORD.findall(phrase or word)
            if not words:
                continue
            self.words += words
            term = '"' + " ".join(words) + '"'
            if word.endswith("*") and len(words) == 1:
                term += " *"
            is_common = not phrase and len(words) == 1 and words[0].lower() in STOPWORDS
            (self.common if is_common else self.terms).append(term)
        if not self.terms and not self.common:
            raise InvalidInputError(f"nothing to search for in {text!r}: give at least one word")

    @property
    def ranked(self) -> bool:
        """False when the query is only common words: then newest matches come first."""
        return bool(self.terms)

    def fts(self, operator: str = "AND") -> str:
        return f" {operator} ".join(self.terms or self.common)


def fts_query(text: str, operator: str = "AND") -> str:
    """A safe FTS5 query for what the user typed."""
    return Query(text).fts(operator)


def _sql(kind: str, table: str, body: str, collection: bool, ranked: bool = True) -> str:
    """The top `limit` matches by bm25, then their text. Ranking selects only rowid and score:
    any other column would be read (and snippet() run) for every match before the sort.
    Snippets are cut in Python for the same reason."""
    fts = f"{table}_fts"
    filter_ = (
        f"JOIN {table} c ON c.seq = {fts}.rowid AND c.collection_id = :collection"
        if collection
        else ""
    )
    url = "t.url" if kind == "source" else "NULL"
    score = f"bm25({fts}, {TITLE_WEIGHT}, 1.0)" if ranked else "0.0"
    order = "score" if ranked else f"{fts}.rowid DESC"
    return (
        f"WITH top AS (SELECT {fts}.rowid AS seq, {score} AS score "
        f"FROM {fts} {filter_} WHERE {fts} MATCH :query ORDER BY {order} LIMIT :limit) "
        f"SELECT '{kind}' AS kind, t.id, t.collection_id, t.title, {url} AS url, "
        f"t.{body} AS body, top.score AS score FROM top JOIN {table} t ON t.seq = top.seq"
    )


def match_pattern(words: list[str]) -> re.Pattern[str] | None:
    """Query words as a regex matching by prefix (a stem-like cut), as the porter-stemmed
    index matched them."""
    # short words match whole (a prefix "the" would mark "their" and "themselves")
    forms = {
        re.escape(word) + r"\b" if len(word) <= 4 else re.escape(word[: len(word) - 2]) + r"\w*"
        for word in words
    }
    if not forms:
        return None
    ordered = sorted(forms, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(ordered) + ")", re.IGNORECASE)


def snippet(text: str, pattern: re.Pattern[str] | None, width: int = SNIPPET_CHARS) -> str:
    """About `width` characters around the first match, matches wrapped in `**`."""
    first = pattern.search(text) if pattern else None
    start = max(0, first.start() - width // 3) if first else 0
    if start > 0:  # begin at a word
        space = text.find(" ", start, start + 20)
        start = space + 1 if space >= 0 else start
    region = " ".join(text[start : start + 2 * width].split())
    end = len(region)
    if end > width:
        space = region.rfind(" ", 0, width)
        end = space if space > 0 else width
    window = region[:end]
    if pattern:
        window = pattern.sub(lambda match: f"**{match.group(0)}**", window)
    more = end < len(region) or start + 2 * width < len(text)
    return ("…" if start > 0 else "") + window + ("…" if more else "")


@from_row
def _hit(row: Row, pattern: re.Pattern[str] | None) -> SearchHit:
    return SearchHit(
        kind=row["kind"],
        id=row["id"],
        collection_id=row["collection_id"],
        title=row["title"],
        url=row["url"],
        snippet=snippet(row["body"] or "", pattern),
        score=round(float(row["score"]), 4),
    )


class Search:
    def __init__(self, database: Database) -> None:
        self.db = database

    async def query(
        self,
        text: str,
        *,
        collection_id: str | None = None,
        limit: int = SEARCH_LIMIT,
        include_artifacts: bool = True,
    ) -> list[SearchHit]:
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise InvalidInputError(f"limit must be between 1 and {MAX_SEARCH_LIMIT}")
        query = Query(text)
        hits = await self._run(query, query.fts(), collection_id, limit, include_artifacts)
        if not hits and " AND " in query.fts():
            any_of = query.fts("OR")
            hits = await self._run(query, any_of, collection_id, limit, include_artifacts)
        return hits

    async def _run(
        self,
        query: Query,
        fts: str,
        collection_id: str | None,
        limit: int,
        include_artifacts: bool,
    ) -> list[SearchHit]:
        params = {"query": fts, "collection": collection_id, "limit": limit}
        has_filter = collection_id is not None
        ranked = query.ranked
        rows = await self.db.fetch_all(
            _sql("source", "sources", "capture_text", has_filter, ranked), params
        )
        if include_artifacts:
            rows += await self.db.fetch_all(
                _sql("artifact", "artifacts", "content_markdown", has_filter, ranked), params
            )
        shown = [w for w in query.words if not ranked or w.lower() not in STOPWORDS]
        pattern = match_pattern(shown)
        best = sorted(rows, key=lambda row: float(row["score"]))[:limit]
        return [_hit(row, pattern) for row in best]
