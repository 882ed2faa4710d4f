"""One executor per app-level tool: validated arguments and a store in, a JSON-able result out.

Each calls the service layer, so a tool does exactly what the CLI and the native messages do.
None of them writes a file except `artifact.share` with target `file`, a relative `filename`
and an export folder given by the caller: the path is checked (`service.artifacts`: no
traversal, no symlink, no overwrite) and a model can never name an absolute path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..defaults import DEFAULT_COLLECTION
from ..errors import RefusedError
from ..protocol.tools import (
    ArtifactOpenArguments,
    ArtifactSaveArguments,
    ArtifactShareArguments,
    NoArguments,
    TransformRunArguments,
)
from ..service import artifacts, transforms
from ..service.artifact_page import open_artifact
from ..service.artifact_save import save_note
from ..service.models import ProviderChoice
from ..store import Store

SHARE_FORMATS = {"markdown": "md", "text": "txt", "json": "json", "csv": "csv"}
"""`artifact.share` formats -> export formats (`pdf` is not made by this host)."""


async def transform_list_types(_arguments: NoArguments, _store: Store) -> dict[str, Any]:
    return {"types": transforms.list_types()}


async def transform_run(
    arguments: TransformRunArguments,
    store: Store,
    *,
    provider: ProviderChoice | None = None,
) -> dict[str, Any]:
    """The run's result (the artifact with its Markdown); `provider`: who answers (the
    configured default, else offline, when None)."""
    request = transforms.TransformRequest(
        arguments.type,
        arguments.collection_id,
        arguments.config,
        provider or ProviderChoice(),
    )
    return (await transforms.run(store, request)).to_json()


async def artifact_open(arguments: ArtifactOpenArguments, store: Store) -> dict[str, Any]:
    """What a UI needs to show it: id, title, the safe HTML and the citations."""
    page = await open_artifact(store, arguments.artifact_id)
    return {
        "id": page["id"],
        "title": page["title"],
        "type": page["type"],
        "status": page["status"],
        "html": page["html"],
        "citations": page["citations"],
        "target": arguments.target or "workspace",
        "new_tab": bool(arguments.new_tab),
    }


async def artifact_share(
    arguments: ArtifactShareArguments, store: Store, *, folder: Path | None = None
) -> dict[str, Any]:
    """The export's content for the clipboard (or a file the UI saves); with target `file`
    and a `filename`, the file written inside `folder`."""
    fmt = SHARE_FORMATS.get(arguments.format)
    if fmt is None:
        raise RefusedError(
            f"{arguments.format} export is not available: use {', '.join(SHARE_FORMATS)}"
        )
    target = arguments.target or "clipboard"
    if target == "share_sheet":
        raise RefusedError("the share sheet is not available yet: use clipboard or file")
    if target == "file" and arguments.filename:
        written = await _write(arguments, store, fmt, folder)
        return {"target": "file", "paths": [str(path) for path in written]}
    exported = await artifacts.export_content(store, arguments.artifact_id, fmt)
    return {"target": target, **exported.to_json()}


async def _write(
    arguments: ArtifactShareArguments, store: Store, fmt: str, folder: Path | None
) -> list[Path]:
    name = Path(arguments.filename or "")
    if folder is None:
        raise RefusedError("no export folder is set: share to the clipboard instead")
    if name.is_absolute():
        raise RefusedError(f"{name}: give a file name inside the export folder, not a path")
    return await artifacts.export_artifact(store, arguments.artifact_id, fmt, name, cwd=folder)


async def artifact_save(
    arguments: ArtifactSaveArguments, store: Store, *, collection: str = DEFAULT_COLLECTION
) -> dict[str, Any]:
    """The model's Markdown as a completed `note` artifact in `collection`."""
    saved = await save_note(
        store, arguments.title, arguments.markdown, collection=collection, tags=arguments.tags
    )
    warnings = []
    if arguments.redaction == "none":
        warnings.append("redaction none is not honoured: the store redacts every text it keeps")
    return {
        "artifact_id": saved["id"],
        "title": saved["title"],
        "type": saved["type"],
        "status": saved["status"],
        "warnings": warnings,
    }
