"""Match an event against the rules and run their actions through the Policy Gate.

Deterministic: conditions in code (`conditions`), parameters by substitution
(`substitute`), each action proposed with origin `rule` so the gate decides (and records in
`tool_calls`) exactly as for a model's proposal, with the defaults for rules
(`policy_rules`: writes allow, the browser and sharing ask). A rule stops at its first
action that did not run (pending approval, denied, failed): the next ones may depend on it.
`dry_run` is the same path up to the gate's decision, running nothing (`laika rules test`).

Two bounds: the depth of a chain (`MAX_DEPTH`), and the actions one user operation's rules
may run in all (`budget`): past it, each matching rule's next action waits for approval and
the rule stops there; past as many approvals, rules are skipped; one warning names them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..config.schema import EventRule
from ..errors import LaikaError
from ..redact import redact_value
from ..store import Store
from ..tools import gate
from ..tools.policy import Decision, GateContext, Proposal
from ..tools.policy import decide as gate_decide
from ..tools.policy_file import load_user_rules
from ..tools.registry import ExecuteOptions, validate
from .budget import Budget, operation
from .conditions import holds
from .event import MAX_DEPTH, Event, running
from .substitute import substitute

log = logging.getLogger("laika.events")


@dataclass(frozen=True)
class ActionRun:
    """One action of a rule: the tool, its substituted arguments, and what became of it."""

    tool: str
    arguments: Any
    status: str
    """The tool call's status (`executed`, `pending`, `denied`, `failed`), `planned` in a
    dry run, or `refused` when it never reached the gate (a bad placeholder)."""
    decision: Decision | None = None
    call_id: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "status": self.status,
            "decision": None if self.decision is None else self.decision.model_dump(),
            "call_id": self.call_id,
            "error": self.error,
        }


@dataclass(frozen=True)
class RuleRun:
    rule_id: str
    matched: bool
    actions: list[ActionRun]
    skipped: str | None = None
    """Why the rule did not run (all its actions) although it matched: the depth limit, or
    the operation's action budget spent."""

    def to_json(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "matched": self.matched,
            "skipped": self.skipped,
            "actions": [action.to_json() for action in self.actions],
        }


def matches(rule: EventRule, event: Event) -> bool:
    return rule.trigger == event.name and holds(rule.conditions, event.payload)


async def run_rules(store: Store, event: Event, rules: Sequence[EventRule]) -> list[RuleRun]:
    """Run every enabled rule matching `event`, in order; past the depth limit none runs
    and the reason is logged naming the rule and the chain that led there (a warning the
    first time in an operation, then counted in the operation's report)."""
    runs = []
    with operation() as budget:
        for rule in rules:
            if not rule.enabled or not matches(rule, event):
                continue
            if event.depth >= MAX_DEPTH:
                reason = depth_reason(rule, event)
                log.log(logging.WARNING if budget.too_deep(rule.id) else logging.INFO, reason)
                runs.append(RuleRun(rule.id, True, [], skipped=reason))
                continue
            runs.append(await run_rule(store, rule, event, budget))
    return runs


def depth_reason(rule: EventRule, event: Event) -> str:
    chain = " -> ".join(event.chain)
    return (
        f"event rule {rule.id!r} not run for {event.name}: the depth limit ({MAX_DEPTH}) is "
        f"reached (this event comes from the actions of rules {chain}), so a rule that "
        "triggers itself stops here"
    )


async def run_rule(store: Store, rule: EventRule, event: Event, budget: Budget) -> RuleRun:
    """Propose each action in turn (origin `rule`), each spending one of the operation's
    `budget`; events its actions emit carry the chain one rule longer. Past the budget the
    next action goes to the gate as an approval, or, past as many, the rule stops unrun."""
    actions: list[ActionRun] = []
    with running((*event.chain, rule.id)):
        for index, action in enumerate(rule.actions):
            over = not budget.take()
            if over:
                asked = budget.may_ask()
                budget.cut_rule(rule.id, len(rule.actions) - index, asked=asked, trigger=event.name)
                if not asked:
                    return RuleRun(rule.id, True, actions, skipped=budget_reason(rule, budget))
            done = await _run_action(store, action.tool, action.params, event, over)
            actions.append(done)
            _log(rule, event, done)
            if done.status != "executed":
                break
    return RuleRun(rule.id, True, actions)


def budget_reason(rule: EventRule, budget: Budget) -> str:
    return (
        f"event rule {rule.id!r} stopped: this operation's rules ran their {budget.limit} "
        f"actions and {budget.asked} more wait for approval"
    )


async def _run_action(
    store: Store, tool: str, params: Any, event: Event, over_budget: bool = False
) -> ActionRun:
    try:
        arguments = substitute(params, event.payload)
        outcome = await gate.propose(
            store,
            Proposal(name=tool, arguments=arguments),
            context(event, over_budget=over_budget),
            options=ExecuteOptions(collection=_collection(event), who="rule"),
        )
    except LaikaError as error:
        return ActionRun(tool, params, "refused", error=str(error))
    call = outcome.call
    decision = Decision(decision=call.decision, rule_id=call.rule_id, reason=call.reason)
    return ActionRun(tool, arguments, call.status, decision, call.id, outcome.error)


def context(event: Event, *, over_budget: bool = False) -> GateContext:
    """The gate's view of a rule's action: the user's own rule, so no untrusted context
    (the event's values are data copied into arguments the rule fixed); past the
    operation's action budget, nothing is allowed without the user."""
    return GateContext(origin="rule", collection=_collection(event), over_budget=over_budget)


def _collection(event: Event) -> str | None:
    for key in ("collection_id", "collection"):
        value = event.payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


async def dry_run(store: Store, rule: EventRule, event: Event) -> RuleRun:
    """Whether `rule` matches `event`, its substituted actions and the gate's decision for
    each, as a run would see them now; nothing is run or recorded."""
    if not matches(rule, event):
        return RuleRun(rule.id, False, [])
    if event.depth >= MAX_DEPTH:
        return RuleRun(rule.id, True, [], skipped=depth_reason(rule, event))
    caller_rules = gate.rule_order(load_user_rules(), [], await gate.remembered_rules(store))
    planned = []
    for action in rule.actions:
        try:
            arguments = substitute(action.params, event.payload)
            validate(action.tool, arguments)
        except LaikaError as error:
            planned.append(ActionRun(action.tool, action.params, "refused", error=str(error)))
            continue
        proposal = Proposal(name=action.tool, arguments=arguments)
        decision = gate_decide(proposal, context(event), caller_rules)
        planned.append(ActionRun(action.tool, arguments, "planned", decision))
    return RuleRun(rule.id, True, planned)


def _log(rule: EventRule, event: Event, done: ActionRun) -> None:
    line = {
        "event": "rule_action",
        "rule_id": rule.id,
        "trigger": event.name,
        "chain": list(event.chain),
        "tool": done.tool,
        "status": done.status,
        "call_id": done.call_id,
        "error": (done.error or "")[:300] or None,
    }
    log.info(json.dumps(redact_value(line), ensure_ascii=False))
    if done.status not in ("executed", "pending"):
        log.warning(
            "event rule %r: %s %s%s",
            rule.id,
            done.tool,
            done.status,
            f": {done.error[:300]}" if done.error else "",
        )
