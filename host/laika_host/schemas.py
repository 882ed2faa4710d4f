"""JSON Schema files generated from the models, and the check that the committed copies match.

`schema/` is what other languages (the extension, prompt builders, third-party runtimes) read;
it must never drift from the pydantic models, which are the single source of truth:
`llmcp/` for the LLM protocol, `native/` for the browser <-> host messages and each registered
message type's payload and result.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from .native.handlers.routes import default_router
from .native.transport import schema_models as native
from .protocol.citations import Citation
from .protocol.documents import CONTENT_MODELS, ContextDocument
from .protocol.render_tree import Document
from .protocol.request import RequestPacket
from .protocol.response import ResponsePacket
from .protocol.tools import ToolCall
from .protocol.validate import EnvelopeHeader

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_SUFFIX = ".schema.json"

SchemaSource = type[BaseModel] | TypeAdapter[Any]


def _sources() -> dict[str, tuple[SchemaSource, str]]:
    """Relative file name -> (model, title) for every schema file we publish."""
    sources: dict[str, tuple[SchemaSource, str]] = {
        "llmcp/envelope": (EnvelopeHeader, "LLMCP v1 envelope (fields every packet carries)"),
        "llmcp/request": (RequestPacket, "LLMCP v1 request packet"),
        "llmcp/response": (ResponsePacket, "LLMCP v1 response packet"),
        "llmcp/context_document": (TypeAdapter(ContextDocument), "LLMCP v1 context document"),
        "llmcp/citation": (Citation, "LLMCP v1 citation"),
        "llmcp/tool_call": (TypeAdapter(ToolCall), "LLMCP v1 tool call (any v1 tool)"),
        "llmcp/render_document": (Document, "LLMCP v1 render Document tree"),
    }
    for kind, model in CONTENT_MODELS.items():
        sources[f"llmcp/documents/{kind}"] = (model, f"LLMCP v1 document content: {kind}")
    sources.update(_native_sources())
    return sources


def _native_sources() -> dict[str, tuple[SchemaSource, str]]:
    sources: dict[str, tuple[SchemaSource, str]] = {
        "native/request": (native.NativeRequest, "Native message: request (extension -> host)"),
        "native/ok_reply": (native.OkReply, "Native message: final reply, success"),
        "native/error_reply": (native.ErrorReply, "Native message: final reply, failure"),
        "native/event": (native.StreamEvent, "Native message: stream event"),
        "native/chunk": (native.ChunkFrame, "Native message: chunk of a frame over 256 KiB"),
    }
    for route in default_router().routes():
        payload = route.payload_model() or native.NoPayload
        sources[f"native/types/{route.name}.payload"] = (payload, f"{route.name} payload")
        result = route.result_model()
        if result is not None:
            sources[f"native/types/{route.name}.result"] = (result, f"{route.name} result")
    return sources


def _schema_of(source: SchemaSource) -> dict[str, Any]:
    if isinstance(source, TypeAdapter):
        return source.json_schema(mode="validation")
    return source.model_json_schema(mode="validation")


def generate_schemas() -> dict[str, str]:
    """File name (relative to `schema/`) -> exact file text, for every published schema."""
    files: dict[str, str] = {}
    for name, (source, title) in _sources().items():
        path = name + SCHEMA_SUFFIX
        body = _schema_of(source)
        body.pop("title", None)
        document = {"$schema": JSON_SCHEMA_DIALECT, "$id": path, "title": title, **body}
        files[path] = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return files


def export_schemas(directory: Path) -> list[Path]:
    """Write every schema file (and remove stale ones); returns the files written."""
    files = generate_schemas()
    for stale in _existing(directory) - set(files):
        (directory / stale).unlink()
    written = []
    for name, text in files.items():
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


@dataclass(frozen=True)
class SchemaDrift:
    """One committed schema file that does not match the models."""

    path: str
    problem: str
    diff: str = ""


def check_schemas(directory: Path) -> list[SchemaDrift]:
    """Compare the committed schema files with the models; empty when they agree."""
    files = generate_schemas()
    existing = _existing(directory)
    drifts: list[SchemaDrift] = []
    for name, text in files.items():
        target = directory / name
        if name not in existing:
            drifts.append(SchemaDrift(name, "missing: the models define it"))
            continue
        committed = target.read_text(encoding="utf-8")
        if committed != text:
            drifts.append(
                SchemaDrift(name, "differs from the models", _diff(name, committed, text))
            )
    drifts.extend(
        SchemaDrift(name, "stale: no model produces it") for name in sorted(existing - set(files))
    )
    return drifts


def _existing(directory: Path) -> set[str]:
    if not directory.is_dir():
        return set()
    return {path.relative_to(directory).as_posix() for path in directory.rglob("*" + SCHEMA_SUFFIX)}


def _diff(name: str, committed: str, generated: str, limit: int = 40) -> str:
    lines = list(
        difflib.unified_diff(
            committed.splitlines(),
            generated.splitlines(),
            f"committed/{name}",
            f"models/{name}",
            lineterm="",
        )
    )
    if len(lines) > limit:
        lines = [*lines[:limit], f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join(lines)
