"""`laika tools list|call`: the tool registry, and one tool call through the Policy Gate.

`call` runs a call as if the user had asked for it in their own words (origin `user`, no
untrusted content in context), so it is gated exactly like one from the chat, minus the
untrusted-content override: for debugging a tool and for its tests.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ._output import echo, print_json
from ._store import json_option, run_with_store

EXIT_DENIED = 4
"""`laika tools call` (and `approvals approve`): the gate denied the call, nothing ran."""
EXIT_PENDING = 3
"""`laika tools call`: the call waits for approval (`laika approvals approve ID`)."""
EXIT_FAILED = 1
"""The call ran and failed; its error is printed."""


@click.group()
def tools() -> None:
    """The tools a model may propose (the LLMCP family in chat, the settings family in
    `laika settings`), and each one's gate default."""


@tools.command("list")
@json_option
def list_tools(as_json: bool) -> None:
    """List every tool: name, risk, where it runs, family, default decision, description."""
    from ..tools.catalog import tool_listing

    listed = tool_listing()
    if as_json:
        print_json(listed)
        return
    for tool in listed["tools"]:
        where, family = tool["runs_in"], tool["family"]
        echo(
            f"{tool['name']:<30} {tool['risk']:<12} {where:<10} {family:<9} "
            f"{tool['default_decision']:<6}"
        )
        echo(f"    {tool['description']}")


@tools.command("call")
@click.argument("name")
@click.argument("arguments", default="{}")
@json_option
def call(name: str, arguments: str, as_json: bool) -> None:
    """Run one call of tool NAME with ARGUMENTS (a JSON object) through the gate.

    Exit status: 0 when it ran (or, for a browser tool, was approved to run in the
    extension), 1 when it ran and failed, 3 when it waits for approval (its approval id is
    printed; `laika approvals approve ID` runs it), 4 when the gate denied it.
    """
    from ..strict_json import loads_strict
    from ..tools.gate import CallOutcome, decide, propose
    from ..tools.policy import GateContext, Proposal

    parsed = loads_strict(arguments)
    if not isinstance(parsed, dict):
        raise click.BadParameter("give the arguments as one JSON object", param_hint="ARGUMENTS")
    proposal = Proposal(name=name, arguments=parsed)

    async def work(store: Any) -> CallOutcome:
        outcome = await propose(store, proposal, GateContext(origin="user"))
        if outcome.approval_id is not None and _can_prompt():
            echo(f"{name} with these arguments:")
            print_json(outcome.call.arguments)
            approve = click.confirm(f"run it? ({outcome.call.reason})", default=False)
            outcome = await decide(store, outcome.approval_id, approve)
        return outcome

    report(run_with_store(work), as_json=as_json)


def _can_prompt() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def report(outcome: Any, *, as_json: bool) -> None:
    """Print a call's outcome and exit with its status (see `call`)."""
    from ..settings.wording import call_summary

    record = outcome.call
    what = call_summary(record.tool, record.arguments) or record.tool
    summary = outcome.result.get("summary") if isinstance(outcome.result, dict) else None
    if as_json:
        print_json(outcome.to_json())
    elif outcome.approval_id is not None:
        echo(f"waiting for approval: {what} ({record.reason})")
        echo(f"approve: laika approvals approve {outcome.approval_id}")
    elif record.status == "denied":
        echo(f"denied by {record.rule_id}: {record.reason}", err=True)
    elif outcome.forward:
        echo(f"approved: {record.tool} runs in the browser extension ({record.id})")
    elif outcome.error is not None:
        echo(f"{what} failed: {outcome.error}", err=True)
    elif isinstance(summary, str):  # a settings tool says what it did in sentences
        echo(summary)
    else:
        print_json(outcome.result)
    sys.exit(_status(outcome))


def _status(outcome: Any) -> int:
    if outcome.approval_id is not None:
        return EXIT_PENDING
    if outcome.call.status == "denied":
        return EXIT_DENIED
    return EXIT_FAILED if outcome.error is not None else 0
