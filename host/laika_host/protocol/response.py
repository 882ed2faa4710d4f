"""Response packets: the model's answer, citations and tool proposals (spec 000)."""

from __future__ import annotations

from typing import Literal

from ._base import LlmcpModel, NonEmptyStr, OneOfRequired, optional
from .citations import Citation
from .envelope import Envelope
from .render_tree import Document
from .tools import ToolCall

ContentPath = Literal["render", "markdown_fallback"]


class InReplyTo(LlmcpModel):
    request_id: NonEmptyStr


class Assistant(OneOfRequired):
    """The human-readable answer: `render` (required in JSON mode) or `markdown` (fallback)."""

    one_of = ("render", "markdown")
    one_of_rule = (
        "required in JSON mode: a render Document, or assistant.markdown as the lenient fallback"
    )

    title: str | None = optional()
    render: Document | None = optional()
    markdown: str | None = optional()
    citations: list[Citation] = []

    @property
    def content_path(self) -> ContentPath:
        """Which field carries the answer: the spec's render tree or the lenient fallback."""
        return "render" if self.render is not None else "markdown_fallback"


class ResponsePacket(Envelope):
    """The model's reply to one request."""

    type: Literal["response"]
    in_reply_to: InReplyTo
    assistant: Assistant
    tool_calls: list[ToolCall] = []
