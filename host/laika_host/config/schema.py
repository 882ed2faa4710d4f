"""The registry's document: typed sections, validated as a whole after every change.

Free-form data is allowed in exactly one place, `user.preferences`, and only as flat
string/number/boolean values, so a typo elsewhere (`capture.max_char`) is refused naming the
field instead of being saved and ignored.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_serializer,
    field_validator,
)

from ..defaults import CAPTURE_MAX_CHARS, DEFAULT_COLLECTION
from ..llm.config import OFFLINE, ProviderConfig
from ..tools.policy import Rule
from ..tools.policy_file import PolicyFile

PreferenceKey = Annotated[
    str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
]
MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer the panel's JavaScript reads exactly."""
MAX_PREFERENCE_CHARS = 2000


def _one_reason(value: Any, kinds: ValidatorFunctionWrapHandler) -> Any:
    """One sentence for a value of no allowed kind, instead of one per kind tried."""
    if (problem := preference_problem(value)) is not None:
        raise ValueError(problem)
    return kinds(value)


def preference_problem(value: Any) -> str | None:
    """Why `value` cannot be a preference (text, a whole or finite number, true/false)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        if abs(value) <= MAX_SAFE_INTEGER:
            return None
        return (
            f"a whole number is at most {MAX_SAFE_INTEGER:,} either way (the side panel would "
            "read a larger one inexactly); quote it to keep it as text"
        )
    if isinstance(value, float):
        return None if math.isfinite(value) else "a number must be finite"
    if isinstance(value, str):
        if len(value) <= MAX_PREFERENCE_CHARS:
            return None
        return (
            f"a text holds at most {MAX_PREFERENCE_CHARS:,} characters (this one has "
            f"{len(value):,})"
        )
    return f"a preference is a text, a number or true/false, not {type(value).__name__}"


PreferenceValue = Annotated[
    Annotated[StrictStr, StringConstraints(max_length=MAX_PREFERENCE_CHARS)]
    | Annotated[StrictInt, Field(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)]
    | Annotated[StrictFloat, Field(allow_inf_nan=False)]
    | StrictBool,
    WrapValidator(_one_reason),
]
"""Strict: a text too long for a string is refused, not read as a number (5,000 digits made
Infinity, which no reader could parse back)."""
ConditionText = Annotated[str, StringConstraints(min_length=1, max_length=200)]
MAX_CONDITION_DEPTH = 8
MAX_CONDITION_NODES = 100
"""Parts of one rule's condition: each `contains` searches the event's text once, so 20
children nested 8 deep (3.6 MB, 160,000 searches: 4 s an event) is refused when saved."""
Trigger = Literal[
    "source.captured",
    "source.capture_failed",
    "artifact.completed",
    "collection.created",
    "chat.answered",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Providers(_Section):
    """The model providers (each names its key's environment variable, never the key)."""

    items: list[ProviderConfig] = Field(default_factory=list, max_length=100)
    default: str | None = Field(default=None, description="A provider id, `offline`, or none.")

    @field_validator("items")
    @classmethod
    def _unique(cls, items: list[ProviderConfig]) -> list[ProviderConfig]:
        ids = [item.id for item in items]
        if len(ids) != len(set(ids)):
            raise ValueError("provider ids must be unique")
        if OFFLINE in ids:
            raise ValueError(f"{OFFLINE!r} is the built-in runtime, not a provider id")
        return items

    @field_serializer("items")
    def _lean_items(self, items: list[ProviderConfig]) -> list[dict[str, Any]]:
        return [item.model_dump(mode="json", exclude_defaults=True) for item in items]


class Capture(_Section):
    default_collection: str = Field(default=DEFAULT_COLLECTION, min_length=1, max_length=200)
    max_chars: int = Field(default=CAPTURE_MAX_CHARS, ge=1000, le=10_000_000)
    allow_private_addresses: bool = Field(
        default=False,
        description="The URLs you capture, add or refresh yourself (the `laika` command, the "
        "extension) may be on your own machine or network (loopback, private, link-local "
        "addresses), as with `--allow-private-address` each time. A model's tools never "
        "may, and a page on the internet never redirects there. No settings tool writes it.",
    )


class Redaction(_Section):
    """Extra words whose values are treated as secrets, on top of the built-in rules."""

    extra_secret_names: list[Annotated[str, StringConstraints(max_length=64)]] = Field(
        default_factory=list, max_length=200
    )


class Policy(_Section):
    """The Policy Gate's user rules (formerly policy.json): same checks as that file."""

    rules: list[Rule] = Field(default_factory=list, max_length=1000)

    @field_validator("rules")
    @classmethod
    def _as_the_file(cls, rules: list[Rule]) -> list[Rule]:
        return list(PolicyFile(rules=rules).rules)

    @field_serializer("rules")
    def _lean_rules(self, rules: list[Rule]) -> list[dict[str, Any]]:
        """As written in policy.json: aliases (`not`, `any`), no unset conditions."""
        return [
            rule.model_dump(mode="json", by_alias=True, exclude_defaults=True) for rule in rules
        ]


class Ui(_Section):
    theme: Literal["system", "light", "dark"] = "system"
    show_citations: bool = True


class EventCondition(_Section):
    """When a rule runs (issue #17 item 5, evaluated by `events.conditions`): every leaf given
    holds, all of `all`, one of `any` (if given), and not `not`. Empty: every event."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False
    )

    domain: list[ConditionText] | None = Field(default=None, max_length=50)
    """The event's `domain` is one of these or under one (`example.org` holds for
    `www.example.org`)."""
    collection: list[ConditionText] | None = Field(default=None, max_length=50)
    """The event's collection (title or id), any case."""
    contains: ConditionText | None = None
    """A case-insensitive substring of the event's text fields (or of `fields`)."""
    fields: list[ConditionText] | None = Field(default=None, max_length=20)
    signals: list[ConditionText] | None = Field(default=None, max_length=20)
    """The event carries one of these capture signals (`login_wall`, `paywall`, ...)."""
    all_of: list[EventCondition] | None = Field(default=None, alias="all", max_length=20)
    any_of: list[EventCondition] | None = Field(default=None, alias="any", max_length=20)
    not_: EventCondition | None = Field(default=None, alias="not")

    @field_validator("all_of", "any_of")
    @classmethod
    def _shallow(cls, items: list[EventCondition] | None) -> list[EventCondition] | None:
        if items and max(item.depth() for item in items) >= MAX_CONDITION_DEPTH:
            raise ValueError(f"conditions nest at most {MAX_CONDITION_DEPTH} levels")
        return items

    def size(self) -> int:
        """How many conditions this is made of (itself included)."""
        children = [*(self.all_of or []), *(self.any_of or []), *([self.not_] if self.not_ else [])]
        return 1 + sum(child.size() for child in children)

    def depth(self) -> int:
        """How deep `all`/`any`/`not` nest (bounded, so evaluating one is bounded too)."""
        children = [*(self.all_of or []), *(self.any_of or []), *([self.not_] if self.not_ else [])]
        return 1 + max((child.depth() for child in children), default=0)


class EventAction(_Section):
    tool: str = Field(min_length=1, max_length=200)
    params: dict[str, JsonValue] = Field(default_factory=dict, max_length=50)
    """The tool's arguments; a string `$event.<field>` is the event's value, and
    `$event.<field>` inside a string is replaced by it (`events.substitute`)."""


class EventRule(_Section):
    """A deterministic `trigger -> conditions -> actions` rule (run by `events.engine`)."""

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    trigger: Trigger
    conditions: EventCondition = Field(default_factory=EventCondition)
    actions: list[EventAction] = Field(min_length=1, max_length=20)
    enabled: bool = True
    created_by: Literal["cli", "panel", "rule", "model"] | None = None

    @field_validator("conditions")
    @classmethod
    def _small(cls, conditions: EventCondition) -> EventCondition:
        if conditions.size() > MAX_CONDITION_NODES:
            raise ValueError(
                f"a rule's conditions have at most {MAX_CONDITION_NODES} parts (all, any and "
                f"not count too), not {conditions.size()}: split it into several rules"
            )
        return conditions

    @field_serializer("conditions")
    def _lean_conditions(self, conditions: EventCondition) -> dict[str, Any]:
        """As written by a person: aliases (`all`, `any`, `not`), no unset conditions."""
        return conditions.model_dump(mode="json", by_alias=True, exclude_none=True)


class Events(_Section):
    rules: list[EventRule] = Field(default_factory=list, max_length=500)

    @field_validator("rules")
    @classmethod
    def _unique(cls, rules: list[EventRule]) -> list[EventRule]:
        ids = [rule.id for rule in rules]
        if len(ids) != len(set(ids)):
            raise ValueError("event rule ids must be unique")
        return rules


class User(_Section):
    preferences: dict[PreferenceKey, PreferenceValue] = Field(default_factory=dict, max_length=500)


class Registry(_Section):
    """The whole document. `version` counts mutations: a reader compares it to notice change."""

    schema_version: Literal[1] = 1
    version: int = Field(default=0, ge=0)
    providers: Providers = Field(default_factory=Providers)
    capture: Capture = Field(default_factory=Capture)
    redaction: Redaction = Field(default_factory=Redaction)
    policy: Policy = Field(default_factory=Policy)
    ui: Ui = Field(default_factory=Ui)
    events: Events = Field(default_factory=Events)
    user: User = Field(default_factory=User)
