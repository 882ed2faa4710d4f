"""`laika settings "TEXT"`: change a setting in your own words, through a curated settings
tool and the Policy Gate."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from ._output import echo, print_json
from ._store import json_option, run_with_store
from .tools import EXIT_DENIED, EXIT_FAILED, EXIT_PENDING

if TYPE_CHECKING:
    from ..service.settings import SettingsReply
    from ..store import Store

EXIT_DECLINED = 5
"""No settings tool does what was asked; the reply lists what can be changed."""
EXIT_STATUS = {
    "applied": 0,
    "pending": EXIT_PENDING,
    "denied": EXIT_DENIED,
    "failed": EXIT_FAILED,
    "declined": EXIT_DECLINED,
}


def _text(_context: click.Context, _param: click.Parameter, value: str) -> str:
    from ..service.settings import check_text
    from ..store import InvalidInputError

    try:
        return check_text(value)
    except InvalidInputError as error:
        raise click.BadParameter(str(error)) from None


@click.command()
@click.argument("text", callback=_text)
@click.option(
    "--provider",
    "provider_id",
    default=None,
    help="A configured provider id that chooses the tool, or `offline` for the built-in "
    "matcher (the default when no provider is configured).",
)
@click.option("--yes", "-y", is_flag=True, help="Approve the change without asking.")
@json_option
def settings(text: str, provider_id: str | None, yes: bool, as_json: bool) -> None:
    """Change a setting as you would say it: `laika settings "use dark mode"`.

    A model (or, offline, a built-in matcher that reads numbers as you write them, "50k" or
    "fifty thousand", and small typos) picks one settings tool; anything no tool does
    (turning off the Policy Gate, deleting data) is declined naming the closest things that
    can be changed, and a request it cannot tell ("change the theme") is asked back. The
    answer is in sentences; --json prints the data. The change goes through the Policy
    Gate: a terminal asks y/N, --yes
    approves, and otherwise it stays pending (`laika approvals approve ID` applies it). A
    request that holds or says a secret ("remember my password is ...") is refused before
    anything reads it: Laika never stores secrets in settings.

    Exit status: 0 applied (or shown), 1 failed, 2 refused (a secret, or a usage error),
    3 pending, 4 denied, 5 declined.
    """
    from ..service.models import ProviderChoice
    from ..service.settings import ask

    def work(store: Store) -> Any:
        runner = settings_runner(store, yes=yes, prompt=not as_json and _can_prompt())
        return ask(store, text, provider=ProviderChoice(provider_id), runner=runner)

    reply: SettingsReply = run_with_store(work)
    shown = reply.to_json()
    if as_json:
        print_json(shown)
    else:
        _print(shown)
    sys.exit(EXIT_STATUS[reply.status])


def settings_runner(store: Store, *, yes: bool, prompt: bool) -> Any:
    """The gate for the command's one proposal: the settings family only, asked y/N on a
    terminal, approved by --yes, else left pending."""
    from ..tools.chat_runner import ChatRunner, offered_tools
    from ..tools.registry import ExecuteOptions

    confirm = _approve if yes else (_confirm if prompt else None)
    return ChatRunner(
        store,
        offered_tools(extension=False, family="settings"),
        confirm=confirm,
        options=ExecuteOptions(who="cli"),
    )


def _can_prompt() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


def _approve(_event: dict[str, Any]) -> bool:
    return True


def _confirm(event: dict[str, Any]) -> bool:
    from ..settings.wording import describe_call

    echo(f"\n{describe_call(event['tool'], event['arguments'])}?", err=True)
    echo(f"  (Laika asks first: {event['reason']}.)", err=True)
    return click.confirm("  Apply it?", default=False, err=True)


def _print(reply: dict[str, Any]) -> None:
    """The reply in sentences (`--json` prints the data)."""
    for note in reply["notes"]:
        echo(f"note: {note}", err=True)
    echo(reply["message"])
    for line in reply["details"]:
        echo(f"  {line}")
    if reply["status"] == "pending":
        echo(f"approve: laika approvals approve {reply['approval_id']}")
    if reply["change"]:
        commit = reply["change"]["commit"][:12]
        echo(f"(settings version {reply['change']['version']}; undo: laika config revert {commit})")
