"""The registry's history: a git repository in the config directory, one commit per change.

WHY dulwich (pure Python git) rather than the git binary: it needs no git installed and no
user identity configured (we sign every commit as Laika), reads no hooks, signing or other
user git settings, and costs no subprocess per change (a host and CLIs may make hundreds).
The result is an ordinary repository: `git -C <data dir>/config log` reads it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar

from dulwich.errors import NotGitRepository
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo

from ..errors import LaikaError, MissingError, UnreadableError
from .files import LOCK_FILE, REGISTRY_FILE, full_disk

IDENTITY = b"Laika <laika@localhost>"
MAX_LOG = 100_000
INTERRUPTED = (
    "laika: recorded a change whose commit was interrupted\n\n"
    "The process making it stopped after writing the settings and before committing them."
)

_log = logging.getLogger("laika.config")


class CommitNotFoundError(MissingError):
    """The id names no commit of the registry's history."""


class HistoryError(UnreadableError):
    """The history's git repository is damaged; the message names it and the fix."""


_P = ParamSpec("_P")
_T = TypeVar("_T")


def _usable(function: Callable[_P, _T]) -> Callable[_P, _T]:
    """Turn whatever a damaged repository raises (a hand-removed `.git/objects`, a missing
    object, a `.git` that is a file) into HistoryError naming the way out."""

    @functools.wraps(function)
    def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return function(*args, **kwargs)
        except LaikaError:
            raise
        except Exception as error:  # dulwich has no common base for a damaged repository
            directory = args[0] if args else kwargs.get("directory")
            if full := full_disk(error, Path(f"{directory}/.git")):
                raise full from None
            raise HistoryError(
                f"the settings history {directory}/.git cannot be used "
                f"({type(error).__name__}: {str(error)[:200]}): move it aside "
                f"(`mv {directory}/.git {directory}/.git.damaged`) and Laika starts a new "
                "one at the next change; the settings themselves are unchanged"
            ) from None

    return guarded


@dataclass(frozen=True)
class Entry:
    commit: str
    message: str
    time: int

    def to_json(self) -> dict[str, object]:
        return {"commit": self.commit, "message": self.message, "time": self.time}


def _repo(directory: Path) -> Repo:
    try:
        return Repo(str(directory))
    except NotGitRepository:
        repo = Repo.init(str(directory), default_branch=b"main")
        exclude = directory / ".git" / "info" / "exclude"
        exclude.parent.mkdir(parents=True, exist_ok=True)
        exclude.write_text(f"{LOCK_FILE}\n.{REGISTRY_FILE}.*\n", encoding="utf-8")
        return repo


@_usable
def ready(directory: Path) -> None:
    """Open (or create) the repository, so a damaged one stops a change before it is
    written rather than after (a registry changed without its commit). The caller holds the
    registry's lock, so what a writer killed mid-change left is finished here: git's lock
    files (only Laika writes this repository, and only under that lock, so they are stale)
    and a registry file written without its commit, recorded now as its own commit."""
    _remove_stale_locks(directory / ".git")
    with _repo(directory) as repo:
        try:
            head = repo.head()
        except KeyError:  # no commit yet
            return
        committed = _blob(repo, repo[head])  # raises when the objects are gone
    try:
        current = (directory / REGISTRY_FILE).read_bytes()
    except FileNotFoundError:
        return
    if current != committed:
        _log.warning("settings: recording a change whose commit was interrupted")
        commit(directory, INTERRUPTED)


def _remove_stale_locks(git: Path) -> None:
    """dulwich writes every file of the repository (index, refs, each object) through a
    `<name>.lock` it renames into place; one still there means the writer died before the
    rename, and every later commit that needs the same file would fail on it."""
    if not git.is_dir():
        return
    for lock in git.rglob("*.lock"):
        if lock.is_file():
            _log.warning("settings: removing %s, left by a change that was stopped", lock.name)
            lock.unlink(missing_ok=True)


@_usable
def commit(directory: Path, message: str) -> str:
    """Record the current registry file as one commit; returns its id (hex)."""
    with _repo(directory) as repo:
        worktree = repo.get_worktree()
        worktree.stage([REGISTRY_FILE])
        made = worktree.commit(
            message=message.encode(),
            committer=IDENTITY,
            author=IDENTITY,
            commit_timezone=0,
            author_timezone=0,
            no_verify=True,
            sign=False,
        )
        return made.decode()


@_usable
def log(directory: Path, limit: int = MAX_LOG) -> list[Entry]:
    """The commits, newest first (history is linear: each commit has one parent)."""
    entries: list[Entry] = []
    try:
        repo = Repo(str(directory))
    except NotGitRepository:
        return entries
    with repo:
        try:
            current: bytes | None = repo.head()
        except KeyError:
            return entries
        while current is not None and len(entries) < limit:
            made = repo[current]
            assert isinstance(made, Commit)
            entries.append(Entry(current.decode(), made.message.decode().strip(), made.commit_time))
            current = made.parents[0] if made.parents else None
    return entries


@_usable
def file_at(directory: Path, commit_id: str) -> tuple[bytes | None, bytes]:
    """The registry file before and after commit `commit_id` (a full id; None before the
    first commit)."""
    with _repo(directory) as repo:
        made = repo[commit_id.encode()]
        assert isinstance(made, Commit)
        parent = made.parents[0] if made.parents else None
        before = _blob(repo, repo[parent]) if parent else None
        return before, _blob(repo, made)


def find(directory: Path, commit_id: str) -> Entry:
    """The commit a full id or a unique prefix (4+ hex digits) names."""
    wanted = commit_id.strip().lower()
    matches: list[Entry] = []
    if 4 <= len(wanted) <= 40 and all(c in "0123456789abcdef" for c in wanted):
        matches = [entry for entry in log(directory) if entry.commit.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    problem = "is ambiguous (give more digits)" if matches else "is not"
    raise CommitNotFoundError(
        f"commit {commit_id[:64]!r} {problem} in the settings history; "
        "`laika config history` lists them"
    )


def _blob(repo: Repo, made: object) -> bytes:
    assert isinstance(made, Commit)
    tree = repo[made.tree]
    assert isinstance(tree, Tree)
    _, blob_id = tree[REGISTRY_FILE.encode()]
    blob = repo[blob_id]
    assert isinstance(blob, Blob)
    return blob.data
