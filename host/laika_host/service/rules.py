"""Event rules: list, add, delete and try one. One orchestration for `laika rules` and the
`rules.*` settings tools, so the two cannot drift. A rule is checked before it is saved
(`events.check`); every write changes only `events.rules`, as one registry commit naming
the tool and who asked."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from ..config import registry
from ..config.registry import Change, Who
from ..config.schema import EventRule, Trigger
from ..errors import ClashError, MissingError
from ..events.check import check_rule
from ..events.event import TRIGGER_FIELDS, Event


class RuleNotFoundError(MissingError):
    """No rule has this id; the message lists the ids there are."""


class RuleExistsError(ClashError):
    """The id is taken by another rule."""


if TYPE_CHECKING:
    from ..events.engine import RuleRun
    from ..store import Store

RULES_PATH = "events.rules"
ALLOWED_PATHS = (RULES_PATH,)


def list_rules() -> list[EventRule]:
    return list(registry.load().events.rules)


def get_rule(rule_id: str) -> EventRule:
    for rule in list_rules():
        if rule.id == rule_id:
            return rule
    raise RuleNotFoundError(f"no event rule {rule_id!r}; {_existing()}")


def add(data: dict[str, Any], *, who: Who, tool: str = "rules.create") -> tuple[EventRule, Change]:
    """Check and save a new rule (`id` generated when absent); an id in use is refused."""
    rule = EventRule.model_validate(
        {"id": _new_id(), **{k: v for k, v in data.items() if v is not None}}
    )
    rule = check_rule(rule.model_copy(update={"created_by": who}))
    rules = list_rules()
    if any(existing.id == rule.id for existing in rules):
        raise RuleExistsError(
            f"an event rule {rule.id!r} exists; delete it first (`laika rules delete "
            f"{rule.id}`) or choose another id"
        )
    return rule, _save([*rules, rule], who=who, tool=tool)


def delete(rule_id: str, *, who: Who, tool: str = "rules.delete") -> tuple[EventRule, Change]:
    rule = get_rule(rule_id)
    kept = [existing for existing in list_rules() if existing.id != rule_id]
    return rule, _save(kept, who=who, tool=tool)


async def test(store: Store, rule_id: str, payload: dict[str, Any] | None) -> RuleRun:
    """A dry run: whether the rule matches the event (the trigger's sample event when none
    is given), its substituted actions and the gate's decision for each; nothing runs."""
    from ..events.engine import dry_run

    rule = get_rule(rule_id)
    event = Event(rule.trigger, TRIGGER_FIELDS[rule.trigger] if payload is None else payload)
    return await dry_run(store, rule, event)


def triggers() -> dict[Trigger, list[str]]:
    """Each trigger and the `$event.*` fields its events carry."""
    return {name: list(fields) for name, fields in TRIGGER_FIELDS.items()}  # type: ignore[misc]


def _save(rules: list[EventRule], *, who: Who, tool: str) -> Change:
    value = [rule.model_dump(mode="json") for rule in rules]
    return registry.mutate({RULES_PATH: value}, who=who, tool=tool, allowed_paths=ALLOWED_PATHS)


def _new_id() -> str:
    return f"rule-{secrets.token_hex(4)}"


def _existing() -> str:
    ids = [rule.id for rule in list_rules()]
    if not ids:
        return "there are none yet (`laika rules add` makes one)"
    return f"the rules are {', '.join(ids[:20])} (`laika rules list`)"
