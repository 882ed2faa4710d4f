"""Tool calls through the Policy Gate: propose, decide, run, and keep the record.

`propose` validates a call at the boundary (unknown tools and keys are refused and recorded
as denied), asks the gate (`policy.decide`, with the user's `policy.json`, the session's and
the remembered decisions), records the proposal with its decision, and then: `allow` runs it
now, `ask` leaves it pending under an approval id, `deny` runs nothing. `decide` settles a
pending call (approve runs it, deny does not), optionally remembering the choice. Host tools
run through the registry's executors; extension tools are returned as `forward` for the
native layer to hand to the extension, whose answer is recorded with `record_result`.

This is the service of the tools layer: it sits above `service` (the executors call it), so
the CLI and the native handlers call it as they call `service`, and the layers stay acyclic.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import JsonValue

from ..errors import LaikaError, RefusedError
from ..redact import redact_prefix, redact_value
from ..store import Store
from ..store.tool_calls import Proposed, ToolCallRecord
from ..store.tool_rules import RememberedRule
from .policy import Condition, Decision, GateContext, Proposal, Rule
from .policy import decide as gate_decide
from .policy_file import PolicyFileError, load_user_rules
from .registry import ExecuteOptions, executor, validate

if TYPE_CHECKING:
    from ..config.registry import Who

log = logging.getLogger("laika.tools")

Remember = Literal["once", "session", "always"]
MAX_ERROR = 2_000


@dataclass
class Session:
    """Decisions remembered for one session (one host process, or one CLI command), and
    the arguments of calls pending in it exactly as proposed (the store keeps them redacted)."""

    rules: list[Rule] = field(default_factory=list)
    pending_arguments: dict[str, Any] = field(default_factory=dict)

    def remember(self, tool: str, decision: Literal["allow", "deny"]) -> Rule:
        self.rules = [rule for rule in self.rules if rule.when.tool != tool]
        rule = Rule(
            id=f"remembered.session.{tool}",
            decision=decision,
            when=Condition(tool=tool),
            reason=f"you chose to {decision} {tool} for this session",
        )
        self.rules.insert(0, rule)
        return rule

    def forget(self, rule_id: str) -> bool:
        kept = [rule for rule in self.rules if rule.id != rule_id]
        found = len(kept) != len(self.rules)
        self.rules = kept
        return found


@dataclass(frozen=True)
class CallOutcome:
    """A call as recorded, with what ran: the executor's whole result (the record keeps a
    bounded copy), the error, or `forward` for a tool the extension must run."""

    call: ToolCallRecord
    result: Any = None
    error: str | None = None
    forward: bool = False
    forced_ask: bool = False
    """The gate's `ask` was an `allow` turned into `ask` by untrusted content in context."""

    @property
    def approval_id(self) -> str | None:
        return self.call.id if self.call.status == "pending" else None

    def to_json(self) -> dict[str, Any]:
        return {
            "approval_id": self.approval_id,
            "tool_call": self.call.to_json(),
            "result": self.result,
            "error": self.error,
            "forward_to_extension": self.forward,
        }


async def propose(
    store: Store,
    call: Proposal,
    context: GateContext,
    *,
    chat_event_id: str | None = None,
    session: Session | None = None,
    options: ExecuteOptions | None = None,
    policy_file: Path | None = None,
) -> CallOutcome:
    """Gate one proposed call and act on the decision (see the module docstring)."""
    session = session if session is not None else Session()
    collection_id = await _collection_id(store, context.collection)
    try:
        arguments = validate(call.name, call.arguments)
    except RefusedError as error:
        refused = Decision(decision="deny", rule_id="boundary.invalid", reason=str(error))
        record = await _record(
            store,
            call,
            context=context,
            decision=refused,
            chat_event_id=chat_event_id,
            collection_id=collection_id,
        )
        return CallOutcome(record, error=str(error))
    try:
        user_rules = load_user_rules(policy_file)
    except PolicyFileError as error:  # on record as denied, then the error names the file
        refused = Decision(decision="deny", rule_id="boundary.policy_file", reason=str(error))
        await _record(
            store,
            call,
            context=context,
            decision=refused,
            chat_event_id=chat_event_id,
            collection_id=collection_id,
        )
        raise
    rules = rule_order(user_rules, session.rules, await remembered_rules(store))
    decision = gate_decide(call, context, rules)
    record = await _record(
        store,
        call,
        context=context,
        decision=decision,
        chat_event_id=chat_event_id,
        collection_id=collection_id,
    )
    if decision.decision == "ask":
        session.pending_arguments[record.id] = arguments
    if decision.decision != "allow":
        return CallOutcome(record, forced_ask=decision.forced_ask)
    who: Who = "model" if context.origin in ("model", "page") else "cli"
    return await _run(store, record, arguments, options or ExecuteOptions(who=who))


async def refuse(
    store: Store,
    call: Proposal,
    context: GateContext,
    *,
    rule_id: str,
    reason: str,
    chat_event_id: str | None = None,
) -> CallOutcome:
    """Record a proposal denied before the gate reads it (a caller's own limit, such as the
    chat's rounds of tool calls): on record like any other, never run."""
    refused = Decision(decision="deny", rule_id=rule_id, reason=reason)
    record = await _record(
        store,
        call,
        context=context,
        decision=refused,
        chat_event_id=chat_event_id,
        collection_id=await _collection_id(store, context.collection),
    )
    return CallOutcome(record)


def rule_order(
    user: Sequence[Rule], session: Sequence[Rule], remembered: Sequence[Rule]
) -> list[Rule]:
    """The caller's rules as the gate reads them, between its guards and its defaults: the
    user's file, then this session's choices, then those remembered always."""
    return [*user, *session, *remembered]


async def decide(
    store: Store,
    approval_id: str,
    approve: bool,
    *,
    remember: Remember = "once",
    session: Session | None = None,
    options: ExecuteOptions | None = None,
    asker: Who = "cli",
) -> CallOutcome:
    """Settle a pending call: approve runs it, deny does not; `remember` keeps the choice
    for this tool for the session or always (revocable: `forget`). Without `options`, a
    settings change is recorded as asked by the model when it proposed it, else by
    `asker` (where the user decides: the CLI, the side panel)."""
    session = session if session is not None else Session()
    record = await store.tool_calls.resolve(approval_id, "approved" if approve else "denied")
    _log("tool_call_decided", record)
    verdict: Literal["allow", "deny"] = "allow" if approve else "deny"
    if remember == "session":
        session.remember(record.tool, verdict)
    elif remember == "always":
        await store.tool_rules.remember(record.tool, verdict)
    if not approve:
        return CallOutcome(record)
    arguments = session.pending_arguments.pop(approval_id, None)
    if arguments is None:
        arguments = _stored_arguments(record)
    who: Who = "model" if record.origin == "model" else asker
    return await _run(store, record, arguments, options or ExecuteOptions(who=who))


async def list_pending(store: Store, *, limit: int = 100) -> list[ToolCallRecord]:
    """Calls waiting for the user, newest first."""
    return await store.tool_calls.list(status="pending", limit=limit)


async def record_result(store: Store, call_id: str, *, ok: bool, result: JsonValue) -> CallOutcome:
    """What the extension answered for a forwarded call."""
    record = await store.tool_calls.finish(call_id, "executed" if ok else "failed", result)
    _log("tool_call_result", record)
    return CallOutcome(record, result=result if ok else None, error=None if ok else str(result))


async def list_remembered(store: Store) -> list[RememberedRule]:
    """The decisions remembered always, newest first."""
    return await store.tool_rules.list()


async def forget(store: Store, rule_id: str) -> RememberedRule:
    """Revoke a decision remembered always."""
    return await store.tool_rules.forget(rule_id)


async def remembered_rules(store: Store) -> list[Rule]:
    """The decisions remembered always, as gate rules (newest first)."""
    return [
        Rule(
            id=f"remembered.{rule.id}",
            decision=rule.decision,
            when=Condition(tool=rule.tool),
            reason=f"you chose to always {rule.decision} {rule.tool}",
        )
        for rule in await store.tool_rules.list()
    ]


async def _run(
    store: Store, record: ToolCallRecord, arguments: Any, options: ExecuteOptions
) -> CallOutcome:
    """Execute an approved host call (recording its result), or mark it for the extension."""
    run = executor(record.tool)
    if run is None:
        return CallOutcome(record, forward=True)
    try:
        result = await run(arguments, store, options)
    except LaikaError as error:
        message = redact_prefix(str(error), MAX_ERROR)
        failed = await store.tool_calls.finish(record.id, "failed", {"error": message})
        _log("tool_call_result", failed)
        return CallOutcome(failed, error=message)
    done = await store.tool_calls.finish(record.id, "executed", result)
    _log("tool_call_result", done)
    return CallOutcome(done, result=result)


def _stored_arguments(record: ToolCallRecord) -> Any:
    """The arguments kept in the store (redacted), validated again."""
    stored = record.arguments
    if isinstance(stored, dict) and stored.get("truncated") is True and "preview" in stored:
        raise RefusedError(
            f"tool call {record.id}: its arguments were too large to keep; ask for it again"
        )
    return validate(record.tool, stored)


async def _collection_id(store: Store, collection: str | None) -> str | None:
    if collection is None:
        return None
    found = await store.collections.find(collection)
    return found.id if found else None


async def _record(
    store: Store,
    call: Proposal,
    *,
    context: GateContext,
    decision: Decision,
    chat_event_id: str | None,
    collection_id: str | None,
) -> ToolCallRecord:
    record = await store.tool_calls.record(
        Proposed(
            tool=call.name,
            arguments=call.arguments,
            origin=context.origin,
            untrusted_context=context.untrusted_context,
            decision=decision.decision,
            rule_id=decision.rule_id,
            reason=decision.reason,
            chat_event_id=chat_event_id,
            collection_id=collection_id,
        )
    )
    _log("tool_call_proposed", record)
    return record


def _log(event: str, record: ToolCallRecord) -> None:
    """One JSON line per step (the CLI's and the host's log files), redacted and bounded."""
    line = {
        "event": event,
        "id": record.id,
        "tool": record.tool[:200],
        "decision": record.decision,
        "rule_id": record.rule_id,
        "status": record.status,
        "origin": record.origin,
        "untrusted_context": record.untrusted_context,
        "reason": record.reason[:300],
    }
    log.info(json.dumps(redact_value(line), ensure_ascii=False))
