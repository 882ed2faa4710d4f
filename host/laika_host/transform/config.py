"""Config models shared by the transform types: validated once, then canonical.

Each type's config is a pydantic model with defaults, so `list_types()` can publish its JSON
Schema and a bad value is refused with the field's name. Unknown keys are refused too (a typo
must not silently fall back to a default). The canonical JSON of the validated config is
part of an artifact's dedupe key.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ..errors import RefusedError
from ..pydantic_errors import plain_message

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
        message = plain_message(problem)
        if problem["type"] == "extra_forbidden":
            message = "is not a setting of this type"
        elif problem["type"] == "missing":
            message = "is required"
        problems.append(f"{where} {message}")
    return "; ".join(problems)


def from_pairs(model: type[TransformConfig], pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """`key=value` settings as a user writes them on the command line, as the config object
    `model` validates: a list setting takes `a, b`, a JSON array (`["a", "b"]`: an item that
    holds a comma), or several pairs with the same key, joined in order; a text setting takes
    the text as written; any other takes JSON when it parses (`5`, `true`), else the text
    (validation then names what the setting takes). A key given twice that is not a list is
    refused: which value was meant is not known."""
    lists = {name for name, field in model.model_fields.items() if _is_list(field.annotation)}
    texts = {name for name, field in model.model_fields.items() if _is_text(field.annotation)}
    config: dict[str, Any] = {}
    for key, raw in pairs:
        if key in lists:
            config.setdefault(key, []).extend(_items(key, raw))
        elif key in config:
            raise ConfigError(
                f"{key} is given twice ({config[key]!r}, then {raw!r}); it takes one value"
            )
        elif key in texts:
            config[key] = _quoted(raw)
        else:
            config[key] = _scalar(raw)
    return config


def _is_list(annotation: Any) -> bool:
    return typing.get_origin(annotation) is list


def _is_text(annotation: Any) -> bool:
    """A `str` setting, or a choice among texts (`Literal["apa", "mla"]`)."""
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if annotation is str:
        return True
    return typing.get_origin(annotation) is Literal and all(
        isinstance(choice, str) for choice in typing.get_args(annotation)
    )


def _items(key: str, raw: str) -> list[Any]:
    """`a, b` -> [a, b]; `["a", "b"]` -> [a, b]; empty -> [] (the default: chosen for you)."""
    text = raw.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            raise ConfigError(
                f"{key}: {text[:80]!r} is not a JSON list; write {key}=a,b or "
                f'{key}=\'["a", "b"]\' (JSON lets an item hold a comma)'
            ) from None
        if not isinstance(value, list):
            raise ConfigError(f"{key}: a JSON value here must be a list, not {text[:80]!r}")
        return value
    return [item.strip() for item in text.split(",") if item.strip()]


def _quoted(raw: str) -> str:
    """A text as written; a JSON string (`"..."`) unquoted."""
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            value = json.loads(text)
        except ValueError:
            return raw
        return value if isinstance(value, str) else raw
    return raw


def _scalar(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw  # a plain word: a string


def conformed_keys(
    cells: dict[str, str], chosen: Sequence[str], missing: str
) -> tuple[dict[str, str], list[str]]:
    """`cells` keyed by exactly the `chosen` names, in their order: a key that differs only in
    case or spacing counts as the chosen one, a chosen name with no cell gets `missing`. Also
    the keys left out (not chosen)."""

    def plain(name: str) -> str:
        return " ".join(name.lower().split())

    by_name = {plain(key): value for key, value in cells.items()}
    wanted = {plain(name) for name in chosen}
    kept = {name: by_name.get(plain(name), missing) for name in chosen}
    return kept, [key for key in cells if plain(key) not in wanted]
