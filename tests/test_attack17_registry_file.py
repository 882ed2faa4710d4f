"""A hand-made registry.json, whatever it holds or is: every reader degrades as documented.
`registry.load` returns the settings or raises RegistryFileError naming the file and the fix;
capture falls back to the shipped defaults and redaction to its built-in rules; `laika config`
exits 2 with that message. A directory there once gave a traceback, and a link to /dev/zero
made every command read until it was killed. A damaged git history (`.git/objects` removed)
gave a traceback after the file had been changed without its commit."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hostile_json import json_texts, spliced, to_bytes
from laika_host.config import history, registry
from laika_host.config.history import HistoryError
from laika_host.config.registry import MAX_REGISTRY_BYTES, RegistryFileError
from laika_host.defaults import CAPTURE_MAX_CHARS
from laika_host.redact import REDACTED, redact_value
from laika_host.service.capture_settings import capture_limit

from support import run_laika

Maker = Callable[[Path], None]


def _write(data: bytes) -> Maker:
    return lambda path: path.write_bytes(data)


def _directory(path: Path) -> None:
    path.mkdir()


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _endless(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _huge(path: Path) -> None:
    with open(path, "wb") as stream:
        stream.truncate(MAX_REGISTRY_BYTES * 3)  # sparse: 15 MB of zero bytes


SPECIAL: list[Maker] = [_directory, _fifo, _endless, _huge]
contents = st.one_of(
    json_texts.map(to_bytes).map(_write),
    spliced(json_texts).map(_write),
    st.sampled_from(SPECIAL),
)


@contextlib.contextmanager
def _home(home: Path) -> Iterator[None]:
    old = os.environ.get("LAIKA_HOME")
    os.environ["LAIKA_HOME"] = str(home)
    try:
        yield
    finally:
        if old is None:
            del os.environ["LAIKA_HOME"]
        else:
            os.environ["LAIKA_HOME"] = old


@settings(max_examples=120, deadline=None)
@given(contents)
def test_every_reader_degrades_on_any_registry_file(make: Maker) -> None:
    with tempfile.TemporaryDirectory() as temporary, _home(Path(temporary)):
        directory = Path(temporary) / "config"
        directory.mkdir()
        make(directory / "registry.json")
        problem = ""
        try:
            limit = registry.load(directory).capture.max_chars
        except RegistryFileError as refused:
            problem, limit = str(refused), CAPTURE_MAX_CHARS
        if problem:
            assert str(directory / "registry.json") in problem
            assert len(problem) < 2000
        assert capture_limit() == limit
        assert redact_value({"password": "hunter2-horse"}) == {"password": REDACTED}


@pytest.mark.parametrize("make", SPECIAL, ids=lambda make: make.__name__)
def test_laika_config_names_a_registry_that_is_no_file(make: Maker, tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    make(tmp_path / "config" / "registry.json")
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    for args in (("config", "get"), ("config", "set", "ui.theme", "dark"), ("rules", "list")):
        done = run_laika(*args, env=env)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"laika: settings file {tmp_path}")
        assert "restore a good version" in done.stderr


def _no_objects(git: Path) -> None:
    shutil.rmtree(git / "objects")


def _git_is_a_file(git: Path) -> None:
    shutil.rmtree(git)
    git.write_text("junk\n")


def _objects_garbled(git: Path) -> None:
    for found in (git / "objects").rglob("*"):
        if found.is_file():
            found.chmod(0o600)
            found.write_bytes(b"garbage\n")


@pytest.mark.parametrize(
    "damage",
    [_no_objects, _git_is_a_file, _objects_garbled],
    ids=lambda damage: damage.__name__,
)
def test_a_damaged_history_stops_a_change_before_it_is_written(
    damage: Callable[[Path], None], tmp_path: Path
) -> None:
    directory = tmp_path / "config"
    registry.mutate({"ui.theme": "dark"}, who="cli", tool="config.set", directory=directory)
    damage(directory / ".git")
    before = (directory / "registry.json").read_bytes()
    with pytest.raises(HistoryError) as refused:
        registry.mutate({"ui.theme": "light"}, who="cli", tool="config.set", directory=directory)
    assert f"mv {directory}/.git" in str(refused.value)
    assert (directory / "registry.json").read_bytes() == before  # no change without its commit
    (directory / ".git").rename(directory / ".git.damaged")  # the way out the message names
    made = registry.mutate({"ui.theme": "light"}, who="cli", tool="config.set", directory=directory)
    assert [entry.commit for entry in history.log(directory)] == [made.commit]
    assert registry.load(directory).ui.theme == "light"
