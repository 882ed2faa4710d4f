"""What the store returns: typed records, serialized the same way for the CLI (`--json`) and
for native messages. Times are ISO-8601 UTC here (epoch ms in SQLite)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from .ids import iso
from .rows import DamagedValueError, damaged_value
from .sqlite_errors import one_line

SourceKind = Literal["url", "note", "image"]
CaptureStatus = Literal["pending", "captured", "failed"]
JobStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
ArtifactStatus = Literal["pending", "running", "completed", "failed", "cancelled"]
ChatRole = Literal["user", "assistant", "system"]
SaveOutcome = Literal["new", "updated", "unchanged", "kept"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class Collection(Record):
    id: str
    title: str
    tags: list[str]
    source_count: int = Field(description="Sources in the collection.")
    created_at: str
    updated_at: str


class Source(Record):
    """A source as listed: everything but the bodies."""

    id: str
    collection_id: str
    kind: SourceKind
    url: str | None
    normalized_url: str | None
    title: str | None
    capture_status: CaptureStatus
    capture_version: int
    content_hash: str | None
    capture_error: str | None
    truncated: bool
    signals: list[str]
    byline: str | None
    published: str | None
    markdown_chars: int = Field(description="Length of the stored Markdown, in characters.")
    added_at: str
    captured_at: str | None
    updated_at: str


class SourceDetail(Source):
    """A source with its bodies, links and provenance."""

    markdown: str | None
    summary: str | None
    extracted_links: list[dict[str, JsonValue]]
    media: list[dict[str, JsonValue]]
    provenance: dict[str, JsonValue]


class SavedSource(Record):
    """The result of storing a capture: new, changed, the same as before, or kept out."""

    outcome: SaveOutcome = Field(
        description="`kept`: the capture did not replace the saved copy; `reason` says why."
    )
    collection: str = Field(description="The collection's title.")
    source: Source
    reason: str | None = Field(default=None, description="Why the saved copy was kept.")


class SourceVersion(Record):
    """One capture of a source: a replaced one (kept in `source_versions`) or the current."""

    source_id: str
    version: int = Field(description="The `capture_version` this capture had.")
    current: bool
    title: str | None
    content_hash: str | None
    signals: list[str]
    truncated: bool
    markdown_chars: int
    captured_at: str | None
    replaced_at: str | None = Field(description="When a newer capture replaced it.")


class SourceVersionDetail(SourceVersion):
    markdown: str


class CaptureJob(Record):
    id: str
    source_id: str
    collection_id: str
    status: JobStatus
    attempt_count: int
    max_attempts: int
    last_error: str | None
    outcome: SaveOutcome | None = Field(
        default=None, description="What storing the capture did (`kept`: the saved copy stays)."
    )
    outcome_reason: str | None = Field(default=None, description="Why it was kept.")
    dedupe_key: str
    run_after: str
    created_at: str
    updated_at: str
    started_at: str | None
    finished_at: str | None


class ChatEvent(Record):
    id: str
    collection_id: str
    role: ChatRole
    markdown: str
    citations: list[JsonValue]
    tool_calls: list[JsonValue]
    tool_results: list[JsonValue]
    model: JsonValue
    created_at: str


class Artifact(Record):
    id: str
    collection_id: str
    type: str
    title: str
    dedupe_key: str
    status: ArtifactStatus
    error: str | None
    content_markdown: str | None
    source_ids: list[str]
    citations: list[JsonValue]
    config: dict[str, JsonValue]
    created_at: str
    updated_at: str
    completed_at: str | None
    items: list[dict[str, JsonValue]] = Field(
        default_factory=list, description="The checked items (transforms)."
    )
    sources: list[dict[str, JsonValue]] = Field(
        default_factory=list, description="`{source_id, content_hash}` it was built from."
    )
    provider: str | None = None
    progress: dict[str, JsonValue] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    partial: bool = False
    owner: str | None = Field(default=None, description="The process running it.")
    heartbeat_at: str | None = None
    cancel_requested: bool = False


class LlmRun(Record):
    id: str
    kind: str
    provider_id: str | None
    model_id: str | None
    collection_id: str | None
    source_id: str | None
    artifact_id: str | None
    chat_event_id: str | None
    status: Literal["ok", "partial", "error"]
    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None
    cost_usd: float | None
    duration_ms: int | None
    request_redacted: JsonValue
    response_redacted: JsonValue
    error: str | None
    created_at: str


class SearchHit(Record):
    kind: Literal["source", "artifact"]
    id: str
    collection_id: str
    title: str | None
    url: str | None
    snippet: str = Field(description="Matching text; matched terms are wrapped in `**`.")
    score: float = Field(description="bm25 relevance; lower is better (SQLite's convention).")


def loads(text: str | None, default: Any) -> Any:
    """A JSON column; one that does not parse means the file was damaged (e.g. truncated:
    SQLite reads the missing pages as zeros), which is not a bug to report as `internal`."""
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError as error:
        raise DamagedValueError(f"JSON that does not parse ({one_line(str(error))})") from None


def time_of(row: Any, key: str) -> str | None:
    """A stored time (epoch ms) as ISO-8601; damage can leave text or a number no date has."""
    try:
        return iso(row[key])
    except (TypeError, ValueError, OverflowError, OSError) as error:
        raise damaged_value(row, f"{key} that is not a time ({one_line(str(error))})") from None


def required_time(row: Any, key: str) -> str:
    value = time_of(row, key)
    if value is None:  # the column is NOT NULL
        raise damaged_value(row, f"no {key}, which Laika always writes")
    return value
