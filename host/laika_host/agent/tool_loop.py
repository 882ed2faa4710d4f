"""The tool loop of a chat turn: the model's proposals go to the turn's tool runner (the
Policy Gate, `tools.chat_runner`), their outcomes go back to the model as one tool message,
and the model answers again, for at most `MAX_TOOL_ROUNDS` rounds; then its answer is final.

Every proposal the reply holds is handed on, the valid ones and those the parser dropped as
unknown or malformed alike, so that the gate rejects and records each (nothing is silently
lost, nothing invalid runs). Past the round limit, or past `MAX_CALLS_PER_ROUND` in one reply,
proposals are recorded as refused and not run. The offline runtime has no model: its reading
of the user's words (`intent`) proposes a call or declines, and the outcome is its answer.

The turn is untrusted from its start when web content is packed into its context, and from
the round after a tool gave the model text that may come from the web (a page observed, a
search of saved pages, a capture: `CallReport.web_text`): the model read it before it
proposed again, so what it proposes next is gated as made under untrusted content (an `allow`
becomes `ask`), and the results are marked `trust: "untrusted"` in the tool message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

from ..llm.contract import ChatMessage
from ..tools.turn import CallReport, ProposedCall, ToolRunner, TurnFacts, tool_message

__all__ = ["ProposedCall", "converse", "offline_turn", "proposals"]
from .intent import Decline, decline_answer, read_intent
from .parse import MAX_TOOL_CALLS, ParsedResponse

MAX_TOOL_ROUNDS = 4
MAX_CALLS_PER_ROUND = 8
MAX_RECORDED_PER_ROUND = MAX_TOOL_CALLS
"""Proposals of one reply recorded at all (the parser reads no more; it counts the rest)."""
MAX_SHOWN_RESULT = 1_500

A = TypeVar("A")
Ask = Callable[[list[ChatMessage]], Awaitable[tuple[str, A, list[ProposedCall]]]]
"""One model call: the messages in; the reply's text, its answer and its proposals out."""


def proposals(parsed: ParsedResponse | None) -> list[ProposedCall]:
    """The reply's tool calls in the order it wrote them: the valid ones and those the
    parser dropped (each keeps its place, from its path `tool_calls[i]`)."""
    if parsed is None:
        return []
    kept = iter(
        ProposedCall(call.name, _arguments_of(call.model_dump(mode="json", by_alias=True)))
        for call in parsed.tool_calls
    )
    lost: dict[int, ProposedCall] = {}
    for dropped in parsed.dropped:
        place = _PLACE.fullmatch(dropped.path)
        if dropped.what == "tool_call" and place:
            value = dropped.value
            named = isinstance(value, dict)
            call = ProposedCall(value.get("name"), value.get("arguments")) if named else None
            lost[int(place.group(1))] = call or ProposedCall(value)
        elif dropped.what == "tool_calls":
            lost[len(lost)] = ProposedCall("(tool_calls)", dropped.value)
    found = []
    for index in range(len(parsed.tool_calls) + len(lost)):
        call = lost.pop(index, None) or next(kept, None)
        if call is not None:
            found.append(call)
    return found + list(kept) + [lost[index] for index in sorted(lost)]


_PLACE = re.compile(r"tool_calls\[(\d{1,6})\]")


def _arguments_of(dump: dict[str, Any]) -> Any:
    return dump.get("arguments", {})


async def converse(
    messages: list[ChatMessage],
    ask: Ask[A],
    runner: ToolRunner | None,
    facts: TurnFacts,
    *,
    between: Callable[[], None] | None = None,
) -> tuple[A, list[str]]:
    """Ask the model, run its proposals, tell it the outcomes, and ask again until it
    proposes nothing or the rounds are used up; the last answer and the loop's notes."""
    messages = list(messages)
    notes: list[str] = []
    for round_number in range(MAX_TOOL_ROUNDS + 1):
        text, answer, calls = await ask(messages)
        if runner is None or not calls:
            return answer, notes
        last = round_number == MAX_TOOL_ROUNDS
        reports, note = await run_round(runner, calls, facts, last=last)
        notes += note
        if last:
            return answer, notes
        if any(report.web_text for report in reports):  # the model reads them next
            facts = replace(facts, untrusted=True)
        messages += [
            ChatMessage(role="assistant", content=text),
            ChatMessage(role="user", content=tool_message(reports)),
        ]
        if between is not None:
            between()
    raise AssertionError("unreachable: the last round returns")


async def run_round(
    runner: ToolRunner, calls: list[ProposedCall], facts: TurnFacts, *, last: bool
) -> tuple[list[CallReport], list[str]]:
    """Each proposal of one reply through the runner (refused past the limits)."""
    reports = []
    notes = []
    for index, call in enumerate(calls[:MAX_RECORDED_PER_ROUND]):
        if last:
            why = f"the chat allows {MAX_TOOL_ROUNDS} rounds of tool calls per question"
            reports.append(await runner.refuse(call, facts, why))
        elif index >= MAX_CALLS_PER_ROUND:
            why = f"the chat runs at most {MAX_CALLS_PER_ROUND} tool calls per reply"
            reports.append(await runner.refuse(call, facts, why))
        else:
            reports.append(await runner.run(call, facts))
    if last:
        notes.append(f"the model still proposed tools after {MAX_TOOL_ROUNDS} rounds: not run")
    if len(calls) > MAX_RECORDED_PER_ROUND:
        skipped = len(calls) - MAX_RECORDED_PER_ROUND
        notes.append(f"{skipped} more tool call(s) in one reply were ignored (not run)")
    return reports, notes


async def offline_turn(
    question: str, runner: ToolRunner, facts: TurnFacts
) -> tuple[str, bool] | None:
    """The offline runtime's answer to a request for an action: (Markdown, declined), or
    None when the question is not one (the grounded answer follows)."""
    offered = runner.offered()
    intent = read_intent(question, offered)
    if intent is None:
        return None
    if isinstance(intent, Decline):
        return decline_answer(intent, offered), True
    own_words = replace(facts, origin="user", untrusted=False)  # read from the question alone
    report = await runner.run(ProposedCall(intent.name, intent.arguments), own_words)
    return describe(report), False


def describe(report: CallReport) -> str:
    """One call's outcome as an answer's Markdown."""
    event = report.event
    tool = event.get("tool")
    status = report.status
    if status == "executed":
        return f"Ran `{tool}`: {_shown_result(event)}"
    if status == "pending":
        return (
            f"`{tool}` waits for your approval ({event.get('reason')}); nothing has run yet. "
            "Approve it in the side panel or with "
            f"`laika approvals approve {event.get('call_id')}`."
        )
    if status == "denied":
        return f"`{tool}` was not run: {event.get('error') or event.get('reason')}."
    return f"`{tool}` failed: {event.get('error') or status}."


def _shown_result(event: dict[str, Any]) -> str:
    result = event.get("result")
    arguments = event.get("arguments")
    if event.get("tool") == "app.calculate" and isinstance(result, dict) and "value" in result:
        expression = arguments.get("expression", "") if isinstance(arguments, dict) else ""
        return f"`{expression}` = **{result['value']}**"
    text = json.dumps(result, ensure_ascii=False, default=str)
    if len(text) > MAX_SHOWN_RESULT:
        text = text[:MAX_SHOWN_RESULT] + " …"
    return f"\n\n```json\n{text}\n```"
