"""The render Document: a typed tree the model returns in `assistant.render`.

A tree instead of free Markdown lets us validate structure before anything is shown, and
makes raw HTML impossible by construction: there is no node that carries markup. Node names
follow mdast loosely (heading, paragraph, list, ...); `laika_host.render.document_to_markdown`
turns a tree into Markdown (render imports protocol, never the reverse).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from ..issues import rule_error
from ._base import LinkHref, LlmcpModel, optional

MAX_DEPTH = 32
"""Deepest nesting of nodes a Document may have; real answers stay far below it."""

# --- inlines ------------------------------------------------------------------------------


class Text(LlmcpModel):
    type: Literal["text"]
    text: str


class InlineCode(LlmcpModel):
    type: Literal["inline_code"]
    text: str


class LineBreak(LlmcpModel):
    type: Literal["line_break"]


class Strong(LlmcpModel):
    type: Literal["strong"]
    children: list[Inline] = []


class Emphasis(LlmcpModel):
    type: Literal["emphasis"]
    children: list[Inline] = []


class Link(LlmcpModel):
    """A hyperlink; only http, https and mailto targets are valid."""

    type: Literal["link"]
    href: LinkHref
    children: list[Inline] = []


Inline = Annotated[
    Text | InlineCode | LineBreak | Strong | Emphasis | Link,
    Field(discriminator="type"),
]

# --- blocks -------------------------------------------------------------------------------


class Heading(LlmcpModel):
    type: Literal["heading"]
    level: Annotated[int, Field(ge=1, le=6)]
    children: list[Inline] = []


class Paragraph(LlmcpModel):
    type: Literal["paragraph"]
    children: list[Inline] = []


class ListItem(LlmcpModel):
    """One list entry; holds blocks, or inlines directly for a simple one-line item."""

    type: Literal["list_item"]
    children: list[ListItemChild] = []


class ListBlock(LlmcpModel):
    type: Literal["list"]
    ordered: bool = False
    start: Annotated[int, Field(ge=0)] | None = optional(
        description="First number of an ordered list (default 1)."
    )
    items: list[ListItem] = []


class Blockquote(LlmcpModel):
    type: Literal["blockquote"]
    children: list[Block] = []


class CodeBlock(LlmcpModel):
    type: Literal["code_block"]
    language: Annotated[str, Field(pattern=r"^[A-Za-z0-9_+#.-]*$", max_length=40)] | None = (
        optional()
    )
    text: str


class ThematicBreak(LlmcpModel):
    type: Literal["thematic_break"]


class TableCell(LlmcpModel):
    type: Literal["table_cell"]
    children: list[Inline] = []


class TableRow(LlmcpModel):
    type: Literal["table_row"]
    cells: list[TableCell] = []


Alignment = Literal["left", "center", "right"] | None


class Table(LlmcpModel):
    """A GFM table; the first row is the header row."""

    type: Literal["table"]
    align: list[Alignment] | None = optional()
    rows: Annotated[list[TableRow], Field(min_length=1)]


Block = Annotated[
    Heading | Paragraph | ListBlock | Blockquote | CodeBlock | ThematicBreak | Table,
    Field(discriminator="type"),
]

ListItemChild = Annotated[
    Heading
    | Paragraph
    | ListBlock
    | Blockquote
    | CodeBlock
    | ThematicBreak
    | Table
    | Text
    | InlineCode
    | LineBreak
    | Strong
    | Emphasis
    | Link,
    Field(discriminator="type"),
]
"""Any block or inline: list items may hold either."""


class Document(LlmcpModel):
    """The root of a render tree (`type: "doc"`)."""

    type: Literal["doc"]
    children: list[Block] = []

    @model_validator(mode="before")
    @classmethod
    def _bounded_depth(cls, data: Any) -> Any:
        if _node_depth(data) > MAX_DEPTH:
            raise rule_error(f"nests nodes deeper than {MAX_DEPTH} levels", at=("children",))
        return data


def _node_depth(data: Any) -> int:
    """How many node levels deep `data` goes (iterative: hostile input must not recurse)."""
    deepest = 0
    stack = [(data, 1)]
    while stack and deepest <= MAX_DEPTH:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, dict):
            for value in node.values():  # children, items, rows, cells
                if isinstance(value, list):
                    stack.extend((child, depth + 1) for child in value if isinstance(child, dict))
    return deepest


for _model in (Strong, Emphasis, Link, ListItem, Blockquote, Document):
    _model.model_rebuild()
