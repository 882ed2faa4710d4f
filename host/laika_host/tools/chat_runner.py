"""The tool calls of one chat turn, through the Policy Gate: propose, wait for the user or
the extension when the gate or the tool needs them, and keep each call's last state as a
`tool_call` event (the shape the native protocol streams and `laika ask --json` prints).

Every proposal is recorded by the gate (`gate.propose`), whatever it comes to. `allow` runs
a host tool at once; `ask` waits: in the native host for `tool.decide` (up to 300 s, then it
is denied with "no answer"), in a terminal for a y/N prompt, and elsewhere it stays pending
(`laika approvals approve ID` runs it later) while the model is told it waits; `deny` runs
nothing. A browser tool is forwarded to the extension and waits for `tool.result` (30 s);
without an extension (the CLI) it fails with an error the model reads. A host that cancels
the chat denies what still waits.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..errors import LaikaError
from ..store import Store
from ..store.errors import ConflictError
from ..store.tool_calls import ToolCallRecord
from .fields import field_kind
from .gate import CallOutcome, Remember, decide, propose, record_result, refuse
from .policy import FieldKind, GateContext, Proposal
from .registry import REGISTRY, ExecuteOptions, Family
from .turn import CallReport, ProposedCall, TurnFacts
from .waiting import PROCESS, Waiting, approval_timeout, forward_timeout

log = logging.getLogger("laika.tools")

BROWSER_ONLY = "browser tools run only from the browser extension"
NO_ANSWER = "no answer"
EXTENSION_SILENT = "the extension did not answer"
CANCELLED = "the chat was cancelled"
CHAT_ENDED = "the chat that proposed it has ended: ask again in the chat"
FORCED_MARK = "but untrusted page content is in this turn's context"
"""How the gate's reason says an `allow` became `ask` (`policy._with_override`)."""
MAX_HANDLES = 5_000
Confirm = Callable[[dict[str, Any]], bool]


def offered_tools(*, extension: bool, family: Family = "llmcp") -> list[str]:
    """The registry's tools of one family a model may be offered: those whose shipped
    default for a model's proposal is not `deny`, and browser tools only where an extension
    runs them. A chat offers the LLMCP family; the settings flow, the settings family."""
    from .policy import decide as gate_decide

    return [
        name
        for name, tool in REGISTRY.items()
        if tool.family == family
        and (extension or tool.runs_in == "host")
        and gate_decide(Proposal(name=name), GateContext(origin="model")).decision != "deny"
    ]


@dataclass
class ChatRunner:
    """The `ToolRunner` of one turn. `extension`: a browser extension is on the other end
    (native host): approvals and browser tools wait for it. `confirm`: a terminal prompt for
    approvals where there is no extension (None: they stay pending)."""

    store: Store
    offer: list[str]
    extension: bool = False
    emit: Callable[[dict[str, Any]], None] | None = None
    confirm: Confirm | None = None
    options: ExecuteOptions = field(default_factory=ExecuteOptions)
    waiting: Waiting = field(default_factory=lambda: PROCESS)
    field_kinds: dict[str, FieldKind] = field(default_factory=dict)
    _events: dict[str, dict[str, Any]] = field(default_factory=dict)

    def offered(self) -> list[str]:
        return list(self.offer)

    def reports(self) -> list[dict[str, Any]]:
        return list(self._events.values())

    async def run(self, call: ProposedCall, turn: TurnFacts) -> CallReport:
        outcome = await propose(
            self.store,
            as_proposal(call),
            self._context(turn),
            chat_event_id=turn.chat_event_id,
            session=self.waiting.session,
            options=self.options,
        )
        self._show(outcome, forced_ask=outcome.forced_ask)
        if outcome.approval_id is not None:
            settled = await self._settle(outcome)
            if settled is None:
                return self._report(outcome.call.id)
            outcome = settled
            self._show(outcome)
        if outcome.forward:
            outcome = await self._forward(outcome)
            self._show(outcome)
        self._observed(outcome)
        return self._report(outcome.call.id)

    async def propose(
        self, tool: str, arguments: dict[str, Any], origin: Literal["model", "user"]
    ) -> dict[str, Any]:
        """One call outside a chat (the settings flow, `service.settings`): gated, waited
        for and run as in a chat; its last `tool_call` event."""
        facts = TurnFacts(chat_event_id=None, collection=None, untrusted=False, origin=origin)
        return (await self.run(ProposedCall(tool, arguments), facts)).event

    async def refuse(self, call: ProposedCall, turn: TurnFacts, why: str) -> CallReport:
        outcome = await refuse(
            self.store,
            as_proposal(call),
            self._context(turn),
            rule_id="chat.limit",
            reason=why,
            chat_event_id=turn.chat_event_id,
        )
        self._show(outcome)
        return self._report(outcome.call.id)

    def _context(self, turn: TurnFacts) -> GateContext:
        return GateContext(
            origin=turn.origin,
            untrusted_context=turn.untrusted,
            collection=turn.collection,
            field_kinds=dict(self.field_kinds),
        )

    def _report(self, call_id: str) -> CallReport:
        event = self._events[call_id]
        return CallReport(dict(event), web_text=carries_web_text(event))

    def _show(self, outcome: CallOutcome, *, forced_ask: bool | None = None) -> None:
        """Keep the call's new state and stream it."""
        earlier = self._events.get(outcome.call.id, {})
        forced = bool(earlier.get("forced_ask")) if forced_ask is None else forced_ask
        event = call_event(outcome, forced_ask=forced)
        self._events[outcome.call.id] = event
        if self.emit is not None:
            self.emit(event)

    def _status(self, call_id: str, status: str) -> None:
        """A state the store does not keep (`running`), streamed."""
        event = {**self._events[call_id], "status": status, "approval_id": None}
        self._events[call_id] = event
        if self.emit is not None:
            self.emit(event)

    async def _settle(self, outcome: CallOutcome) -> CallOutcome | None:
        """The user's decision on a pending call, or None when it stays pending."""
        call = outcome.call
        if REGISTRY[call.tool].runs_in == "extension" and not self.extension:
            return await self._deny(call.id, BROWSER_ONLY)
        if self.extension:
            return await self._await_decision(call.id)
        if self.confirm is None:
            return None
        approve = await asyncio.to_thread(self.confirm, self._events[call.id])
        return await self._decide(call.id, approve)

    async def _await_decision(self, call_id: str) -> CallOutcome:
        pending = self.waiting.expect_approval(
            call_id, lambda: self._status(call_id, "running"), self.options
        )
        try:
            return await asyncio.wait_for(asyncio.shield(pending.future), approval_timeout())
        except TimeoutError:
            if self.waiting.claim_approval(call_id) is None:  # a decision is being applied
                return await pending.future
            return await self._deny(call_id, f"{NO_ANSWER} within {approval_timeout():g} s")
        except LaikaError:  # decided elsewhere meanwhile (another window, the CLI)
            return CallOutcome(await self.store.tool_calls.get(call_id))
        except asyncio.CancelledError:
            if self.waiting.claim_approval(call_id) is not None:
                await self._deny(call_id, CANCELLED)
            raise
        finally:
            self.waiting.drop_approval(call_id)

    async def _decide(self, call_id: str, approve: bool) -> CallOutcome:
        try:
            return await decide(
                self.store, call_id, approve, session=self.waiting.session, options=self.options
            )
        except ConflictError:
            return CallOutcome(await self.store.tool_calls.get(call_id))

    async def _deny(self, call_id: str, why: str) -> CallOutcome:
        outcome = await self._decide(call_id, False)
        return replace(outcome, error=why) if outcome.call.status == "denied" else outcome

    async def _forward(self, outcome: CallOutcome) -> CallOutcome:
        """The extension's answer to an approved browser tool (or why there is none)."""
        call_id = outcome.call.id
        if not self.extension:
            return await _fail(self.store, call_id, BROWSER_ONLY)
        future = self.waiting.expect_result(call_id)
        self._show(outcome)  # status `forward`: the extension runs it now
        try:
            return await asyncio.wait_for(asyncio.shield(future), forward_timeout())
        except TimeoutError:
            if self.waiting.claim_result(call_id) is None:
                return await future
            return await _fail(self.store, call_id, EXTENSION_SILENT)
        except asyncio.CancelledError:
            if self.waiting.claim_result(call_id) is not None:
                await _fail(self.store, call_id, CANCELLED)
            raise

    def _observed(self, outcome: CallOutcome) -> None:
        """The field kinds of the latest observation, for the gate's field guard."""
        if outcome.call.tool != "browser.observe_dom" or outcome.call.status != "executed":
            return
        handles = outcome.result.get("handles") if isinstance(outcome.result, dict) else None
        self.field_kinds = handle_kinds(handles)


def carries_web_text(event: dict[str, Any]) -> bool:
    """Whether a call's last state gives the model text that may come from the web: the
    call ran (or failed while running) and its tool is one whose result can hold such text
    (`ToolEntry.web_text`). A call refused, denied or still waiting gives back nothing."""
    tool = REGISTRY.get(str(event.get("tool")))
    return event.get("status") in ("executed", "failed") and (tool is None or tool.web_text)


def handle_kinds(handles: Any) -> dict[str, FieldKind]:
    """Handle id -> field kind, from an observation's `handles` (anything else: none)."""
    if not isinstance(handles, list):
        return {}
    kinds: dict[str, FieldKind] = {}
    for handle in handles[:MAX_HANDLES]:
        if isinstance(handle, dict) and isinstance(handle.get("id"), str):
            texts = {k: _text(handle.get(k)) for k in ("type", "autocomplete", "name", "label")}
            kinds[handle["id"]] = field_kind(**texts)
    return kinds


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def _fail(store: Store, call_id: str, why: str) -> CallOutcome:
    try:
        outcome = await record_result(store, call_id, ok=False, result={"error": why})
    except ConflictError:
        return CallOutcome(await store.tool_calls.get(call_id))
    return replace(outcome, error=why)


def as_proposal(call: ProposedCall) -> Proposal:
    """A proposal the gate can record, whatever the model wrote: a name that is not a
    string, or arguments that are not an object, are kept visibly (and rejected)."""
    name = call.name if isinstance(call.name, str) else json.dumps(call.name, default=str)
    arguments = call.arguments
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        arguments = {"(not an object)": arguments}
    return Proposal(name=name[:200] or "(no name)", arguments=arguments)


def call_event(outcome: CallOutcome, *, forced_ask: bool | None = None) -> dict[str, Any]:
    """The `tool_call` event of a call's current state (arguments and result as stored:
    redacted and bounded)."""
    from ..settings.wording import call_summary

    record = outcome.call
    status = "forward" if outcome.forward else record.status
    return {
        "call_id": record.id,
        "tool": record.tool,
        "summary": call_summary(record.tool, record.arguments),
        "arguments": record.arguments,
        "decision": record.decision,
        "rule_id": record.rule_id,
        "reason": record.reason,
        "forced_ask": forced(record) if forced_ask is None else forced_ask,
        "status": status,
        "approval_id": record.id if status == "pending" else None,
        "forward": status == "forward",
        "result": record.result if status == "executed" else None,
        "error": outcome.error or (_error_of(record.result) if status == "failed" else None),
    }


def forced(record: ToolCallRecord) -> bool:
    """Whether the record's `ask` was an `allow` turned into `ask` by untrusted content."""
    return record.decision == "ask" and FORCED_MARK in record.reason


def _error_of(result: Any) -> str | None:
    if isinstance(result, dict) and isinstance(result.get("error"), str):
        return str(result["error"])
    return None


async def decide_call(
    store: Store, approval_id: str, approve: bool, remember: Remember = "once"
) -> dict[str, Any]:
    """`tool.decide`: settle a pending call, of a chat running in this process (which then
    goes on with it) or a stored one; the call's event after the decision."""
    pending = PROCESS.claim_approval(approval_id)
    if pending is None and PROCESS.deciding(approval_id):
        raise ConflictError(f"tool call {approval_id[:100]} is being decided already")
    if pending is None:
        outcome = await decide(
            store, approval_id, approve, remember=remember, session=PROCESS.session, asker="panel"
        )
        if outcome.forward:  # no chat waits to hand it to the extension
            outcome = await _fail(store, approval_id, CHAT_ENDED)
        return call_event(outcome)
    try:
        if approve and REGISTRY[(await store.tool_calls.get(approval_id)).tool].runs_in == "host":
            pending.running()
        outcome = await decide(
            store,
            approval_id,
            approve,
            remember=remember,
            session=PROCESS.session,
            options=pending.options,
        )
    except BaseException as error:
        pending.future.set_exception(error)
        raise
    pending.future.set_result(outcome)
    # an approved browser tool is handed to the extension by the chat's own `forward` event
    # (sent once the chat waits for its result), never by this reply
    return call_event(replace(outcome, forward=False))


async def record_forwarded(
    store: Store, call_id: str, *, ok: bool, result: Any, error: str | None
) -> None:
    """`tool.result`: the extension's answer for a forwarded call a chat waits for."""
    future = PROCESS.claim_result(call_id)
    if future is None:
        raise ConflictError(
            f"tool call {call_id[:100]} is not waiting for a result: it was answered, timed "
            "out, or never forwarded"
        )
    try:
        kept = result if ok else {"error": error or "the browser tool failed"}
        outcome = await record_result(store, call_id, ok=ok, result=kept)
    except BaseException as failure:
        future.set_exception(failure)
        raise
    future.set_result(outcome if ok else replace(outcome, error=error or outcome.error))
