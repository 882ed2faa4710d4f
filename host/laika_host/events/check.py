"""The check a rule passes before it is saved: each action names a tool that exists and
its parameters validate once the trigger's `$event.*` fields are substituted, so a typo is
refused at `rules add`, naming the field, not discovered when the event comes."""

from __future__ import annotations

from ..config.schema import EventRule
from ..errors import RefusedError
from ..tools.registry import REGISTRY, entry, validate
from .event import TRIGGER_FIELDS
from .substitute import placeholders, substitute


class RuleCheckError(RefusedError):
    """A rule that could never run as written; the message names the field and the fix."""


def check_rule(rule: EventRule) -> EventRule:
    """`rule`, or RuleCheckError naming the first action that cannot run."""
    sample = TRIGGER_FIELDS[rule.trigger]
    for number, action in enumerate(rule.actions):
        where = f"actions[{number}]"
        if action.tool not in REGISTRY:
            raise RuleCheckError(
                f"{where}.tool: unknown tool {action.tool[:100]!r}; the tools are "
                f"{', '.join(REGISTRY)} (`laika tools list`)"
            )
        unknown = [name for name in placeholders(action.params) if name not in sample]
        if unknown:
            raise RuleCheckError(
                f"{where}.params: $event.{unknown[0]} is not a field of {rule.trigger} "
                f"events; they carry {', '.join('$event.' + key for key in sample)}"
            )
        try:
            validate(entry(action.tool).name, substitute(action.params, sample))
        except RefusedError as error:
            raise RuleCheckError(f"{where}.params: {error}") from None
    return rule
