"""A broken laika.db, command by command (issue 14, item 3).

Whatever happened to the files (random byte ranges overwritten, cut short, replaced by text;
a header field changed; the -wal damaged or cut; a backup restored beside the old -wal),
every command either works or prints ONE message naming the file, what is wrong and what to
do, and exits 1; the host answers `unavailable`, never `internal`; nothing is a traceback.
The first property found a gap: a text that is not UTF-8 in a row (Python's "Could not
decode to UTF-8 column ...") escaped as a traceback from `search` and `ask`. Random seeds
found more (derandomized CI had not): see the explicit examples of the first property.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from laika_host.cli import main
from laika_host.store import StoreCorruptError, open_store
from laika_host.store.health import backup_database

from native_client import Client, HostProcess
from support import run_laika

COMMANDS = [
    ["sources", "list"],
    ["collections", "list"],
    ["search", "tide3"],
    ["ask", "Why do tides rise?", "--collection", "Coast"],
    ["jobs", "list"],
    ["collections", "create", "Fresh"],  # a write
]
HOST_REQUESTS = [
    ("sources.list", {}),
    ("collections.list", {}),
    ("search.query", {"query": "tide3"}),
    ("chat.ask", {"question": "Why do tides rise?", "collection": "Coast"}),
]


@dataclass(frozen=True)
class Healthy:
    """A store's files at three moments: with 12 notes, `backup` (by `laika db backup`) and
    `copy` (its bytes copied); `db`, checkpointed later (24 notes, 3 deleted: pages on the
    freelist); and `wal`, the -wal of 6 more notes not yet checkpointed into `db`."""

    backup: bytes
    copy: bytes
    db: bytes
    wal: bytes


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Healthy:
    return make_healthy(tmp_path_factory.mktemp("healthy"))


def make_healthy(directory: Path) -> Healthy:
    db = directory / "laika.db"
    asyncio.run(_fill(db, 0, 12))
    _checkpoint(db)
    copy = db.read_bytes()
    backup = backup_database(db, db.with_name("backup.db")).target.read_bytes()
    asyncio.run(_fill(db, 12, 24, delete=(1, 5, 9)))
    _checkpoint(db)
    checkpointed = db.read_bytes()
    with contextlib.closing(sqlite3.connect(db)) as holder:  # keeps the -wal on disk
        holder.execute("SELECT count(*) FROM sources").fetchall()
        asyncio.run(_fill(db, 24, 30))
        wal = db.with_name("laika.db-wal").read_bytes()
        assert db.read_bytes() == checkpointed  # the 6 notes are only in the -wal
    return Healthy(backup=backup, copy=copy, db=checkpointed, wal=wal)


async def _fill(db: Path, first: int, last: int, delete: tuple[int, ...] = ()) -> None:
    """Notes `first` .. `last - 1`, long enough to span pages; then delete some of them."""
    async with open_store(db) as store:
        ids = []
        for i in range(first, last):
            text = f"Tides rise twice a day because the moon pulls the sea {i}. " * 60
            note = await store.sources.add_note(
                "Coast", f"# Note {i}\n\n{text}\n\ntide{i} " + "x" * 300
            )
            ids.append(note.source.id)
        for index in delete:
            await store.sources.delete(ids[index])


def _checkpoint(db: Path) -> None:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


# The database header's fields and page 1's b-tree header (offset, length): damage there is
# rare at random positions but changes how SQLite reads the whole file.
HEADER_FIELDS = [
    (16, 2), (18, 1), (19, 1), (20, 1), (21, 3), (24, 4), (28, 4), (32, 4), (36, 4), (40, 4),
    (44, 4), (48, 4), (52, 4), (56, 4), (60, 4), (64, 4), (68, 4), (72, 20), (92, 4), (96, 4),
    (100, 1), (101, 2), (103, 2), (105, 2), (107, 1), (108, 4),
]  # fmt: skip
_USER_VERSION, _WRITE_VERSION = HEADER_FIELDS.index((60, 4)), HEADER_FIELDS.index((18, 1))


@dataclass(frozen=True)
class Damage:
    """What happens to the files, small enough to print when a case fails."""

    kind: str  # "overwrite", "truncate", "text", "header", "wal", "stale wal[, copied]"
    where: float  # position in the file (the -wal for "wal"), 0..1
    length: int = 0
    fill: str = "random"  # "random", "zeros", "ones" or "small" (an integer 0..16)
    seed: int = 0
    text: str = ""
    field: int = 0  # index into HEADER_FIELDS

    def apply(self, healthy: Healthy) -> dict[str, bytes]:
        """The files to put in the data directory, by name."""
        if self.kind == "text":
            return {"laika.db": self.text.encode("utf-8")}
        if self.kind == "header":
            offset, length = HEADER_FIELDS[self.field]
            return {"laika.db": self._patch(healthy.db, offset, length)}
        if self.kind == "stale wal":  # a backup restored over laika.db, its -wal left there
            return {"laika.db": healthy.backup, "laika.db-wal": healthy.wal}
        if self.kind == "stale wal, copied":  # ... a copy of the live file's bytes, the same
            return {"laika.db": healthy.copy, "laika.db-wal": healthy.wal}
        target = healthy.wal if self.kind == "wal" else healthy.db
        start = int(self.where * (len(target) - 1))
        damaged = target[:start] if self.length == 0 else self._patch(target, start, self.length)
        if self.kind == "wal":
            return {"laika.db": healthy.db, "laika.db-wal": damaged}
        return {"laika.db": damaged}

    def _patch(self, data: bytes, start: int, length: int) -> bytes:
        count = min(length, len(data) - start)
        patch = {
            "random": lambda: random.Random(self.seed).randbytes(count),
            "zeros": lambda: b"\0" * count,
            "ones": lambda: b"\xff" * count,
            "small": lambda: (self.seed % 17).to_bytes(count, "big"),
        }[self.fill]()
        return data[:start] + patch + data[start + count :]


# Hypothesis favours small integers, which would keep hitting the header: positions are
# drawn as fractions of the file spread evenly over it.
_WHERE = st.integers(0, (1 << 30) - 1).map(lambda n: n / (1 << 30))
_FILL = st.sampled_from(["random", "zeros", "ones"])
_LENGTH = st.sampled_from([1, 4, 16, 100, 1000, 8192, 50_000])
DAMAGE = st.one_of(
    st.builds(
        Damage,
        kind=st.just("overwrite"),
        where=_WHERE,
        length=_LENGTH,
        fill=_FILL,
        seed=st.integers(0, 2**32),
    ),
    st.builds(Damage, kind=st.just("truncate"), where=_WHERE),
    st.builds(Damage, kind=st.just("text"), where=st.just(0.0), text=st.text(min_size=1)),
    st.builds(
        Damage,
        kind=st.just("header"),
        where=st.just(0.0),
        fill=st.sampled_from(["random", "zeros", "ones", "small"]),
        seed=st.integers(0, 2**32),
        field=st.integers(0, len(HEADER_FIELDS) - 1),
    ),
    st.builds(  # length 0: the -wal cut short there
        Damage,
        kind=st.just("wal"),
        where=_WHERE,
        length=st.one_of(st.just(0), _LENGTH),
        fill=_FILL,
        seed=st.integers(0, 2**32),
    ),
    st.builds(Damage, kind=st.sampled_from(["stale wal", "stale wal, copied"]), where=st.just(0.0)),
)


def _place(home: Path, files: dict[str, bytes]) -> Path:
    for old in home.glob("laika.db*"):
        old.unlink()
    for name, contents in files.items():
        (home / name).write_bytes(contents)
    return home / "laika.db"


def _assert_one_clear_message(output: str, db: Path) -> None:
    """One line naming the file and the fix; or, when damage lost the asked collection (or
    a file cut to 0 bytes is a new, empty store), the usual message saying so."""
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert lines[0].startswith("laika: "), output
    if "no collection 'Coast'" in lines[0]:
        return
    assert str(db) in lines[0], output
    assert any(fix in lines[0] for fix in ("restore", "mv ", "Close the program")), output


@pytest.mark.slow  # > 3 s with the cores busy
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(damage=DAMAGE)
# What random damage found on untouched code (issue 14, item 3's gaps), replayed every run:
# user_version -172923614: migrated as a new file, a "table meta already exists" traceback
@example(damage=Damage(kind="header", where=0.0, fill="random", seed=1, field=_USER_VERSION))
# user_version 1767026031: called "written by a newer Laika", no fix for damage given
@example(damage=Damage("header", 0.0, fill="random", seed=1572385928, field=_USER_VERSION))
# write version 255: SQLite opens it read-only, the first write read as a read-only disk
@example(damage=Damage(kind="header", where=0.0, fill="ones", field=_WRITE_VERSION))
# JSON zeroed in a row: "a stored value is damaged" without the file's path
@example(damage=Damage(kind="overwrite", where=0.8198498639286105, length=8192, fill="zeros"))
# FTS5's format number zeroed: an "invalid fts5 file format" traceback from search
@example(damage=Damage(kind="overwrite", where=0.4728093925169209, length=1000, fill="zeros"))
# a zeroed index page: the FOREIGN KEY check of `ask`'s write misses the collection, traceback
@example(damage=Damage(kind="overwrite", where=0.09167990311503971, length=8192, fill="zeros"))
# the other state's -wal replayed into a restored backup (and checkpointed into it)
@example(damage=Damage(kind="stale wal", where=0.0))
@example(damage=Damage(kind="stale wal, copied", where=0.0))
def test_every_command_works_or_gives_one_clear_message(
    tmp_path: Path, healthy: Healthy, damage: Damage
) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    db = _place(home, damage.apply(healthy))
    for command in COMMANDS:
        result = CliRunner().invoke(main, command, env={"LAIKA_HOME": str(home)})
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"{command}: a traceback") from result.exception
        assert result.exit_code in (0, 1), (command, result.output)
        if result.exit_code == 1:
            _assert_one_clear_message(result.stderr, db)


@pytest.mark.slow  # > 3 s with the cores busy
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(damage=DAMAGE)
@example(damage=Damage(kind="header", where=0.0, fill="random", seed=1, field=_USER_VERSION))
@example(damage=Damage(kind="stale wal", where=0.0))
def test_the_host_answers_unavailable_never_internal(
    tmp_path: Path, healthy: Healthy, damage: Damage
) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    db = _place(home, damage.apply(healthy))
    host = HostProcess(home)
    try:
        client = Client(host)
        for request_type, payload in HOST_REQUESTS:
            reply = client.call(request_type, payload)
            if not reply["ok"]:
                assert reply["error"]["code"] in ("unavailable", "not_found"), reply
                assert str(db) in reply["error"]["message"] or "Coast" in reply["error"]["message"]
        assert client.call("host.ping")["ok"]
    finally:
        host.kill()


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("state", ["truncated", "a text file"])
def test_the_acceptance_cases_as_a_user_runs_them(
    tmp_path: Path, healthy: Healthy, state: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    contents = healthy.db[: len(healthy.db) // 3] if state == "truncated" else b"my notes\n" * 50
    db = _place(home, {"laika.db": contents})
    env = {**os.environ, "LAIKA_HOME": str(home)}
    for command in COMMANDS[:4]:
        done = run_laika(*command, env=env)
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        assert done.stdout == ""
        _assert_one_clear_message(done.stderr, db)
        assert "damaged" in done.stderr or "not a Laika database" in done.stderr
    assert db.read_bytes() == contents  # nothing wrote to it
    host = HostProcess(home)
    try:
        client = Client(host)
        for request_type, payload in HOST_REQUESTS:
            reply = client.call(request_type, payload)
            assert reply["error"]["code"] == "unavailable", reply
            assert str(db) in reply["error"]["message"]
    finally:
        host.kill()


def test_a_backup_restored_beside_the_old_wal_is_refused_until_the_wal_is_moved(
    tmp_path: Path, healthy: Healthy
) -> None:
    """The README's restore with one step missed (the -wal not removed): SQLite would replay
    the newer state's pages into the restored copy, and a write would checkpoint the mix into
    it. Refused, both files unchanged; with the -wal moved aside, the backup's notes are back."""
    home = tmp_path / "home"
    home.mkdir()
    db = _place(home, {"laika.db": healthy.backup, "laika.db-wal": healthy.wal})
    wal = home / "laika.db-wal"
    for command in COMMANDS:
        result = CliRunner().invoke(main, command, env={"LAIKA_HOME": str(home)})
        assert result.exit_code == 1, (command, result.output)
        assert result.stderr.startswith(f"laika: {wal} does not belong to {db}: "), result.stderr
        assert f"mv '{wal}' '{wal}.old'" in result.stderr
    with pytest.raises(StoreCorruptError, match="does not belong to"):
        backup_database(db, tmp_path / "copy.db")  # a copy would be the mix
    assert db.read_bytes() == healthy.backup
    assert wal.read_bytes() == healthy.wal
    assert not (tmp_path / "copy.db").exists()
    wal.rename(home / "laika.db-wal.old")
    result = CliRunner().invoke(main, ["sources", "list", "--json"], env={"LAIKA_HOME": str(home)})
    assert result.exit_code == 0, result.output
    assert result.output.count('"kind": "note"') == 12
