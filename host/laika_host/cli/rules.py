"""`laika rules list|add|delete|test`: the user's event rules (`events.rules` in the
settings registry), each write a commit made by the `rules.*` tools' orchestration."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, get_args

import click

from ..config.schema import Trigger
from ._output import echo, print_json
from ._store import json_option, run_with_store, shorten, table

CONDITION_KEYS = ("domain", "collection", "contains", "fields", "signals")
LIST_KEYS = ("domain", "collection", "fields", "signals")
"""`--if` keys that may repeat (any of the values holds); `contains` takes one."""
SHOWN_WIDTH = 60


@click.group()
def rules() -> None:
    """Event rules: when something happens (a page captured, an artifact completed, ...) and
    the conditions hold, run tools through the Policy Gate. Deterministic: no model runs.

    One command sets off at most 50 rule actions in all (chains stop at depth 3); past
    that, rule actions wait in `laika approvals` and a warning names the rules cut."""


@rules.command("list")
@json_option
def list_(as_json: bool) -> None:
    """The rules, in the order they run."""
    from ..service import rules as service

    found = service.list_rules()
    if as_json:
        print_json({"rules": [rule.model_dump(mode="json") for rule in found]})
        return
    rows = [
        [
            rule.id,
            rule.trigger,
            shorten(json.dumps(rule.model_dump(mode="json")["conditions"]), SHOWN_WIDTH),
            ", ".join(action.tool for action in rule.actions),
            "" if rule.enabled else "disabled",
        ]
        for rule in found
    ]
    echo(table(rows, ["ID", "ON", "IF", "DO", ""]) if rows else "no event rules yet")


@rules.command("add")
@click.argument("rule_id", metavar="[ID]", required=False)
@click.option("--on", "trigger", type=click.Choice(get_args(Trigger)), help="The trigger.")
@click.option(
    "--if",
    "conditions",
    multiple=True,
    metavar="KEY=VALUE",
    help="A condition (all must hold): domain=, collection=, contains=, signals=, fields=. "
    "domain, collection, signals and fields may repeat (any value holds).",
)
@click.option(
    "--do",
    "actions",
    multiple=True,
    metavar="'TOOL KEY=VALUE ...'",
    help="An action, in order: a tool and its arguments; a VALUE is JSON when it parses, "
    "else text, and may hold $event.<field>.",
)
@click.option(
    "--from",
    "json_file",
    metavar="FILE|-",
    help="The whole rule as a JSON file ({id?, trigger, conditions, actions}), `-` for "
    "standard input; for all/any/not. Options given as well override its fields.",
)
@json_option
def add(
    rule_id: str | None,
    trigger: str | None,
    conditions: tuple[str, ...],
    actions: tuple[str, ...],
    json_file: str | None,
    as_json: bool,
) -> None:
    """Add a rule (checked first: each action's tool must exist and its arguments validate).

    \b
    laika rules add research --on source.captured \\
      --if domain=example.org --if collection=Inbox \\
      --do 'collection.add_sources collectionId=Research
            sources=[{"type": "url", "url": "$event.url"}]' \\
      --do 'transform.run collectionId=Research type=key-takeaways'
    """
    from ..service import rules as service

    data = _from_json(json_file) if json_file else {}
    if rule_id:
        data["id"] = rule_id
    if trigger:
        data["trigger"] = trigger
    if conditions:
        data["conditions"] = parse_conditions(conditions)
    if actions:
        data["actions"] = [parse_action(action) for action in actions]
    if "trigger" not in data or not data.get("actions"):
        raise click.UsageError("give --on TRIGGER and at least one --do ACTION (or --from FILE)")
    rule, change = service.add(data, who="cli")
    if as_json:
        print_json({"rule": rule.model_dump(mode="json"), "change": change.to_json()})
        return
    echo(f"added rule {rule.id} (version {change.version}, commit {change.commit[:12]})")


@rules.command("delete")
@click.argument("rule_id", metavar="ID")
def delete(rule_id: str) -> None:
    """Delete the rule ID."""
    from ..service import rules as service

    rule, change = service.delete(rule_id, who="cli")
    echo(f"deleted rule {rule.id} (version {change.version}, commit {change.commit[:12]})")


@rules.command("test")
@click.argument("rule_id", metavar="ID")
@click.option(
    "--event",
    "event_json",
    metavar="JSON",
    help="The event's payload (a JSON object); default: a sample event of the trigger.",
)
@json_option
def test(rule_id: str, event_json: str | None, as_json: bool) -> None:
    """Dry run: does rule ID match the event, the actions with $event.* substituted, and the
    gate's decision for each. Nothing is run or recorded."""
    from ..service import rules as service

    payload = _payload(event_json) if event_json is not None else None
    run = run_with_store(lambda store: service.test(store, rule_id, payload))
    if as_json:
        print_json(run.to_json())
        return
    echo(f"rule {run.rule_id}: {'matches' if run.matched else 'does not match'} the event")
    if run.skipped:
        echo(f"not run: {run.skipped}")
    for number, action in enumerate(run.actions, start=1):
        echo(f"{number}. {action.tool} {json.dumps(action.arguments, ensure_ascii=False)}")
        if action.decision is not None:
            decision = action.decision
            echo(f"   gate: {decision.decision} ({decision.rule_id}: {decision.reason})")
        if action.error:
            echo(f"   refused: {action.error}")
    echo("nothing was run (dry run)")


def parse_conditions(items: tuple[str, ...]) -> dict[str, Any]:
    """`--if KEY=VALUE` options as a condition (every key must hold)."""
    condition: dict[str, Any] = {}
    for item in items:
        key, value = _pair(item, "--if")
        if key not in CONDITION_KEYS:
            raise click.BadParameter(
                f"{key!r}: a condition is one of {', '.join(CONDITION_KEYS)} "
                "(use --from FILE for all/any/not)",
                param_hint="--if",
            )
        if key in LIST_KEYS:
            condition.setdefault(key, []).append(value)
        elif key in condition:
            raise click.BadParameter(f"{key} given twice", param_hint="--if")
        else:
            condition[key] = value
    return condition


def parse_action(text: str) -> dict[str, Any]:
    """`TOOL KEY=VALUE ...` as `{tool, params}`. A word starting `KEY=` begins an argument;
    the words after it, up to the next, belong to its value (joined by one space), so
    `title=$event.title notes` and JSON with spaces need no quoting. A VALUE is JSON when it
    parses, else text."""
    from ..service.config import parse_value

    words = text.split()
    if not words:
        raise click.BadParameter("an action needs a tool name", param_hint="--do")
    pieces: list[list[str]] = []
    for word in words[1:]:
        if _starts_argument(word) or not pieces:
            pieces.append([word])
        else:
            pieces[-1].append(word)
    params = {}
    for piece in pieces:
        key, value = _pair(" ".join(piece), "--do")
        params[key] = parse_value(value)
    return {"tool": words[0], "params": params}


def _starts_argument(word: str) -> bool:
    key, sep, _value = word.partition("=")
    return bool(sep) and key.isidentifier()


def _pair(item: str, option: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise click.BadParameter(f"{item[:80]!r}: write KEY=VALUE", param_hint=option)
    return key.strip(), value


def _from_json(source: str) -> dict[str, Any]:
    from ..strict_json import NotJsonError, loads_strict

    raw = sys.stdin.read() if source == "-" else _read(source)
    try:
        data = loads_strict(raw)
    except NotJsonError as error:
        raise click.BadParameter(f"{source}: {error}", param_hint="--from") from None
    if not isinstance(data, dict):
        raise click.BadParameter(f"{source}: give one JSON object (a rule)", param_hint="--from")
    return data


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise click.BadParameter(f"{path}: {error.strerror}", param_hint="--from") from None


def _payload(text: str) -> dict[str, Any]:
    from ..strict_json import NotJsonError, loads_strict

    try:
        data = loads_strict(text)
    except NotJsonError as error:
        raise click.BadParameter(str(error), param_hint="--event") from None
    if not isinstance(data, dict):
        raise click.BadParameter("give a JSON object", param_hint="--event")
    return data
