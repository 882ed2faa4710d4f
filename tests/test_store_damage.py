"""A broken laika.db, command by command (issue 14, item 3).

Whatever happened to the file (random byte ranges overwritten, cut short, replaced by text),
every command either works or prints ONE message naming the file, what is wrong and what to
do, and exits 1; the host answers `unavailable`, never `internal`; nothing is a traceback.
The first property found a gap: a text that is not UTF-8 in a row (Python's "Could not
decode to UTF-8 column ...") escaped as a traceback from `search` and `ask`.
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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.cli import main
from laika_host.store import Store, open_store

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


@pytest.fixture(scope="module")
def healthy_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkpointed store whose notes span many pages."""
    db = tmp_path_factory.mktemp("healthy") / "laika.db"

    async def fill() -> None:
        async with open_store(db) as store:
            await _fill(store)

    asyncio.run(fill())
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


async def _fill(store: Store) -> None:
    for i in range(24):
        text = f"Tides rise twice a day because the moon pulls the sea {i}. " * 60
        await store.sources.add_note("Coast", f"# Note {i}\n\n{text}\n\ntide{i} " + "x" * 300)


@dataclass(frozen=True)
class Damage:
    """What happens to the file, small enough to print when a case fails."""

    kind: str  # "overwrite", "truncate" or "text"
    where: float  # position in the file, 0..1
    length: int = 0
    fill: str = "random"  # "random", "zeros" or "ones"
    seed: int = 0
    text: str = ""

    def apply(self, healthy: bytes) -> bytes:
        start = int(self.where * (len(healthy) - 1))
        if self.kind == "truncate":
            return healthy[:start]
        if self.kind == "text":
            return self.text.encode("utf-8")
        count = min(self.length, len(healthy) - start)
        patch = {
            "random": random.Random(self.seed).randbytes(count),
            "zeros": b"\0" * count,
            "ones": b"\xff" * count,
        }[self.fill]
        return healthy[:start] + patch + healthy[start + count :]


# Hypothesis favours small integers, which would keep hitting the header: positions are
# drawn as fractions of the file spread evenly over it.
_WHERE = st.integers(0, (1 << 30) - 1).map(lambda n: n / (1 << 30))
DAMAGE = st.one_of(
    st.builds(
        Damage,
        kind=st.just("overwrite"),
        where=_WHERE,
        length=st.sampled_from([1, 4, 16, 100, 1000, 8192, 50_000]),
        fill=st.sampled_from(["random", "zeros", "ones"]),
        seed=st.integers(0, 2**32),
    ),
    st.builds(Damage, kind=st.just("truncate"), where=_WHERE),
    st.builds(Damage, kind=st.just("text"), where=st.just(0.0), text=st.text(min_size=1)),
)


def _place(home: Path, contents: bytes) -> Path:
    for old in home.glob("laika.db*"):
        old.unlink()
    db = home / "laika.db"
    db.write_bytes(contents)
    return db


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
def test_every_command_works_or_gives_one_clear_message(
    tmp_path: Path, healthy_db: Path, damage: Damage
) -> None:
    healthy = healthy_db.read_bytes()
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
def test_the_host_answers_unavailable_never_internal(
    tmp_path: Path, healthy_db: Path, damage: Damage
) -> None:
    healthy = healthy_db.read_bytes()
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
    tmp_path: Path, healthy_db: Path, state: str
) -> None:
    healthy = healthy_db.read_bytes()
    home = tmp_path / "home"
    home.mkdir()
    contents = healthy[: len(healthy) // 3] if state == "truncated" else b"my notes\n" * 50
    db = _place(home, contents)
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
