"""Artifacts (what transforms made): list, show, export to a file or a string, delete,
cancel.

Writing a file is where a model's text meets the user's disk, so the rules are strict and
decided here once:
- a relative output path resolves against the working directory and must stay inside it (after
  following symlinks in its directories): `../x` and a symlinked folder leading out are
  refused; an absolute path is the user's explicit choice and is allowed;
- the file itself is never written through a symlink (refused even with `force`), and an
  existing file is replaced only with `force` (atomically, via a temporary file);
- a directory as the output gets a safe file name made from the artifact's title;
- files are created 0600 (the artifact quotes the user's captured pages).
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ClashError, MissingError, RefusedError
from ..store import Store
from ..transform import cancel_artifact as cancel
from ..transform import delete_artifact as delete
from ..transform import get_artifact, list_artifacts
from ..transform.export import FORMATS, ExportInput, export, table_csv, tables

MAX_NAME_CHARS = 80
DELETE_WAIT_SECONDS = 10.0
"""How long a delete waits for a running artifact's run to stop after asking it to."""
_POLL_SECONDS = 0.1
MIME_TYPES = {
    "md": "text/markdown",
    "txt": "text/plain",
    "json": "application/json",
    "csv": "text/csv",
    "html": "text/html",
}
_UNSAFE_NAME = re.compile(r"[^\w.-]+")
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{n}" for n in range(10)} | {f"lpt{n}" for n in range(10)}
)


class UnsafeOutputError(RefusedError):
    """An output path that would write outside where the user asked (traversal, symlink)."""


class OutputExistsError(ClashError):
    """The output file exists and `force` was not given."""


async def list_collection_artifacts(
    store: Store, collection: str | None = None
) -> list[dict[str, Any]]:
    """One collection's artifacts, or (None) every collection's, newest first."""
    if collection is not None:
        return await list_artifacts(store, collection)
    found = []
    for each in await store.collections.list():
        found += await list_artifacts(store, each.id)
    return sorted(found, key=lambda a: str(a["created_at"]), reverse=True)


async def list_summaries(store: Store, collection: str | None = None) -> list[dict[str, Any]]:
    """`list_collection_artifacts` as a UI lists them: no Markdown or items, just counts."""
    titles = {c.id: c.title for c in await store.collections.list()}
    return [summary(view, titles) for view in await list_collection_artifacts(store, collection)]


def summary(view: dict[str, Any], titles: dict[str, str]) -> dict[str, Any]:
    items = [item for item in view.get("items") or [] if isinstance(item, dict)]
    return {
        "id": view["id"],
        "title": view["title"],
        "type": view["type"],
        "status": view["status"],
        "collection_id": view["collection_id"],
        "collection": titles.get(str(view["collection_id"])),
        "created_at": view["created_at"],
        "updated_at": view["updated_at"],
        "stale": bool(view.get("stale")),
        "items": len(items),
        "verified": sum(bool(item.get("verified")) for item in items),
        "provider": view.get("provider"),
    }


async def show_artifact(store: Store, artifact_id: str) -> dict[str, Any]:
    return await get_artifact(store, artifact_id)


async def delete_artifact(store: Store, artifact_id: str) -> dict[str, Any]:
    """Delete it; one still being made is asked to stop first and given a moment to end
    (its run would otherwise fail writing into a deleted row)."""
    artifact = await store.artifacts.get(artifact_id)
    if artifact.status in ("pending", "running"):
        await cancel(store, artifact_id)
        await _settled(store, artifact_id)
    return await delete(store, artifact_id)


async def _settled(store: Store, artifact_id: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DELETE_WAIT_SECONDS
    while loop.time() < deadline:
        if (await store.artifacts.get(artifact_id)).status not in ("pending", "running"):
            return
        await asyncio.sleep(_POLL_SECONDS)
    await store.artifact_runs.recover()  # an owner that died meanwhile


async def cancel_artifact(store: Store, artifact_id: str) -> bool:
    return await cancel(store, artifact_id)


async def export_input(store: Store, artifact_id: str) -> ExportInput:
    """The artifact with its collection's title and tags and its sources' titles and URLs."""
    artifact = await get_artifact(store, artifact_id)
    collection = await store.collections.get(str(artifact["collection_id"]))
    sources = []
    for entry in artifact.get("sources") or []:
        source_id = str(entry.get("source_id"))
        try:
            found = await store.sources.get_summary(source_id)
        except MissingError:
            found = None
        sources.append(
            {
                "source_id": source_id,
                "title": found.title if found else None,
                "url": found.url if found else None,
            }
        )
    return ExportInput(artifact, collection.title, list(collection.tags), sources)


async def export_artifact(
    store: Store,
    artifact_id: str,
    fmt: str,
    output: Path,
    *,
    table: int | None = None,
    force: bool = False,
    cwd: Path | None = None,
) -> list[Path]:
    """Write the artifact as `fmt` to `output` (a file, or a directory to name one in); CSV of
    several tables without `table` writes one file per table. Returns the paths written."""
    if fmt not in FORMATS:
        raise RefusedError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    source = await export_input(store, artifact_id)
    target = checked_output(output, cwd or Path.cwd())
    if target.is_dir():  # checked again: a folder may be a link leading out
        name = f"{safe_name(str(source.artifact.get('title')), artifact_id)}.{fmt}"
        target = checked_output(output / name, cwd or Path.cwd())
    files = _contents(source, fmt, target, table)
    for path, _ in files:  # refuse before writing anything
        _check_target(path, force)
        _refuse_store_file(path, store.path)
    for path, text in files:
        write_private(path, text, force=force)
    return [path for path, _ in files]


@dataclass(frozen=True)
class Exported:
    """An export as a UI downloads or copies it: nothing is written by the host."""

    filename: str
    mime: str
    content: str

    def to_json(self) -> dict[str, str]:
        return {"filename": self.filename, "mime": self.mime, "content": self.content}


async def export_content(
    store: Store, artifact_id: str, fmt: str, *, table: int | None = None
) -> Exported:
    """The artifact as `fmt` in a string, with a safe file name; CSV is table `table` (the
    first when None; the name then says which table when there are several)."""
    if fmt not in FORMATS:
        raise RefusedError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    source = await export_input(store, artifact_id)
    stem = safe_name(str(source.artifact.get("title")), artifact_id)
    content = export(source, fmt, table=table or 1)
    if fmt == "csv":
        found = tables(source)
        if len(found) > 1:
            stem = f"{stem}-{safe_name(found[(table or 1) - 1].name, str(table or 1))}"
    return Exported(f"{stem}.{fmt}", MIME_TYPES[fmt], content)


def _contents(
    source: ExportInput, fmt: str, target: Path, table: int | None
) -> list[tuple[Path, str]]:
    if fmt != "csv" or table is not None:
        return [(target, export(source, fmt, table=table or 1))]
    found = tables(source)
    if len(found) == 1:
        return [(target, table_csv(found[0]))]
    return [
        (target.with_name(f"{target.stem}-{t.name}{target.suffix}"), table_csv(t)) for t in found
    ]


def safe_name(title: str, fallback: str) -> str:
    """A file name stem from a title: letters, digits, `.`, `_`, `-` only, no leading dot,
    not a Windows device name, at most `MAX_NAME_CHARS`."""
    text = unicodedata.normalize("NFKC", title)
    stem = _UNSAFE_NAME.sub("-", text).strip(".-_")[:MAX_NAME_CHARS].strip(".-_")
    if not stem or stem.split(".")[0].lower() in _WINDOWS_RESERVED:
        stem = f"artifact-{_UNSAFE_NAME.sub('-', fallback)}"
    return stem


def checked_output(output: Path, cwd: Path) -> Path:
    """`output` as an absolute path, refused when a relative one leaves `cwd`."""
    if output.is_absolute():
        return Path(os.path.normpath(output))
    base = cwd.resolve()
    lexical = Path(os.path.normpath(base / output))
    real = lexical.parent.resolve() / lexical.name
    for candidate in (lexical, real):
        if candidate != base and base not in candidate.parents:
            raise UnsafeOutputError(
                f"the output {output} leads outside the working directory {base}: give a path "
                "inside it, or an absolute path if you mean another place"
            )
    return lexical


def _check_target(path: Path, force: bool) -> None:
    if path.is_symlink():
        raise UnsafeOutputError(
            f"{path} is a symbolic link: Laika does not write through links; choose another "
            "file name"
        )
    if not path.parent.is_dir():
        raise RefusedError(f"the folder {path.parent} does not exist: create it first")
    if path.exists() and not force:
        raise exists(path)
    if path.exists() and not path.is_file():
        raise UnsafeOutputError(f"{path} is not a regular file: choose another file name")


def _refuse_store_file(path: Path, database: Path) -> None:
    """The database or its -wal/-shm, even with --force: replacing one loses every source
    (and a write there beside a live connection drops SQLite's locks)."""
    for own in (database, *(database.with_name(database.name + s) for s in ("-wal", "-shm"))):
        if os.path.realpath(path) == os.path.realpath(own):
            raise UnsafeOutputError(
                f"{path} is Laika's database file: writing the export over it would lose "
                "every saved source; choose another file name"
            )


def exists(path: Path) -> OutputExistsError:
    """The file is there: another name, or (the `laika` command's flag) replace it."""
    error = OutputExistsError(f"{path} exists: choose another file name")
    return error.with_cli_hint("or pass --force to replace it")


def write_private(path: Path, text: str, *, force: bool) -> None:
    """Create `path` 0600 with `text`: exclusively (no overwrite, no symlink followed), or
    with `force` through a temporary file renamed over it (a link there is replaced, its
    target untouched)."""
    data = text.encode("utf-8")
    if not force:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            descriptor = os.open(path, flags, 0o600)
        except FileExistsError:
            raise exists(path) from None
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        return
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".laika-export-")
    try:
        with os.fdopen(descriptor, "wb") as handle:  # mkstemp creates it 0600
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
