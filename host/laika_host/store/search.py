"""Full-text search over sources (title + text) and artifacts (title + content), bm25-ranked.

User text never reaches FTS5's query syntax as is: words and "quoted phrases" become quoted
FTS strings (a trailing `*` keeps prefix search), all required; when that finds nothing, any
of them will do.
"""

from __future__ import annotations

import re

from ._db import Database, Row
from .errors import InvalidInputError
from .records import SearchHit

TITLE_WEIGHT = 8.0
SNIPPET_TOKENS = 16
MAX_LIMIT = 200
_TERM = re.compile(r'"([^"]*)"|(\S+)')
_WORD = re.compile(r"\w+")


def fts_query(text: str, operator: str = "AND") -> str:
    """A safe FTS5 query for what the user typed."""
    terms = []
    for phrase, word in _TERM.findall(text):
        words = _WORD.findall(phrase or word)
        if not words:
            continue
        term = '"' + " ".join(words) + '"'
        if word.endswith("*") and len(words) == 1:
            term += " *"
        terms.append(term)
    if not terms:
        raise InvalidInputError(f"nothing to search for in {text!r}: give at least one word")
    return f" {operator} ".join(terms)


def _sql(kind: str, table: str, body_column: int, collection: bool) -> str:
    filter_ = "AND t.collection_id = :collection" if collection else ""
    url = "t.url" if kind == "source" else "NULL"
    return (
        f"SELECT '{kind}' AS kind, t.id, t.collection_id, t.title, {url} AS url, "
        f"snippet({table}_fts, {body_column}, '**', '**', '…', {SNIPPET_TOKENS}) AS snippet, "
        f"bm25({table}_fts, {TITLE_WEIGHT}, 1.0) AS score "
        f"FROM {table}_fts JOIN {table} t ON t.seq = {table}_fts.rowid "
        f"WHERE {table}_fts MATCH :query {filter_} ORDER BY score LIMIT :limit"
    )


def _hit(row: Row) -> SearchHit:
    return SearchHit(
        kind=row["kind"],
        id=row["id"],
        collection_id=row["collection_id"],
        title=row["title"],
        url=row["url"],
        snippet=row["snippet"] or "",
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
        limit: int = 20,
        include_artifacts: bool = True,
    ) -> list[SearchHit]:
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInputError(f"limit must be between 1 and {MAX_LIMIT}")
        hits = await self._run(fts_query(text), collection_id, limit, include_artifacts)
        if not hits and " AND " in fts_query(text):
            hits = await self._run(fts_query(text, "OR"), collection_id, limit, include_artifacts)
        return hits

    async def _run(
        self, query: str, collection_id: str | None, limit: int, include_artifacts: bool
    ) -> list[SearchHit]:
        params = {"query": query, "collection": collection_id, "limit": limit}
        has_filter = collection_id is not None
        rows = await self.db.fetch_all(_sql("source", "sources", 1, has_filter), params)
        if include_artifacts:
            rows += await self.db.fetch_all(_sql("artifact", "artifacts", 1, has_filter), params)
        hits = sorted((_hit(row) for row in rows), key=lambda hit: hit.score)
        return hits[:limit]
