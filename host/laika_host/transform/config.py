"""Config models shared by the transform types: validated once, then canonical.

Each type's config is a pydantic model with defaults, so `list_types()` can publish its JSON
Schema and a bad value is refused with the field's name. Unknown keys are refused too (a typo
must not silently fall back to a default). The canonical JSON of the validated config is
part of an artifact's dedupe key.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ..errors import RefusedError

Length = Literal["short", "medium", "long"]
Audience = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
COUNT_FOR_LENGTH: dict[str, int] = {"short": 3, "medium": 6, "long": 10}


class TransformConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def canonical(self) -> str:
        """Sorted keys, no spaces: equal configs give equal text (and dedupe keys)."""
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )


class ProseConfig(TransformConfig):
    length: Length = Field(default="medium", description="How much to write.")
    audience: Audience = Field(default="general reader", description="Who will read it.")

    @property
    def count(self) -> int:
        return COUNT_FOR_LENGTH[self.length]


class CountConfig(TransformConfig):
    count: int = Field(default=10, ge=1, le=50, description="How many items to make, at most.")


class QuizConfig(CountConfig):
    options: int = Field(default=4, ge=3, le=5, description="Choices per question.")


class ComparisonConfig(CountConfig):
    aspects: list[
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=60)]
    ] = Field(
        default_factory=list,
        max_length=8,
        description="What to compare (columns); empty: chosen from the sources.",
    )


class DataTableConfig(CountConfig):
    columns: list[
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=60)]
    ] = Field(default_factory=list, max_length=8, description="Columns to fill; empty: chosen.")


class TreeConfig(TransformConfig):
    depth: int = Field(default=3, ge=1, le=5, description="Levels below the top.")
    count: int = Field(default=20, ge=1, le=50, description="Nodes per source, at most.")


class SlidesConfig(TransformConfig):
    count: int = Field(default=6, ge=2, le=30, description="How many slides, at most.")
    audience: Audience = Field(default="general reader", description="Who will watch.")


class PodcastConfig(ProseConfig):
    hosts: list[
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
    ] = Field(default_factory=lambda: ["Host", "Guest"], min_length=1, max_length=4)


class EmailConfig(ProseConfig):
    tone: Literal["formal", "friendly"] = Field(default="friendly")


class CitationConfig(TransformConfig):
    style: Literal["apa", "mla", "chicago"] = Field(default="apa", description="Reference style.")


class CustomConfig(ProseConfig):
    instructions: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)
    ] = Field(description="What to make from the sources, in your words.")


class EmptyConfig(TransformConfig):
    pass


class ConfigError(RefusedError, ValueError):
    """A config that does not validate; the message names each field and what it takes."""


def validate_config(model: type[TransformConfig], given: object) -> TransformConfig:
    """`given` (a dict, or None for the defaults) validated against `model`."""
    try:
        return model.model_validate(given or {})
    except ValidationError as error:
        raise ConfigError(_explain(error)) from None


def _explain(error: ValidationError) -> str:
    problems = []
    for problem in error.errors()[:5]:
        where = ".".join(str(part) for part in problem["loc"]) or "config"
        message = problem["msg"]
        if problem["type"] == "extra_forbidden":
            message = "is not a setting of this type"
        elif problem["type"] == "missing":
            message = "is required"
        problems.append(f"{where} {message}")
    return "; ".join(problems)
