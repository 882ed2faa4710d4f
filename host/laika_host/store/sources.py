"""Sources: captured pages (kind url), notes and images, one row each, deduplicated by URL.

A URL source is identified within its collection by its normalized URL (tracking parameters,
fragments, default ports, host case and the trailing slash do not make a new source). Saving a
capture again with the same content changes nothing; changed content bumps
`capture_version`, and the replaced capture is archived as a version (`versions.py`). A capture
that would lose what the user saw (`refresh.py`) is kept out. Notes never collide.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import re
from typing import Any

import aiosqlite
import cmarkgfm
import lxml.html
from cmarkgfm import cmark

from ..capture.models import Capture
from ..capture.text import markdown_to_text
from ..capture.urls import is_web_url, normalize_url, strip_credentials
from ..defaults import LIST_LIMIT
from ..redact import redact_text, redact_url
from ._db import Database, Row
from .collections import Collections
from .errors import InvalidInputError, NotFoundError
from .ids import new_id, now_ms
from .passage_index import index_source
from .records import (
    SavedSource,
    SaveOutcome,
    Source,
    SourceDetail,
    SourceVersion,
    SourceVersionDetail,
    loads,
    required_time,
    time_of,
)
from .redact import redact_stamped_row
from .refresh import keep_reason, saved_copy
from .rows import from_row
from .titles import clean_title
from .versions import Versions, archive

SUMMARY_CHARS = 480
MAX_NOTE_CHARS = 1_000_000
MAX_PREVIOUS_HASHES = 20
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_LIST_COLUMNS = (
    "id, collection_id, kind, url, normalized_url, title, capture_status, capture_version, "
    "content_hash, capture_error, truncated, signals, byline, published, added_at, "
    "captured_at, updated_at, length(capture_markdown) AS markdown_chars"
)


def url_key(url: str) -> str:
    """The normalized URL a source is stored under (what `save_capture` and `add_url` store)."""
    return strip_credentials(normalize_url(strip_credentials(url)))


def summary_of(text: str) -> str:
    """The opening of the text, cut at a sentence end: the tier packed when space is short."""
    if len(text) <= SUMMARY_CHARS:
        return text
    head = text[:SUMMARY_CHARS]
    ends = [match.start() for match in _SENTENCE_END.finditer(head)]
    return head[: ends[-1]] if ends and ends[-1] > SUMMARY_CHARS // 3 else head.rstrip() + "…"


def media_of(markdown: str) -> list[dict[str, str]]:
    """The web images a CommonMark reader shows (cmark-gfm parses; a pattern match would
    also list page text that only spells an image, or one inside a code span)."""
    if "![" not in markdown:
        return []
    html = cmarkgfm.markdown_to_html_with_extensions(
        markdown, options=cmark.Options.CMARK_OPT_DEFAULT, extensions=["table"]
    )
    seen: dict[str, dict[str, str]] = {}
    if not html.strip():
        return []
    for image in lxml.html.fragment_fromstring(html, create_parent="div").iter("img"):
        url = image.get("src") or ""
        if is_web_url(url):
            seen.setdefault(url, {"type": "image", "url": url, "alt": image.get("alt") or ""})
    return list(seen.values())


@from_row
def _source(row: Row) -> Source:
    return Source(
        id=row["id"],
        collection_id=row["collection_id"],
        kind=row["kind"],
        url=row["url"],
        normalized_url=row["normalized_url"],
        title=row["title"],
        capture_status=row["capture_status"],
        capture_version=row["capture_version"],
        content_hash=row["content_hash"],
        capture_error=row["capture_error"],
        truncated=bool(row["truncated"]),
        signals=loads(row["signals"], []),
        byline=row["byline"],
        published=row["published"],
        markdown_chars=row["markdown_chars"] or 0,
        added_at=required_time(row, "added_at"),
        captured_at=time_of(row, "captured_at"),
        updated_at=required_time(row, "updated_at"),
    )


@from_row
def _body(row: Row) -> dict[str, Any]:
    return {
        "source_id": row["id"],
        "url": row["url"] or f"laika:source/{row['id']}",
        "title": row["title"] or "(untitled)",
        "markdown": row["capture_markdown"] or "",
        "text": row["capture_text"] or "",
        "summary": row["capture_summary"] or "",
        "captured_at": time_of(row, "captured_at"),
        "redacted_with": row["redacted_with"],
    }


@from_row
def _detail(row: Row) -> SourceDetail:
    return SourceDetail(
        **_source(row).model_dump(),
        markdown=row["capture_markdown"],
        summary=row["capture_summary"],
        extracted_links=loads(row["extracted_links_json"], []),
        media=loads(row["media_json"], []),
        provenance=loads(row["provenance_json"], {}),
    )


def _capture_columns(capture: Capture) -> dict[str, Any]:
    return {
        "title": capture.title,
        "capture_status": "captured",
        "content_hash": capture.content_hash,
        "capture_error": None,
        "capture_summary": summary_of(capture.text),
        "capture_markdown": capture.markdown,
        "capture_text": capture.text,
        "truncated": int(capture.truncated),
        "extracted_links_json": json.dumps([link.to_json() for link in capture.extracted_links]),
        "media_json": json.dumps(media_of(capture.markdown)),
        "signals": json.dumps(capture.signals),
        "byline": capture.byline,
        "published": capture.published,
    }


def _provenance(capture: Capture, origin: str, extra: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "origin": origin,
        "url": capture.url,
        "canonical_url": capture.canonical_url,
        "language": capture.language,
        "encoding": capture.encoding,
        "extractor": capture.extractor,
        "extractor_version": capture.capture_version,
        **(extra or {}),
    }


PRIVATE_FETCH = "private_address_allowed"
"""A source's provenance key: the user allowed its next capture to fetch from a private
address (issue #24). One capture's allowance, never a model's: the job reads and clears it."""


class Sources:
    def __init__(self, database: Database, collections: Collections) -> None:
        self.db = database
        self.collections = collections
        self._versions = Versions(database)

    async def save_capture(
        self,
        collection: str,
        capture: Capture,
        *,
        origin: str = "cli",
        provenance: dict[str, Any] | None = None,
        force: bool = False,
    ) -> SavedSource:
        """Store a capture: a new source, an updated one, (same content) no change, or (much
        less text, a new login wall: see `refresh.py`) kept out unless `force`.

        A capture without a web URL (a saved file given no `--url`) becomes a note.
        """
        target = await self.collections.ensure(collection)
        if not capture.url or not is_web_url(capture.url) or not capture.normalized_url:
            note = await self._new_note(
                target.id, _capture_columns(capture), _provenance(capture, origin, provenance)
            )
            return SavedSource(outcome="new", collection=target.title, source=note)
        async with self.db.transaction() as connection:
            outcome, source_id, reason = await self._upsert(
                connection, target.id, capture, _provenance(capture, origin, provenance), force
            )
        return SavedSource(
            outcome=outcome,
            collection=target.title,
            source=await self.get_summary(source_id),
            reason=reason,
        )

    async def _upsert(
        self,
        connection: aiosqlite.Connection,
        collection_id: str,
        capture: Capture,
        provenance: dict[str, Any],
        force: bool,
    ) -> tuple[SaveOutcome, str, str | None]:
        cursor = await connection.execute(
            "SELECT id, content_hash, capture_status, capture_version, provenance_json, "
            "signals, length(capture_text) AS text_chars "
            "FROM sources WHERE collection_id = ? AND normalized_url = ? AND kind = 'url'",
            (collection_id, redact_url(capture.normalized_url or "")),
        )
        row = await cursor.fetchone()
        now = now_ms()
        columns = _capture_columns(capture)
        if row is None:
            source_id = new_id("src")
            await self._insert(
                connection,
                source_id=source_id,
                collection_id=collection_id,
                kind="url",
                columns={**columns, "url": capture.url, "normalized_url": capture.normalized_url},
                provenance=provenance,
                now=now,
            )
            return "new", source_id, None
        saved = saved_copy(row)  # checked before anything below writes
        if saved.captured and saved.content_hash == capture.content_hash:
            return "unchanged", saved.id, None
        reason = keep_reason(saved.text_chars, saved.signals, capture)
        if saved.captured and reason and not force:
            return "kept", saved.id, reason
        await archive(connection, saved.id, now)
        history = list(saved.previous_hashes)
        if saved.content_hash:
            history = [*history, saved.content_hash][-MAX_PREVIOUS_HASHES:]
        version = saved.version + (1 if saved.captured else 0)
        assignments = {
            **columns,
            "url": capture.url,
            "capture_version": version,
            "provenance_json": json.dumps({**provenance, "previous_hashes": history}),
            "captured_at": now,
            "updated_at": now,
        }
        assignments = redact_stamped_row(assignments)  # no write path may store a secret
        await connection.execute(
            f"UPDATE sources SET {', '.join(f'{key} = ?' for key in assignments)} WHERE id = ?",
            (*assignments.values(), saved.id),
        )
        await index_source(connection, saved.id)  # searchable when this commits
        await self.collections.touch(collection_id, now)
        return "updated", saved.id, None

    async def _insert(
        self,
        connection: aiosqlite.Connection,
        *,
        source_id: str,
        collection_id: str,
        kind: str,
        columns: dict[str, Any],
        provenance: dict[str, Any],
        now: int,
    ) -> None:
        """Insert a source row and mark its collection changed (one transaction's work)."""
        values = {
            **columns,
            "id": source_id,
            "collection_id": collection_id,
            "kind": kind,
            "provenance_json": json.dumps(provenance),
            "added_at": now,
            "captured_at": now if columns.get("capture_status") == "captured" else None,
            "updated_at": now,
        }
        values = redact_stamped_row(values)  # no write path may store a secret
        await connection.execute(
            f"INSERT INTO sources ({', '.join(values)}) VALUES ({', '.join('?' for _ in values)})",
            tuple(values.values()),
        )
        await index_source(connection, source_id)  # searchable when this commits
        await self.collections.touch(collection_id, now)

    async def _new_note(
        self, collection_id: str, columns: dict[str, Any], provenance: dict[str, Any]
    ) -> Source:
        """Insert a note (notes never collide, so there is nothing to look up first)."""
        source_id = new_id("src")
        async with self.db.transaction() as connection:
            await self._insert(
                connection,
                source_id=source_id,
                collection_id=collection_id,
                kind="note",
                columns=columns,
                provenance=provenance,
                now=now_ms(),
            )
        return await self.get_summary(source_id)

    async def add_note(
        self, collection: str, markdown: str, *, title: str | None = None, origin: str = "cli"
    ) -> SavedSource:
        """A note written by the user (Markdown), stored as a captured source of kind note;
        its title is `title` (one line of text, see `titles`) or the note's first line."""
        if title is not None:
            title = clean_title(title, what="a note")
        if not markdown.strip():
            raise InvalidInputError("a note needs some text (got an empty one)")
        if len(markdown) > MAX_NOTE_CHARS:
            raise InvalidInputError(f"a note is at most {MAX_NOTE_CHARS:,} characters")
        target = await self.collections.ensure(collection)
        markdown = redact_text(markdown)  # before the hash, so the stored note matches it
        text = markdown_to_text(markdown)
        columns = {
            "title": title if title is not None else _first_line(text),
            "capture_status": "captured",
            "content_hash": hashlib.sha256(markdown.encode("utf-8")).hexdigest(),
            "capture_summary": summary_of(text),
            "capture_markdown": markdown,
            "capture_text": text,
            "media_json": json.dumps(media_of(markdown)),
        }
        note = await self._new_note(target.id, columns, {"origin": origin})
        return SavedSource(outcome="new", collection=target.title, source=note)

    async def add_url(
        self, collection: str, url: str, *, title: str | None = None, origin: str = "cli"
    ) -> SavedSource:
        """A URL to capture later (status pending); an existing source for it is returned.
        A page already captured in another collection starts from that copy (captured, no
        fetch needed), so "add this page to Research" works offline; its job refreshes it."""
        if title is not None:
            title = clean_title(title, what="a source")
        if not is_web_url(url):
            raise InvalidInputError(f"not a web address: {url!r} (give an http:// or https:// URL)")
        clean = strip_credentials(url)
        normalized = url_key(url)  # as `redact_row` will store it
        target = await self.collections.ensure(collection)
        now = now_ms()
        async with self.db.transaction() as connection:
            cursor = await connection.execute(
                "SELECT id FROM sources WHERE collection_id = ? AND normalized_url = ? "
                "AND kind = 'url'",
                (target.id, normalized),
            )
            row = await cursor.fetchone()
            if row is not None:
                outcome: SaveOutcome = "unchanged"
                source_id = row["id"]
            else:
                outcome, source_id = "new", new_id("src")
                copy, copied_from = await _captured_copy(connection, normalized)
                columns = {
                    **copy,
                    "url": clean,
                    "normalized_url": normalized,
                    "title": title or copy.get("title"),
                    "capture_status": copy.get("capture_status", "pending"),
                }
                provenance = {"origin": origin, **({"copied_from": copied_from} if copy else {})}
                await self._insert(
                    connection,
                    source_id=source_id,
                    collection_id=target.id,
                    kind="url",
                    columns=columns,
                    provenance=provenance,
                    now=now,
                )
        return SavedSource(
            outcome=outcome, collection=target.title, source=await self.get_summary(source_id)
        )

    async def allow_private_fetch(self, source_id: str, allowed: bool = True) -> None:
        """Record (or clear) that the user allowed the next capture of this source to fetch
        from a private address (`PRIVATE_FETCH`): set when they add or refresh it with
        `--allow-private-address` or the setting, cleared by the job that captures it."""
        change = (
            f"json_set(provenance_json, '$.{PRIVATE_FETCH}', json('true'))"
            if allowed
            else f"json_remove(provenance_json, '$.{PRIVATE_FETCH}')"
        )
        async with self.db.transaction() as connection:
            await connection.execute(
                f"UPDATE sources SET provenance_json = {change} WHERE id = ?", (source_id,)
            )

    async def private_fetch_allowed(self, source_id: str) -> bool:
        """Whether the user allowed the next capture of this source a private address."""
        row = await self.db.fetch_one(
            f"SELECT json_extract(provenance_json, '$.{PRIVATE_FETCH}') AS allowed "
            "FROM sources WHERE id = ?",
            (source_id,),
        )
        return bool(row is not None and row["allowed"])

    async def mark_failed(self, source_id: str, error: str) -> None:
        """Record why capturing failed; a source captured before keeps its content."""
        async with self.db.transaction() as connection:
            await connection.execute(
                "UPDATE sources SET capture_error = ?, updated_at = ?, capture_status = "
                "CASE capture_status WHEN 'captured' THEN 'captured' ELSE 'failed' END "
                "WHERE id = ?",
                (redact_text(error)[:2000], now_ms(), source_id),
            )

    async def get(self, source_id: str) -> SourceDetail:
        row = await self.db.fetch_one(
            f"SELECT {_LIST_COLUMNS}, capture_markdown, capture_summary, extracted_links_json, "
            "media_json, provenance_json FROM sources WHERE id = ?",
            (source_id,),
        )
        if row is None:
            raise NotFoundError(f"no source {source_id!r}; `laika sources list` shows them")
        return _detail(row)

    async def lookup(self, url: str) -> builtins.list[dict[str, str | None]]:
        """The sources stored under this URL's normalized form, in every collection (the
        extension's "already saved" badge)."""
        if not is_web_url(url):
            raise InvalidInputError(f"not a web address: {url!r} (give an http:// or https:// URL)")
        rows = await self.db.fetch_all(
            "SELECT s.id, s.collection_id, c.title AS collection, s.title FROM sources s "
            "JOIN collections c ON c.id = s.collection_id "
            "WHERE s.normalized_url = ? AND s.kind = 'url' ORDER BY s.added_at DESC, s.seq DESC",
            (url_key(url),),
        )
        return [
            {
                "source_id": row["id"],
                "collection_id": row["collection_id"],
                "collection": row["collection"],
                "title": row["title"],
            }
            for row in rows
        ]

    async def get_summary(self, source_id: str) -> Source:
        row = await self.db.fetch_one(
            f"SELECT {_LIST_COLUMNS} FROM sources WHERE id = ?", (source_id,)
        )
        if row is None:
            raise NotFoundError(f"no source {source_id!r}; `laika sources list` shows them")
        return _source(row)

    async def versions(self, source_id: str) -> builtins.list[SourceVersion]:
        """Every capture of a source, oldest first, the current one last."""
        return await self._versions.list(source_id)

    async def version(self, source_id: str, version: int) -> SourceVersionDetail:
        """One capture of a source with its Markdown, by version number."""
        return await self._versions.get(source_id, version)

    async def list(
        self, collection: str | None = None, *, limit: int = LIST_LIMIT, offset: int = 0
    ) -> list[Source]:
        where: str = ""
        params: tuple[str, ...] = ()
        if collection is not None:
            where = "WHERE collection_id = ?"
            params = ((await self.collections.get(collection)).id,)
        rows = await self.db.fetch_all(
            f"SELECT {_LIST_COLUMNS} FROM sources {where} "
            "ORDER BY added_at DESC, seq DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [_source(row) for row in rows]

    async def bodies(
        self, collection_id: str, *, limit: int = 1000
    ) -> builtins.list[dict[str, Any]]:
        """The captured sources of a collection with their Markdown, text and summary (what
        packing reads), newest first."""
        rows = await self.db.fetch_all(
            "SELECT id, url, title, capture_markdown, capture_text, capture_summary, "
            "captured_at, redacted_with FROM sources "
            "WHERE collection_id = ? AND capture_status = 'captured' "
            "ORDER BY added_at DESC, seq DESC LIMIT ?",
            (collection_id, limit),
        )
        return [_body(row) for row in rows]

    async def bodies_of(self, source_ids: builtins.list[str]) -> builtins.list[dict[str, Any]]:
        """`bodies` of the captured sources named, in the order named (unknown ids skipped)."""
        if not source_ids:
            return []
        marks = ", ".join("?" for _ in source_ids)
        rows = await self.db.fetch_all(
            "SELECT id, url, title, capture_markdown, capture_text, capture_summary, "
            f"captured_at, redacted_with FROM sources WHERE id IN ({marks}) "
            "AND capture_status = 'captured'",
            tuple(source_ids),
        )
        found = {row["id"]: _body(row) for row in rows}
        return [found[source_id] for source_id in source_ids if source_id in found]

    async def ids_in(self, collection_id: str, source_ids: builtins.list[str]) -> builtins.set[str]:
        """Which of `source_ids` are sources of the collection."""
        if not source_ids:
            return set()
        rows = await self.db.fetch_all(
            "SELECT id FROM sources WHERE collection_id = ? "
            "AND id IN (SELECT value FROM json_each(?))",
            (collection_id, json.dumps(source_ids)),
        )
        return {str(row[0]) for row in rows}

    async def captured_count(self, collection_id: str) -> int:
        row = await self.db.fetch_one(
            "SELECT count(*) FROM sources WHERE collection_id = ? AND capture_status = 'captured'",
            (collection_id,),
        )
        return int(row[0]) if row else 0

    async def delete(self, source_id: str) -> Source:
        source = await self.get_summary(source_id)
        async with self.db.transaction() as connection:
            await connection.execute("DELETE FROM sources WHERE id = ?", (source_id,))
        return source


_COPIED_COLUMNS = (
    "title, capture_status, content_hash, capture_summary, capture_markdown, capture_text, "
    "truncated, extracted_links_json, media_json, signals, byline, published"
)


async def _captured_copy(
    connection: aiosqlite.Connection, normalized_url: str
) -> tuple[dict[str, Any], str | None]:
    """The capture columns of the latest captured source of this URL in any collection
    (and its id), or nothing."""
    cursor = await connection.execute(
        f"SELECT id, {_COPIED_COLUMNS} FROM sources WHERE normalized_url = ? AND kind = 'url' "
        "AND capture_status = 'captured' ORDER BY captured_at DESC, seq DESC LIMIT 1",
        (normalized_url,),
    )
    row = await cursor.fetchone()
    if row is None:
        return {}, None
    columns = {key: row[key] for key in row.keys() if key != "id"}  # noqa: SIM118 (sqlite Row)
    return columns, str(row["id"])


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line[:120] or "Note"
