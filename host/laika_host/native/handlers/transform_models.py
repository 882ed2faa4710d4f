"""Payload and result models of the transform and artifact message types."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from ...defaults import DEFAULT_COLLECTION
from ...store.records import Artifact
from .base_models import MAX_PAYLOAD_INT, StrictPayload
from .chat_models import CitationResult, ProviderRef
from .store_models import CollectionRef

ArtifactId = Annotated[str, Field(pattern=r"^art_[0-9a-f]{32}$", description="An artifact's id.")]
ExportFormat = Literal["md", "txt", "json", "csv", "html"]
TypeId = Annotated[str, Field(min_length=1, max_length=64, description="A transform type's id.")]


class TransformRun(StrictPayload):
    collection: CollectionRef = DEFAULT_COLLECTION
    type: TypeId
    config: dict[str, JsonValue] | None = Field(
        default=None,
        description="The type's settings (`transform.list_types` gives each type's "
        "`config_schema`); a bad one is `bad_request` naming the setting.",
    )
    provider: ProviderRef | None = None
    force: bool = False


class ArtifactList(StrictPayload):
    collection: CollectionRef | None = None


class ArtifactTarget(StrictPayload):
    artifact_id: ArtifactId


class ArtifactExport(StrictPayload):
    artifact_id: ArtifactId
    format: ExportFormat
    table: Annotated[int, Field(ge=1, le=MAX_PAYLOAD_INT)] | None = Field(
        default=None, description="CSV only: which table (1-based); the first when absent."
    )


class TransformTypes(BaseModel):
    types: list[dict[str, Any]] = Field(
        description="Each type as `laika transform list --json` prints it: id, title, "
        "description, item_kind, layout, deterministic, ready, needs_model (null, or why the "
        "offline runtime does not make the type: a run needs a model), config_schema, "
        "item_schema."
    )


class StaleSource(BaseModel):
    source_id: str
    reason: Literal["changed", "deleted"]


class ArtifactView(Artifact):
    stale: bool = Field(description="A source changed or was deleted since it was built.")
    stale_sources: list[StaleSource]


class ArtifactPage(ArtifactView):
    model_config = ConfigDict(extra="forbid", frozen=True)

    html: str = Field(
        description="`content_markdown` as safe HTML, markers as in `chat.ask`'s `answer_html`."
    )
    citations: list[CitationResult] = Field(  # type: ignore[assignment]
        description="One per marker `[n]` (`marker` = n), in chat's citation shape."
    )
    export_formats: list[ExportFormat] = Field(
        description="The `artifacts.export` formats that give this artifact's content, in "
        "this order: md, txt, json and html always, csv only for a table type with rows."
    )
    export_tables: list[str] = Field(
        description="The names of its CSV tables (`table` n is the n-th); empty when it is "
        "not a table type."
    )


class TransformRunResult(BaseModel):
    status: Literal["pending", "running", "completed", "failed", "cancelled"]
    reused: bool = Field(description="An identical, current artifact was returned as is.")
    joined: bool = Field(description="An identical run in progress was waited for.")
    partial: bool
    warnings: list[str]
    artifact: ArtifactView


class ArtifactSummary(BaseModel):
    id: str
    title: str
    type: str
    status: Literal["pending", "running", "completed", "failed", "cancelled"]
    collection_id: str
    collection: str | None
    created_at: str
    updated_at: str
    stale: bool
    items: int = Field(description="How many items it holds.")
    verified: int = Field(description="How many of them are verified.")
    provider: str | None


class ArtifactListResult(BaseModel):
    artifacts: list[ArtifactSummary]


class ArtifactExported(BaseModel):
    filename: str = Field(description="A safe file name (no folder), with the extension.")
    mime: str
    content: str


class ArtifactDeleted(BaseModel):
    deleted: Literal[True]
    id: str
