"""The action budget of one user operation (issue #24): how many actions the event rules it
sets off may run, however they fan out.

The depth limit bounds a chain of rules, not its breadth: a rule of 9 actions, each creating
a collection that sets it off again, turned one `laika collections create` into 820
collections (1 + 9 + 81 + 729) in 29 s, and 1,000 rules of 20 actions a rule are allowed.
So every action a rule proposes spends one unit of the operation's budget (`ACTION_BUDGET`),
whatever the gate decides. Once it is spent, the rules go on asking: a matching rule's next
action still goes to the Policy Gate, where an `allow` becomes `ask` (`GateContext.over_budget`),
so it waits in `laika approvals` and the rule stops there, as at any action that did not run.
At most `ACTION_BUDGET` such approvals per operation; past them a rule is skipped. Each cut is
logged when it happens, and when the operation ends one warning names the rules cut, what
waits and how to change the rules.

An operation is a CLI command or a native request (their faces open `operation()`); an event
emitted outside one (the host's job worker) is its own operation. The budget travels in a
context variable, shared by the tasks an operation starts, so a rule's action that emits an
event spends from the same budget.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field

log = logging.getLogger("laika.events")

ACTION_BUDGET = 50
"""Actions the event rules set off by one user operation may propose to the gate."""
SHOWN_RULES = 10
"""Rules the warning names one by one (the rest are counted)."""


@dataclass
class Budget:
    limit: int = ACTION_BUDGET
    spent: int = 0
    """Actions proposed under the budget."""
    asked: int = 0
    """Actions proposed past it (each waits for approval, or the gate denied it)."""
    cut: dict[str, int] = field(default_factory=dict)
    """Rule id -> its actions not run because the budget was spent (asked or skipped)."""
    deep: dict[str, int] = field(default_factory=dict)
    """Rule id -> its runs not made at the depth limit (the first is warned of at once)."""
    closed: bool = False

    def too_deep(self, rule_id: str) -> bool:
        """Count a run of `rule_id` stopped at the depth limit; True the first time."""
        self.deep[rule_id] = self.deep.get(rule_id, 0) + 1
        return self.deep[rule_id] == 1

    def take(self) -> bool:
        """Spend one action; False when the budget is gone."""
        if self.spent >= self.limit:
            return False
        self.spent += 1
        return True

    def may_ask(self) -> bool:
        """One more action past the budget may go to the gate as an approval."""
        if self.asked >= self.limit:
            return False
        self.asked += 1
        return True

    def cut_rule(self, rule_id: str, actions: int, *, asked: bool, trigger: str) -> None:
        self.cut[rule_id] = self.cut.get(rule_id, 0) + actions
        line = {
            "event": "rule_budget_cut",
            "rule_id": rule_id,
            "trigger": trigger,
            "actions_not_run": actions,
            "asked": asked,
            "limit": self.limit,
        }
        log.info(json.dumps(line))

    def report(self) -> str | None:
        """The warning for the user when rules were cut (None when nothing was)."""
        repeated = {rule: count - 1 for rule, count in self.deep.items() if count > 1}
        deep = ", ".join(f"{rule!r} {count} more" for rule, count in sorted(repeated.items()))
        deep = f"more runs stopped at the depth limit, as warned above: {deep}" if deep else ""
        if not self.cut:
            return f"event rules: {deep}" if deep else None
        ranked = sorted(self.cut.items(), key=lambda item: (-item[1], item[0]))
        named = [f"{rule_id!r} ({count} not run)" for rule_id, count in ranked[:SHOWN_RULES]]
        if len(ranked) > SHOWN_RULES:
            named.append(f"and {len(ranked) - SHOWN_RULES} more")
        waiting = (
            f"; {self.asked} of them wait for your approval (`laika approvals list`, then "
            "`laika approvals approve ID` for the ones you want)"
            if self.asked
            else ""
        )
        return (
            f"event rules stopped after {self.limit} actions, the most one operation may set "
            f"off: rules {', '.join(named)}{waiting}. A rule with many actions, or rules that "
            "set each other off, multiply: see them with `laika rules list`, test one with "
            "`laika rules test ID`, and remove one with `laika rules delete ID` (add it back "
            f"with fewer actions){'; ' + deep if deep else ''}"
        )


_BUDGET: ContextVar[Budget | None] = ContextVar("laika_rule_budget", default=None)


def current() -> Budget | None:
    """The running operation's budget, if one is open."""
    budget = _BUDGET.get()
    return None if budget is None or budget.closed else budget


@contextmanager
def operation(limit: int = ACTION_BUDGET) -> Iterator[Budget]:
    """The budget of the operation running here: the open one (a rule's action emitting
    an event inside it), else a new one, reported (one warning) and closed on exit."""
    open_budget = current()
    if open_budget is not None:
        yield open_budget
        return
    budget = Budget(limit)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        budget.closed = True  # a task that outlives the operation starts its own
        with suppress(ValueError):  # reset from another context (a face's cleanup): closed
            _BUDGET.reset(token)  # is enough
        report = budget.report()
        if report:
            log.warning(report)
