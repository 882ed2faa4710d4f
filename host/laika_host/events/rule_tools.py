"""Settings tools that manage event rules (`rules.create`, `rules.delete`, `rules.list`).

They write only `events.rules` (`service.rules`, through `mutate(allowed_paths=...)`); a
rule is checked before it is saved, so a model's proposal that names an unknown tool or a
bad parameter is refused naming it. A rule a model proposes runs only once the user
approved the proposal (the gate asks for settings writes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from ..config.registry import Who
from ..config.schema import EventAction, EventCondition, Trigger
from ..settings.tool import SettingsArguments, SettingsTool
from ..settings.wording import with_summary

if TYPE_CHECKING:
    from ..store import Store


class RuleCreateArguments(SettingsArguments):
    id: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    trigger: Trigger
    conditions: EventCondition = Field(default_factory=EventCondition)
    actions: list[EventAction] = Field(min_length=1, max_length=20)


class RuleDeleteArguments(SettingsArguments):
    id: str = Field(min_length=1, max_length=64)


class RuleListArguments(SettingsArguments):
    pass


async def _create(arguments: RuleCreateArguments, who: Who, _store: Store) -> dict[str, Any]:
    from ..service import rules

    data = arguments.model_dump(mode="json", by_alias=True, exclude_none=True)
    rule, change = rules.add(data, who=who, tool="rules.create")
    found = {"rule": rule.model_dump(mode="json"), "change": change.to_json()}
    return with_summary("rules.create", arguments, found)


async def _delete(arguments: RuleDeleteArguments, who: Who, _store: Store) -> dict[str, Any]:
    from ..service import rules

    rule, change = rules.delete(arguments.id, who=who, tool="rules.delete")
    found = {"deleted": rule.model_dump(mode="json"), "change": change.to_json()}
    return with_summary("rules.delete", arguments, found)


async def _list(arguments: RuleListArguments, _who: Who, _store: Store) -> dict[str, Any]:
    from ..service import rules

    found = {"rules": [rule.model_dump(mode="json") for rule in rules.list_rules()]}
    return with_summary("rules.list", arguments, found)


TOOLS: tuple[SettingsTool, ...] = (
    SettingsTool(
        name="rules.create",
        description="Create an event rule: when TRIGGER happens and CONDITIONS hold, run ACTIONS.",
        arguments=RuleCreateArguments,
        allowed_paths=("events.rules",),
        run=_create,
        examples=(
            "when I capture a page from example.org into Inbox, add it to Research",
            "every time a collection is created, run key-takeaways on it",
        ),
    ),
    SettingsTool(
        name="rules.delete",
        description="Delete an event rule by its id.",
        arguments=RuleDeleteArguments,
        allowed_paths=("events.rules",),
        run=_delete,
        examples=("delete the rule research-inbox", "remove my event rule"),
    ),
    SettingsTool(
        name="rules.list",
        description="List the event rules.",
        arguments=RuleListArguments,
        allowed_paths=(),
        run=_list,
        examples=("show my event rules", "which rules do I have"),
    ),
)
