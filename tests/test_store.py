"""The store on a real SQLite file: schema, migrations, dedupe, cascade, search, jobs, logs."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from laika_host.capture import capture_html
from laika_host.store import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    SchemaTooNewError,
    Store,
    open_store,
)
from laika_host.store import migrations as migrations_module
from laika_host.store.runs import RunLinks, RunUsage

T = TypeVar("T")


def run(db: Path, work: Callable[[Store], Awaitable[T]], **options: object) -> T:
    async def main() -> T:
        async with open_store(db, **options) as store:  # type: ignore[arg-type]
            return await work(store)

    return asyncio.run(main())


def page(title: str, body: str, url: str = "https://example.org/a") -> object:
    html = (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        f"<p>{body}</p></article></body></html>"
    )
    return capture_html(html.encode(), url)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "laika.db"


# --- schema and migrations ------------------------------------------------------------


def test_a_new_file_gets_the_latest_schema_with_the_pragmas(db: Path) -> None:
    async def work(store: Store) -> dict[str, object]:
        pragmas = {}
        pragmas_read = ("journal_mode", "foreign_keys", "synchronous", "busy_timeout", "page_size")
        for name in (*pragmas_read, "application_id"):
            row = await store.db.fetch_one(f"PRAGMA {name}")
            assert row is not None
            pragmas[name] = row[0]
        tables = await store.db.fetch_all("SELECT name FROM sqlite_master WHERE type = 'table'")
        pragmas["tables"] = {row[0] for row in tables}
        applied = await store.db.fetch_all("SELECT name FROM _migrations ORDER BY rowid")
        pragmas["migrations"] = [row[0] for row in applied]
        pragmas["version"] = await store.schema_version()
        return pragmas

    found = run(db, work)
    assert found["journal_mode"] == "wal"
    assert found["foreign_keys"] == 1
    assert found["synchronous"] == 1  # NORMAL
    assert found["busy_timeout"] == 5000
    assert found["page_size"] == 8192
    assert found["version"] == len(migrations_module.MIGRATIONS)
    assert found["migrations"] == [m.__name__ for m in migrations_module.MIGRATIONS]
    assert found["application_id"] == migrations_module.LAIKA_APPLICATION_ID
    tables = found["tables"]
    assert isinstance(tables, set)
    assert {
        "meta",
        "collections",
        "sources",
        "capture_jobs",
        "chat_events",
        "artifacts",
        "llm_runs",
        "sources_fts",
        "artifacts_fts",
        "source_versions",
    } <= tables


def test_an_older_file_migrates_on_open(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = list(migrations_module.MIGRATIONS)
    monkeypatch.setattr(migrations_module, "MIGRATIONS", shipped[:1])  # a v1 file, as 0.1 wrote
    run(db, lambda store: store.schema_version())
    with contextlib.closing(sqlite3.connect(db)) as connection:  # its rows, as 0.1 wrote them
        connection.execute(
            "INSERT INTO collections (id, title, created_at, updated_at) "
            "VALUES ('col_1', 'Kept', 1, 1)"
        )
        connection.execute(
            "INSERT INTO sources (id, collection_id, kind, url, normalized_url, title, "
            "capture_status, capture_markdown, capture_text, content_hash, added_at, "
            "captured_at, updated_at) VALUES ('src_1', 'col_1', 'url', 'https://t.test/', "
            "'https://t.test/', 'Tides', 'captured', '# Tides', 'Tides', 'h', 1, 1, 1)"
        )
        connection.commit()

    async def m003_add_note_column(connection: object) -> None:
        await connection.execute("ALTER TABLE collections ADD COLUMN note TEXT")  # type: ignore[attr-defined]

    monkeypatch.setattr(migrations_module, "MIGRATIONS", [*shipped, m003_add_note_column])

    async def work(store: Store) -> tuple[int, list[str], list[str], int]:
        names = [
            row[0]
            for row in await store.db.fetch_all("SELECT name FROM _migrations ORDER BY rowid")
        ]
        titles = [c.title for c in await store.collections.list()]
        versions = await store.sources.versions("src_1")
        return await store.schema_version(), names, titles, len(versions)

    version, names, titles, captures = run(db, work)
    assert version == len(shipped) + 1
    assert names == [*(m.__name__ for m in shipped), "m003_add_note_column"]
    assert titles == ["Kept"]  # nothing lost
    assert run(db, lambda store: store.collections.get("KEPT")).id == "col_1"  # by its key
    assert captures == 1  # the v1 source's capture is listed as its current version


def test_a_newer_file_is_refused_and_left_untouched(db: Path) -> None:
    run(db, lambda store: store.collections.create("Mine"))
    shipped = len(migrations_module.MIGRATIONS)
    newer = shipped + 2
    with (
        contextlib.closing(sqlite3.connect(db)) as connection,
        connection,
    ):  # what a newer Laika's next migrations write
        for number in range(shipped + 1, newer + 1):
            connection.execute("INSERT INTO _migrations VALUES (?, 0)", (f"m{number:03d}_later",))
        connection.execute(f"PRAGMA user_version = {newer}")
    before = db.read_bytes()
    with pytest.raises(
        SchemaTooNewError, match=rf"version {newer}.*knows only up to {shipped}.*Upgrade"
    ):
        run(db, lambda store: store.collections.list())
    assert db.read_bytes() == before


# --- collections, sources, dedupe -------------------------------------------------------


def test_url_variants_collapse_to_one_source_per_collection(db: Path) -> None:
    variants = [
        "https://Example.ORG/story?utm_source=news&utm_medium=mail",
        "https://example.org/story/#comments",
        "https://example.org:443/story?fbclid=abc",
        "https://example.org/story",
    ]

    async def work(store: Store) -> tuple[list[str], int, int]:
        outcomes = []
        for url in variants:
            saved = await store.sources.save_capture("Inbox", page("Story", "Same text.", url))  # type: ignore[arg-type]
            outcomes.append(saved.outcome)
        await store.sources.save_capture("Other", page("Story", "Same text.", variants[0]))  # type: ignore[arg-type]
        inbox = await store.sources.list("Inbox")
        everywhere = await store.sources.list()
        return outcomes, len(inbox), len(everywhere)

    outcomes, inbox, everywhere = run(db, work)
    assert outcomes == ["new", "unchanged", "unchanged", "unchanged"]
    assert inbox == 1
    assert everywhere == 2  # the same URL in two collections stays two sources


def test_changed_content_bumps_the_version_and_keeps_the_previous_hash(db: Path) -> None:
    async def work(store: Store) -> tuple[list[str], object]:
        first = await store.sources.save_capture("Inbox", page("T", "First text."))  # type: ignore[arg-type]
        second = await store.sources.save_capture("Inbox", page("T", "Second text."))  # type: ignore[arg-type]
        same = await store.sources.save_capture("Inbox", page("T", "Second text."))  # type: ignore[arg-type]
        detail = await store.sources.get(second.source.id)
        assert first.source.id == second.source.id == same.source.id
        return [first.outcome, second.outcome, same.outcome], detail

    outcomes, detail = run(db, work)
    assert outcomes == ["new", "updated", "unchanged"]
    assert detail.capture_version == 2  # type: ignore[attr-defined]
    assert len(detail.provenance["previous_hashes"]) == 1  # type: ignore[attr-defined]
    assert "Second text." in detail.markdown  # type: ignore[attr-defined]
    assert hashlib.sha256(detail.markdown.encode()).hexdigest() == detail.content_hash  # type: ignore[attr-defined]


def test_notes_never_collide(db: Path) -> None:
    async def work(store: Store) -> list[str]:
        a = await store.sources.add_note("Inbox", "# Same\n\nidentical words")
        b = await store.sources.add_note("Inbox", "# Same\n\nidentical words")
        url_less = await store.sources.save_capture("Inbox", page("Saved", "file", url=None))  # type: ignore[arg-type]
        return [a.source.id, b.source.id, url_less.source.id, url_less.source.kind]

    a, b, c, kind = run(db, work)
    assert len({a, b, c}) == 3
    assert kind == "note"


def test_collection_titles_are_unique_ignoring_case_and_errors_name_the_fix(db: Path) -> None:
    run(db, lambda store: store.collections.create("Research"))
    with pytest.raises(ConflictError, match="already exists"):
        run(db, lambda store: store.collections.create("research"))
    with pytest.raises(InvalidInputError, match="needs a title"):
        run(db, lambda store: store.collections.create("   "))
    with pytest.raises(NotFoundError, match="laika collections list"):
        run(db, lambda store: store.collections.get("nope"))
    renamed = run(db, lambda store: store.collections.rename("RESEARCH", "Reading"))
    assert renamed.title == "Reading"


def test_deleting_a_collection_cascades_but_keeps_llm_runs(db: Path) -> None:
    async def work(store: Store) -> dict[str, int]:
        keep = await store.sources.save_capture("Keep", page("Other", "unrelated kept words"))  # type: ignore[arg-type]
        saved = await store.sources.save_capture("Gone", page("Doomed", "zebra words"))  # type: ignore[arg-type]
        collection_id, source_id = saved.source.collection_id, saved.source.id
        await store.jobs.queue(source_id)
        event = await store.chat.append(collection_id, "user", "what about zebras?")
        artifact = await store.artifacts.create(collection_id, "brief", "Zebras", dedupe_key="k1")
        run_record = await store.runs.append(
            "chat",
            links=RunLinks(collection_id, source_id, artifact.id, event.id),
            usage=RunUsage(input_tokens=10, output_tokens=5),
        )
        await store.collections.delete("Gone")
        counts = {}
        for table in ("sources", "capture_jobs", "chat_events", "artifacts", "llm_runs"):
            row = await store.db.fetch_one(f"SELECT count(*) FROM {table}")
            assert row is not None
            counts[table] = row[0]
        kept_run = (await store.runs.list())[0]
        assert kept_run.id == run_record.id
        assert kept_run.total_tokens == 15
        assert (kept_run.collection_id, kept_run.source_id) == (None, None)
        assert (kept_run.artifact_id, kept_run.chat_event_id) == (None, None)
        assert await store.search.query("zebra") == []
        assert [hit.id for hit in await store.search.query("kept")] == [keep.source.id]
        assert await store.integrity_check() == ["ok"]
        return counts

    assert run(db, work) == {
        "sources": 1,
        "capture_jobs": 0,
        "chat_events": 0,
        "artifacts": 0,
        "llm_runs": 1,
    }


# --- search ------------------------------------------------------------------------------


def test_search_ranks_with_bm25_filters_by_collection_and_marks_matches(db: Path) -> None:
    async def work(store: Store) -> None:
        a = await store.sources.save_capture(
            "A",
            page("Solar panels", "Roof panels turn sunlight into power.", "https://a.test/1"),  # type: ignore[arg-type]
        )
        b = await store.sources.save_capture(
            "B",
            page("Gardening", "Tomatoes like sunlight; panels shade them.", "https://b.test/2"),  # type: ignore[arg-type]
        )
        hits = await store.search.query("panels")
        assert [hit.id for hit in hits] == [a.source.id, b.source.id]  # title match first
        assert "**panels**" in hits[1].snippet.lower()
        only_b = await store.search.query("panels", collection_id=b.source.collection_id)
        assert [hit.id for hit in only_b] == [b.source.id]
        assert [hit.id for hit in await store.search.query('"turn sunlight"')] == [a.source.id]
        assert [hit.id for hit in await store.search.query("tomat*")] == [b.source.id]
        # all words first; when nothing has all of them, any will do
        either = await store.search.query("roof tomatoes")
        assert {hit.id for hit in either} == {a.source.id, b.source.id}
        assert len(await store.search.query("panels", limit=1)) == 1
        # common words do not rank; alone, they still match, newest first
        assert [h.id for h in await store.search.query("the panels")] == [
            h.id for h in await store.search.query("panels")
        ]
        newest_first = await store.search.query("into them")  # neither has both: any of them
        assert [hit.id for hit in newest_first] == [b.source.id, a.source.id]
        assert "**them**" in newest_first[0].snippet

    run(db, work)


@pytest.mark.parametrize(
    "query", ['"', "NEAR(a b", "a OR", "-x", "title:foo", "*", "a AND (b", "^c", "'; DROP TABLE"]
)
def test_search_never_passes_user_text_as_query_syntax(db: Path, query: str) -> None:
    async def work(store: Store) -> None:
        await store.sources.save_capture("Inbox", page("Words", "foo bar baz"))  # type: ignore[arg-type]
        if any(c.isalnum() for c in query):
            await store.search.query(query)  # words are searched for, syntax is not obeyed
        else:
            with pytest.raises(InvalidInputError, match="at least one word"):
                await store.search.query(query)

    run(db, work)


def test_artifacts_are_searchable_and_one_is_active_per_dedupe_key(db: Path) -> None:
    async def work(store: Store) -> None:
        collection = await store.collections.ensure("Inbox")
        art = await store.artifacts.create(collection.id, "brief", "Weekly brief", dedupe_key="w1")
        with pytest.raises(ConflictError, match="already being made"):
            await store.artifacts.create(collection.id, "brief", "Again", dedupe_key="w1")
        done = await store.artifacts.update_status(
            art.id, "completed", content_markdown="The **quarterly** numbers."
        )
        assert done.completed_at is not None
        again = await store.artifacts.create(collection.id, "brief", "Next", dedupe_key="w1")
        assert again.status == "pending"
        hits = await store.search.query("quarterly")
        assert [(hit.kind, hit.id) for hit in hits] == [("artifact", art.id)]
        with pytest.raises(ConflictError, match="already completed"):
            await store.artifacts.update_status(art.id, "running")

    run(db, work)


# --- capture jobs ------------------------------------------------------------------------


def test_jobs_queue_once_claim_retry_with_backoff_then_fail(db: Path) -> None:
    async def work(store: Store) -> None:
        saved = await store.sources.add_url("Inbox", "https://example.org/later?token=SECRET1")
        assert "SECRET1" not in (saved.source.url or "")
        job = await store.jobs.queue(saved.source.id)
        assert (await store.jobs.queue(saved.source.id)).id == job.id  # one active job
        for attempt in (1, 2, 3):
            claimed = await store.jobs.claim()
            assert claimed is not None
            assert claimed.id == job.id
            assert claimed.attempt_count == attempt
            assert await store.jobs.claim() is None  # nothing else is due
            failed = await store.jobs.fail(job.id, f"boom {attempt}")
            if attempt < 3:
                assert failed.status == "queued"
                assert failed.run_after > failed.updated_at  # backoff
                await asyncio.sleep(0.05 * 4 ** (attempt - 1) + 0.01)
        assert failed.status == "failed"
        assert failed.last_error == "boom 3"
        source = await store.sources.get(saved.source.id)
        assert source.capture_status == "pending"  # the worker marks the source, not the queue
        fresh = await store.jobs.queue(saved.source.id)  # a finished job does not block a new one
        assert fresh.id != job.id

    run(db, work, retry_base_ms=50)


def test_jobs_left_running_by_a_dead_process_are_requeued_on_open(db: Path) -> None:
    async def work(store: Store) -> str:
        saved = await store.sources.add_url("Inbox", "https://example.org/x")
        job = await store.jobs.queue(saved.source.id)
        await store.jobs.claim()
        await store.db.connection.execute(  # as if claimed by a process that has died
            "UPDATE capture_jobs SET claimed_by = 'elsewhere:999999:1' WHERE id = ?", (job.id,)
        )
        return job.id

    job_id = run(db, work, recover_jobs=False)
    assert run(db, lambda store: store.jobs.get(job_id)).status == "running"  # live lease
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE capture_jobs SET lease_until = 0")
    assert run(db, lambda store: store.jobs.get(job_id)).status == "queued"


# --- chat and runs ---------------------------------------------------------------------


def test_chat_events_list_oldest_first_and_runs_never_store_secrets(db: Path) -> None:
    secret = "sk-proj-" + "A1b2C3d4" * 4

    async def work(store: Store) -> None:
        collection = await store.collections.ensure("Inbox")
        for n in range(3):
            await store.chat.append(collection.id, "user", f"question {n}")
        answer = await store.chat.append(
            collection.id,
            "assistant",
            "answer",
            citations=[{"source_id": "src_1", "quote": "q"}],
            model={"provider": "ollama", "model": "llama3"},
        )
        events = await store.chat.list(collection.id)
        assert [e.markdown for e in events] == ["question 0", "question 1", "question 2", "answer"]
        assert [e.markdown for e in await store.chat.list(collection.id, limit=2)] == [
            "question 2",
            "answer",
        ]
        await store.runs.append(
            "chat",
            provider_id="openai",
            links=RunLinks(collection_id=collection.id, chat_event_id=answer.id),
            request={
                "headers": {"Authorization": f"Bearer {secret}", "X-Api-Key": secret},
                "messages": [{"role": "user", "content": f"my key is {secret}"}],
            },
            response={"text": "ok"},
            error=f"401 for key {secret}",
        )

    run(db, work)
    raw = b"".join(path.read_bytes() for path in db.parent.glob("laika.db*"))
    assert secret.encode() not in raw
    stored = run(db, lambda store: store.runs.list())[0]
    assert json.dumps(stored.request_redacted).count("[redacted]") == 3


def test_snippets_mark_short_words_whole_and_long_words_by_stem() -> None:
    from laika_host.store.search import match_pattern, snippet

    pattern = match_pattern(["the", "tides"])
    marked = snippet("the theme: their tidal tides", pattern)
    assert marked == "**the** theme: their **tidal** **tides**"
