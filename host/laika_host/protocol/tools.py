"""Tool calls and the v1 tool catalog (spec 000, "Tool call schema").

The model only *proposes* tool calls; the policy gate decides. Validation here is the boundary
the spec asks for: unknown tool names and unknown argument keys are rejected, and each tool's
arguments are checked against its own model. Argument keys are camelCase on the wire, as the
spec writes them (`handleId`, `maxChars`).
"""

from __future__ import annotations

import operator
from functools import reduce
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import ConfigDict, Field, JsonValue, create_model
from pydantic.alias_generators import to_camel

from ._base import LlmcpModel, NonEmptyStr, WebUrl, optional

TOOLS_SCHEMA_VERSION = 1

Count = Annotated[int, Field(ge=1)]


class ToolArguments(LlmcpModel):
    """Base of every tool's arguments: camelCase keys, nothing beyond the schema."""

    model_config = ConfigDict(alias_generator=to_camel)


class NoArguments(ToolArguments):
    """Takes no parameters: `arguments` is `{}` or omitted."""


# --- browser primitives (executed by the extension) ---------------------------------------


class ObserveDomArguments(ToolArguments):
    """Observe the current page's DOM as bounded Markdown, outline, items and comments."""

    max_chars: Count | None = optional()
    max_elements: Count | None = optional()
    max_blocks: Count | None = optional()
    max_primary_chars: Count | None = optional()
    max_outline: Count | None = optional()
    max_outline_chars: Count | None = optional()
    max_items: Count | None = optional()
    max_item_chars: Count | None = optional()
    max_comments: Count | None = optional()
    max_comment_chars: Count | None = optional()
    root_handle_id: NonEmptyStr | None = optional()


class GetSelectionLinksArguments(ToolArguments):
    """List the links inside the user's current selection."""

    max_links: Count | None = optional()


class ClickArguments(ToolArguments):
    """Click the element with this handle."""

    handle_id: NonEmptyStr


class TypeArguments(ToolArguments):
    """Type text into the element with this handle."""

    handle_id: NonEmptyStr
    text: str


class SelectArguments(ToolArguments):
    """Choose an option of a select element."""

    handle_id: NonEmptyStr
    value: str


class ScrollArguments(ToolArguments):
    """Scroll the page vertically by deltaY pixels."""

    delta_y: float


class UrlArguments(ToolArguments):
    """Open or navigate to an http(s) URL."""

    url: WebUrl


class SearchArguments(ToolArguments):
    """Run a web search."""

    query: NonEmptyStr
    engine: NonEmptyStr | None = optional()
    new_tab: bool | None = optional()


# --- app-level primitives (trusted local executors) ---------------------------------------


class ArtifactSaveArguments(ToolArguments):
    """Save Markdown as a durable artifact."""

    title: NonEmptyStr
    markdown: str
    tags: list[NonEmptyStr] | None = optional()
    redaction: Literal["default", "none"] | None = optional()


class ArtifactShareArguments(ToolArguments):
    """Export an artifact to the clipboard, a file or the share sheet."""

    artifact_id: NonEmptyStr
    format: Literal["markdown", "text", "json", "csv", "pdf"]
    filename: NonEmptyStr | None = optional()
    target: Literal["share_sheet", "clipboard", "file"] | None = optional()


class ArtifactOpenArguments(ToolArguments):
    """Open an artifact in the workspace or a browser tab."""

    artifact_id: NonEmptyStr
    target: Literal["workspace", "browser"] | None = optional()
    new_tab: bool | None = optional()


class IntegrationInvokeArguments(ToolArguments):
    """Call an operation of a configured integration."""

    integration: NonEmptyStr
    operation: NonEmptyStr
    payload: dict[str, JsonValue]
    idempotency_key: NonEmptyStr | None = optional()


class CalculateArguments(ToolArguments):
    """Evaluate an arithmetic expression exactly."""

    expression: NonEmptyStr
    precision: Annotated[int, Field(ge=0, le=100)] | None = optional()


class CollectionCreateArguments(ToolArguments):
    """Create a collection."""

    title: NonEmptyStr
    tags: list[NonEmptyStr] | None = optional()


class UrlSourceSpec(ToolArguments):
    type: Literal["url"]
    url: WebUrl
    title: str | None = optional()


class NoteSourceSpec(ToolArguments):
    type: Literal["note"]
    title: str | None = optional()
    text: NonEmptyStr


class CollectionAddSourcesArguments(ToolArguments):
    """Add URL or note sources to a collection."""

    collection_id: NonEmptyStr
    sources: Annotated[
        list[Annotated[UrlSourceSpec | NoteSourceSpec, Field(discriminator="type")]],
        Field(min_length=1),
    ]


class CollectionListSourcesArguments(ToolArguments):
    """List the sources of a collection."""

    collection_id: NonEmptyStr


class SourceCaptureArguments(ToolArguments):
    """Capture a URL into a collection."""

    collection_id: NonEmptyStr
    url: WebUrl
    mode: Literal["auto", "article", "list"] | None = optional()
    max_chars: Count | None = optional()


class SourceRefreshArguments(ToolArguments):
    """Capture a source again."""

    source_id: NonEmptyStr


class TransformRunArguments(ToolArguments):
    """Generate an artifact of a transform type from a collection."""

    collection_id: NonEmptyStr
    type: NonEmptyStr
    config: dict[str, JsonValue] | None = optional()


TOOL_ARGUMENTS: dict[str, type[ToolArguments]] = {
    "browser.observe_dom": ObserveDomArguments,
    "browser.get_selection_links": GetSelectionLinksArguments,
    "browser.click": ClickArguments,
    "browser.type": TypeArguments,
    "browser.select": SelectArguments,
    "browser.scroll": ScrollArguments,
    "browser.open_tab": UrlArguments,
    "browser.navigate": UrlArguments,
    "browser.back": NoArguments,
    "browser.forward": NoArguments,
    "browser.refresh": NoArguments,
    "search": SearchArguments,
    "artifact.save": ArtifactSaveArguments,
    "artifact.share": ArtifactShareArguments,
    "artifact.open": ArtifactOpenArguments,
    "integration.invoke": IntegrationInvokeArguments,
    "app.calculate": CalculateArguments,
    "collection.create": CollectionCreateArguments,
    "collection.add_sources": CollectionAddSourcesArguments,
    "collection.list_sources": CollectionListSourcesArguments,
    "source.capture": SourceCaptureArguments,
    "source.refresh": SourceRefreshArguments,
    "transform.list_types": NoArguments,
    "transform.run": TransformRunArguments,
}
"""Every v1 tool name and the model its `arguments` must match."""

BROWSER_TOOLS = frozenset(name for name in TOOL_ARGUMENTS if name.startswith("browser."))
"""Tools the extension executes; the rest run in the host (`search` too: it searches the
user's library; `laika_host.tools.registry` says where each tool runs)."""


class ToolCallBase(LlmcpModel):
    """`{name, arguments}`: a proposal the policy gate approves, asks about, or denies."""

    name: str
    arguments: ToolArguments


def _call_class_name(tool_name: str) -> str:
    words = tool_name.replace(".", "_").split("_")
    return "".join(word.capitalize() for word in words) + "Call"


def _call_model(tool_name: str, arguments: type[ToolArguments]) -> type[ToolCallBase]:
    takes_none = not any(field.is_required() for field in arguments.model_fields.values())
    default: Any = Field(default_factory=arguments) if takes_none else ...
    return create_model(
        _call_class_name(tool_name),
        __base__=ToolCallBase,
        __doc__=arguments.__doc__,
        name=(cast(Any, Literal[tool_name]), ...),
        arguments=(arguments, default),
    )


TOOL_CALL_MODELS: dict[str, type[ToolCallBase]] = {
    name: _call_model(name, arguments) for name, arguments in TOOL_ARGUMENTS.items()
}

if TYPE_CHECKING:
    ToolCall = ToolCallBase
else:
    ToolCall = Annotated[
        reduce(operator.or_, TOOL_CALL_MODELS.values()), Field(discriminator="name")
    ]
"""A call of any v1 tool, selected by `name`."""
