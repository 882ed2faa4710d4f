"""`laika approvals ...`: tool calls waiting for the user, approved or denied here, and the
decisions remembered always (revocable)."""

from __future__ import annotations

import click

from ._output import echo, print_json
from ._store import json_option, run_with_store, table

REMEMBER = click.Choice(["once", "session", "always"])


@click.group()
def approvals() -> None:
    """Tool calls the Policy Gate asked you about, and decisions you asked it to remember."""


@approvals.command("list")
@json_option
def list_pending(as_json: bool) -> None:
    """List the calls waiting for approval, newest first."""
    from ..tools.gate import list_pending as pending

    found = run_with_store(pending)
    if as_json:
        print_json({"pending": [record.to_json() for record in found]})
        return
    if not found:
        echo("nothing waits for approval")
        return
    from ..settings.wording import call_summary

    rows = [
        [r.id, call_summary(r.tool, r.arguments) or r.tool, r.origin, r.created_at] for r in found
    ]
    echo(table(rows, ["ID", "WHAT", "ASKED BY", "PROPOSED"]))
    echo("approve one: laika approvals approve ID (deny: laika approvals deny ID)")


def _decide(approval_id: str, approve: bool, remember: str, as_json: bool) -> None:
    from ..tools.gate import decide
    from .tools import report

    outcome = run_with_store(
        lambda store: decide(store, approval_id, approve, remember=remember)  # type: ignore[arg-type]
    )
    report(outcome, as_json=as_json)


@approvals.command("approve")
@click.argument("approval_id")
@click.option(
    "--remember",
    type=REMEMBER,
    default="once",
    show_default=True,
    help="Also allow this tool from now on: for this command (session) or always.",
)
@json_option
def approve(approval_id: str, remember: str, as_json: bool) -> None:
    """Approve the pending call APPROVAL_ID and run it (exit status as `laika tools call`)."""
    _decide(approval_id, True, remember, as_json)


@approvals.command("deny")
@click.argument("approval_id")
@click.option(
    "--remember",
    type=REMEMBER,
    default="once",
    show_default=True,
    help="Also deny this tool from now on: for this command (session) or always.",
)
@json_option
def deny(approval_id: str, remember: str, as_json: bool) -> None:
    """Deny the pending call APPROVAL_ID: nothing runs (exit status 4)."""
    _decide(approval_id, False, remember, as_json)


@approvals.command("rules")
@json_option
def rules(as_json: bool) -> None:
    """List the decisions remembered always."""
    from ..tools.gate import list_remembered

    found = run_with_store(list_remembered)
    if as_json:
        print_json({"remembered": [rule.to_json() for rule in found]})
        return
    if not found:
        echo("no remembered decisions")
        return
    echo(
        table(
            [[r.id, r.tool, r.decision, r.created_at] for r in found],
            ["ID", "TOOL", "DECISION", "SINCE"],
        )
    )


@approvals.command("forget")
@click.argument("rule_id")
def forget(rule_id: str) -> None:
    """Revoke the remembered decision RULE_ID (`laika approvals rules` lists them)."""
    from ..tools.gate import forget as forget_rule

    forgotten = run_with_store(lambda store: forget_rule(store, rule_id))
    echo(f"forgot: {forgotten.decision} {forgotten.tool}")
