"""Citations: first-class evidence objects attached to an answer (spec 000, "Citation shape")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ._base import LlmcpModel, NonEmptyStr, OneOfRequired, SourceUrl, optional


class Locator(LlmcpModel):
    """A best-effort hint for jumping to the evidence inside the source."""

    type: Literal["text_fragment", "section_heading"]
    value: NonEmptyStr


class Citation(OneOfRequired):
    """A quote from a source that supports a claim.

    `source_id` names a collection source and `doc_id` a context document of the request; at
    least one is required so the quote can be checked against the stored text.
    """

    one_of = ("source_id", "doc_id")
    one_of_rule = (
        "a citation needs source_id (collection source) or doc_id (context document), or both"
    )

    source_id: NonEmptyStr | None = optional()
    doc_id: NonEmptyStr | None = optional()
    url: SourceUrl
    quote: NonEmptyStr
    locator: Locator | None = optional()
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] | None = optional()
