"""Citations: first-class evidence objects attached to an answer (spec 000, "Citation shape")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from ._base import LlmcpModel, NonEmptyStr, SourceUrl, one_of_required, optional, rule_error


class Locator(LlmcpModel):
    """A best-effort hint for jumping to the evidence inside the source."""

    type: Literal["text_fragment", "section_heading"]
    value: NonEmptyStr


class Citation(LlmcpModel):
    """A quote from a source that supports a claim.

    `source_id` names a collection source and `doc_id` a context document of the request; at
    least one is required so the quote can be checked against the stored text.
    """

    model_config = one_of_required("source_id", "doc_id")

    source_id: NonEmptyStr | None = optional()
    doc_id: NonEmptyStr | None = optional()
    url: SourceUrl
    quote: NonEmptyStr
    locator: Locator | None = optional()
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] | None = optional()

    @model_validator(mode="after")
    def _names_a_source(self) -> Citation:
        if self.source_id is None and self.doc_id is None:
            raise rule_error(
                "a citation needs source_id (collection source) or doc_id (context document), "
                "or both",
                at=("source_id",),
            )
        return self
