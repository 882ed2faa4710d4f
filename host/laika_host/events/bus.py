"""`emit`: the one call the service layer makes when something happened (a source captured,
an artifact completed, ...). The user's rules for that trigger run here, in the process
that emitted it (CLI or host: no server), after the operation committed.

Whatever a rule does, the operation that emitted the event has succeeded and stays so:
every error is logged, none is raised. With no rule for the trigger (or no settings file
yet) it costs one `stat` and imports nothing of the gate.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..config import registry
from ..config.files import config_dir, registry_path
from ..config.schema import EventRule, Trigger
from .event import Event, current_chain

if TYPE_CHECKING:
    from ..store import Store

log = logging.getLogger("laika.events")


async def emit(store: Store, name: Trigger, payload: dict[str, Any]) -> None:
    """Run the enabled rules whose trigger is `name` on this event; never raises."""
    try:
        rules = rules_for(name)
        if not rules:
            return
        from .engine import run_rules  # the gate loads only when a rule may run

        await run_rules(store, Event(name, payload, current_chain()), rules)
    except Exception as error:  # a rule never fails what triggered it
        log.warning("event rules for %s did not run: %s", name, error, exc_info=True)


def rules_for(name: str) -> list[EventRule]:
    """The enabled rules triggered by `name` (none when there is no settings file yet)."""
    directory = config_dir()
    if registry.signature(registry_path(directory)) is None:
        return []
    rules = registry.load(directory).events.rules
    return [rule for rule in rules if rule.enabled and rule.trigger == name]
