"""Titles a user gives (collections, notes) (issue 12, store finding 3).

SQLite's NOCASE and lower() stop at NUL and fold only ASCII: "\\x00" conflicted on an empty
store, "a\\x00c" with "a\\x00b", while "work\\x00" and "Work" were both accepted, and so were
"Straße" and "STRASSE". A title is one line of text: control characters (C0 but the
whitespace ones, DEL, C1) and lone surrogates are refused with the rule named; runs of
whitespace become one space; two titles are the same title exactly when Unicode's canonical
caseless match (casefold, NFD) says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import unicodedata
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from laika_host.store import ConflictError, InvalidInputError, Store, open_store
from laika_host.store import migrations as migrations_module

T = TypeVar("T")
REFUSED = [chr(c) for c in [*range(0x00, 0x09), *range(0x0E, 0x20), *range(0x7F, 0xA0)]]
WHITESPACE_CONTROLS = "\t\n\v\f\r"


def run(db: Path, work: Callable[[Store], Awaitable[T]]) -> T:
    async def main() -> T:
        async with open_store(db) as store:
            return await work(store)

    return asyncio.run(main())


def same_title(a: str, b: str) -> bool:
    """Unicode's canonical caseless match (D145) of the titles as stored: the oracle."""

    def folded(title: str) -> str:
        text = unicodedata.normalize("NFD", " ".join(title.split()))
        return unicodedata.normalize("NFD", text.casefold())

    return folded(a) == folded(b)


@pytest.fixture(scope="module")
def shared_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("titles") / "laika.db"


async def _emptied(store: Store) -> Store:
    async with store.db.transaction() as connection:
        await connection.execute("DELETE FROM collections")
    return store


printable = st.characters(exclude_categories=["Cc", "Cs"])
titles = st.text(printable, min_size=1, max_size=24).filter(lambda t: bool(t.split()))


@st.composite
def title_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A title and another that is often the same title in another case or form."""
    first = draw(titles)
    second = draw(
        st.one_of(
            titles,
            st.sampled_from(
                [
                    first.upper(),
                    first.lower(),
                    first.swapcase(),
                    first.casefold(),
                    first.title(),
                    unicodedata.normalize("NFD", first),
                    unicodedata.normalize("NFC", first.upper()),
                    unicodedata.normalize("NFKC", first),
                    f"  {first}\t",
                    first + "x",
                    first[:-1],
                ]
            ),
        )
    )
    assume(second.split() and len(" ".join(second.split())) <= 200)
    return first, second


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pair=title_pairs())
def test_two_titles_conflict_exactly_when_they_are_the_same_title(
    shared_db: Path, pair: tuple[str, str]
) -> None:
    first, second = pair

    async def work(store: Store) -> tuple[bool, list[str], list[str]]:
        await _emptied(store)
        kept = await store.collections.create(first)
        try:
            other = await store.collections.create(second)
        except ConflictError:
            conflict = True
            renamed = await store.collections.rename(kept.id, second)  # its own key: no conflict
            assert renamed.id == kept.id
        else:
            conflict = False
            assert (await store.collections.get(second)).id == other.id  # each finds its own
            assert (await store.collections.get(first)).id == kept.id
            with pytest.raises(ConflictError, match="already exists"):
                await store.collections.rename(other.id, first)
        listed = [c.title for c in await store.collections.list()]
        return conflict, listed, [" ".join(t.split()) for t in (first, second)]

    conflict, listed, cleaned = run(shared_db, work)
    assert conflict == same_title(first, second)
    assert sorted(listed) == sorted(cleaned[1:] if conflict else cleaned)  # exactly as given


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    before=st.text(printable, max_size=8),
    refused=st.one_of(st.sampled_from(REFUSED), st.characters(categories=["Cs"])),
    after=st.text(printable, max_size=8),
)
def test_a_title_with_a_control_character_is_refused_and_nothing_is_stored(
    shared_db: Path, before: str, refused: str, after: str
) -> None:
    title = f"{before}{refused}{after}"
    code = f"U+{ord(refused):04X}"

    async def work(store: Store) -> None:
        await _emptied(store)
        inbox = await store.collections.create("Inbox")
        attempts: list[Callable[[], Awaitable[object]]] = [
            lambda: store.collections.create(title),
            lambda: store.collections.ensure(title),
            lambda: store.collections.rename(inbox.id, title),
            lambda: store.sources.add_note(title, "a note"),
            lambda: store.sources.add_note("Inbox", "a note", title=title),
        ]
        for attempt in attempts:
            with pytest.raises(InvalidInputError) as refusal:
                await attempt()
            message = str(refusal.value)
            assert code in message
            assert "control character" in message or "surrogate" in message
            assert "title" in message
        assert [c.title for c in await store.collections.list()] == ["Inbox"]
        assert await store.sources.list() == []

    run(shared_db, work)


@given(
    parts=st.lists(st.text(printable, min_size=1, max_size=6), min_size=2, max_size=4),
    spaces=st.lists(st.text(st.sampled_from(f" {WHITESPACE_CONTROLS}"), min_size=1), min_size=3),
)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_tabs_and_line_breaks_in_a_title_become_one_space(
    shared_db: Path, parts: list[str], spaces: list[str]
) -> None:
    assume(all(part.split() == [part] for part in parts))  # no whitespace inside a part
    title = spaces[0] + "".join(p + s for p, s in zip(parts, spaces[1:], strict=False))

    async def work(store: Store) -> tuple[str, str | None]:
        await _emptied(store)
        collection = await store.collections.create(title)
        note = await store.sources.add_note(collection.id, "text", title=title)
        return collection.title, note.source.title

    expected = " ".join(parts[: len(spaces) - 1])
    assert run(shared_db, work) == (expected, expected)


def test_titles_an_older_laika_stored_stay_and_are_found_by_id_and_exact_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file from before the title key: NUL titles and Unicode case twins stay as they were
    (nothing saved is lost); new titles conflict with them by the caseless rule."""
    db = tmp_path / "laika.db"
    shipped = list(migrations_module.MIGRATIONS)
    monkeypatch.setattr(migrations_module, "MIGRATIONS", shipped[:3])  # as an older Laika wrote
    run(db, lambda store: store.schema_version())
    legacy = ["Inbox", "a\x00b", "work\x00", "Straße", "STRASSE", "Ä", "ä"]
    with contextlib.closing(sqlite3.connect(db)) as connection:
        for i, title in enumerate(legacy):
            connection.execute(
                "INSERT INTO collections (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (f"col_{i:032x}", title, i, i),
            )
        connection.commit()
    monkeypatch.setattr(migrations_module, "MIGRATIONS", shipped)

    async def work(store: Store) -> None:
        listed = {c.title: c.id for c in await store.collections.list()}
        assert set(listed) == set(legacy)
        for title, id_ in listed.items():
            assert (await store.collections.get(id_)).title == title
            assert (await store.collections.get(title)).id == id_
        for taken in ["strasse", "STRASSE", "ä", "A\u0308", "inbox"]:
            with pytest.raises(ConflictError):
                await store.collections.create(taken)
        assert (await store.collections.create("work")).title == "work"  # "work\x00" differs
        renamed = await store.collections.rename(listed["STRASSE"], "Strasse 2")
        assert renamed.title == "Strasse 2"

    run(db, work)


@pytest.mark.slow  # > 3 s with the cores busy
def test_the_host_and_the_cli_refuse_a_control_character_and_compare_titles_exactly(
    tmp_path: Path,
) -> None:
    """The reviewer's sequence, through the real host, then the real `laika`."""
    from native_client import Client, HostProcess
    from support import run_laika

    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        codes = {}
        for title in ["\x00", "\x00", "a\x00b", "a\x00c", "Work", "work\x00", "WORK", "Straße"]:
            reply = client.call("collections.create", {"title": title})
            codes[title] = "ok" if reply["ok"] else reply["error"]["code"]
            if title.count("\x00"):
                assert "U+0000" in reply["error"]["message"], reply
        assert codes == {
            "\x00": "bad_request",
            "a\x00b": "bad_request",
            "a\x00c": "bad_request",
            "Work": "ok",
            "work\x00": "bad_request",
            "WORK": "conflict",
            "Straße": "ok",
        }
        assert client.call("collections.create", {"title": "STRASSE"})["error"]["code"] == (
            "conflict"
        )
        listed = client.call("collections.list")["result"]["collections"]
        assert sorted(c["title"] for c in listed) == ["Straße", "Work"]
    finally:
        host.close()
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    done = run_laika("collections", "create", "Tides\x1b[2J", env=env)
    assert done.returncode == 1
    assert "U+001B" in done.stderr
    assert "control character" in done.stderr
    done = run_laika("sources", "note", "-", "--title", "Low\x07tide", stdin=b"text", env=env)
    assert done.returncode == 1
    assert "U+0007" in done.stderr
