"""Request packets: what the user wants, the task, and the evidence (spec 000, "Request packet")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, model_validator

from ..issues import rule_error
from ._base import LlmcpModel, NonEmptyStr, OneOfRequired, optional
from .documents import ContextDocument
from .envelope import Envelope

TASK_NAMES = ("web.summarize", "web.answer", "web.extract", "transform.run")
"""The recommended v1 tasks; other dotted names are allowed for extensions."""

OutputFormat = Literal["json", "markdown"]


class UserMessage(LlmcpModel):
    id: NonEmptyStr
    text: str


class Task(LlmcpModel):
    """What the agent wants the model to do, e.g. `web.summarize` with `{"style": "concise"}`."""

    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$", max_length=128)]
    args: dict[str, JsonValue] = {}


class Input(OneOfRequired):
    """What is asked: the user's words, the agent's task, or both."""

    one_of = ("user_message", "task")
    one_of_rule = "a request needs input.user_message, input.task, or both"

    user_message: UserMessage | None = optional()
    task: Task | None = optional()


class Context(LlmcpModel):
    documents: list[ContextDocument] = []

    @model_validator(mode="after")
    def _unique_doc_ids(self) -> Context:
        first_seen: dict[str, int] = {}
        for index, document in enumerate(self.documents):
            earlier = first_seen.setdefault(document.doc_id, index)
            if earlier != index:
                raise rule_error(
                    f"duplicate doc_id {document.doc_id!r} (also documents[{earlier}]); "
                    "citations name documents by doc_id, so each must be unique",
                    at=("documents", index, "doc_id"),
                )
        return self


class Output(LlmcpModel):
    """`json` (default): an LLMCP response packet; `markdown`: plain Markdown, no tool calls."""

    format: OutputFormat = "json"


class RequestPacket(Envelope):
    """A request to the model: envelope + input + context + output format."""

    type: Literal["request"]
    input: Input
    context: Context = Context()
    output: Output = Output()
