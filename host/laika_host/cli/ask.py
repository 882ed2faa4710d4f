"""`laika ask` and `laika summarize`: grounded answers with verified citations."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..defaults import DEFAULT_COLLECTION, DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS
from ..llm.config import CONTEXT_FORMATS
from ._output import echo, print_json
from ._store import allow_private_option, json_option, run_with_store

if TYPE_CHECKING:
    from ..agent.flows import Answer
    from ..llm.config import ProviderConfig
    from ..store import Store

T = TypeVar("T")

provider_options = [
    click.option(
        "--provider",
        "provider_id",
        default=None,
        help="A configured provider id, or `offline` for the built-in runtime (the default "
        "when none is configured).",
    ),
    click.option("--model", default=None, help="Override the model for this call."),
    click.option("--base-url", default=None, help="Override the base URL for this call."),
    click.option("--api-key-env", default=None, help="Override the key's variable name."),
    click.option(
        "--kind",
        default=None,
        help="Provider kind for an unconfigured --base-url (e.g. openai_compatible).",
    ),
]


def with_provider_options(command: Any) -> Any:
    for option in reversed(provider_options):
        command = option(command)
    return command


def choose_provider(
    provider_id: str | None,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    kind: str | None,
) -> ProviderConfig | None:
    """The provider for this call (None = offline); an unknown one exits 1 with the fix."""
    from ..service.models import ProviderChoice, resolve

    choice = ProviderChoice(provider_id, model, base_url, api_key_env, kind)
    return resolve(choice)


def _answered(work: Callable[[Store], Awaitable[Answer]]) -> Answer:
    """Run an answering operation on the store (a provider that cannot be chosen exits 1)."""
    return run_with_store(work)


def _question(_context: click.Context, _param: click.Parameter, value: str) -> str:
    from ..service.ask import check_question
    from ..store import InvalidInputError

    try:
        return check_question(value)
    except InvalidInputError as error:
        raise click.BadParameter(str(error)) from None


collection_option = click.option(
    "--collection", "-c", default=DEFAULT_COLLECTION, show_default=True
)
max_tokens_option = click.option(
    "--max-tokens",
    type=click.IntRange(MIN_MAX_TOKENS, MAX_MAX_TOKENS),
    default=DEFAULT_MAX_TOKENS,
    show_default=True,
)


no_tools_option = click.option(
    "--no-tools",
    is_flag=True,
    help="Offer the model no tools (the prompt is as before tools existed).",
)


context_format_option = click.option(
    "--context-format",
    type=click.Choice(CONTEXT_FORMATS),
    default=None,
    help="How the sources and the reply travel for this call: LLMCP JSON, or compact LLMX "
    "(more source text in a small context window; no tools). Default: the provider's "
    "`context_format` setting (json).",
)


fallback_option = click.option(
    "--no-fallback",
    is_flag=True,
    help="When the default provider does not answer, fail (exit 1) instead of answering "
    "with the offline runtime.",
)


@click.command()
@click.argument("question", callback=_question)
@collection_option
@max_tokens_option
@with_provider_options
@fallback_option
@no_tools_option
@context_format_option
@click.option(
    "--source",
    "only",
    multiple=True,
    metavar="ID",
    help="Read only this source (repeat for several; `laika sources list` shows the ids).",
)
@click.option(
    "--skip-source", "skip", multiple=True, metavar="ID", help="Leave this source out (repeat)."
)
@json_option
def ask(
    question: str,
    collection: str,
    max_tokens: int,
    provider_id: str | None,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    kind: str | None,
    no_fallback: bool,
    no_tools: bool,
    context_format: str | None,
    only: tuple[str, ...],
    skip: tuple[str, ...],
    as_json: bool,
) -> None:
    """Ask a question over a collection; the answer's citations are checked against the
    stored text of the sources (verified or flagged). --source and --skip-source choose
    which of its sources the answer reads.

    On a terminal the answer streams as the model writes it; piped, or with --json, only the
    checked answer is printed. When the default provider does not answer, one line on stderr
    says so and the offline runtime answers instead (labelled), unless --no-fallback.

    The model may propose tools (`laika tools list`; not with --no-tools); each proposal goes
    through the Policy Gate and is printed with its decision. A call that asks waits for a
    y/N on a terminal; otherwise it stays pending (`laika approvals approve ID` runs it).
    Browser tools run only from the browser extension.
    """
    from ..service.ask import AskOptions, SourceChoice
    from ..service.ask import ask as ask_service
    from ..service.models import ProviderChoice

    stream = _Stream.for_output(as_json=as_json)
    provider = ProviderChoice(provider_id, model, base_url, api_key_env, kind, context_format)

    async def work(store: Store) -> Answer:
        options = AskOptions(
            collection=collection,
            provider=provider,
            max_tokens=max_tokens,
            fallback=not no_fallback,
            on_delta=stream.on_delta,
            tools=None if no_tools else cli_runner(store, provider, collection, as_json=as_json),
            sources=SourceChoice(only, skip),
        )
        return await ask_service(store, question, options)

    answer = _answered(work)
    _finish(answer.to_json(), as_json=as_json, streamed=stream.text)


def cli_runner(store: Store, provider: Any, collection: str, *, as_json: bool) -> Any:
    """The Policy Gate for a command's turn: host tools only; a pending call is asked on a
    terminal (y/N), else left pending."""
    from ..tools.chat_runner import ChatRunner, offered_tools
    from ..tools.registry import ExecuteOptions

    prompt = not as_json and sys.stdin.isatty() and sys.stderr.isatty()
    return ChatRunner(
        store,
        offered_tools(extension=False),
        confirm=_confirm if prompt else None,
        options=ExecuteOptions(provider=provider, collection=collection),
    )


def _confirm(event: dict[str, Any]) -> bool:
    """Ask on the terminal whether a pending call runs (default: no)."""
    shown = _short(event["arguments"], SHORT_ARGUMENTS)
    echo(f"\nThe model proposes {event['tool']} {shown}", err=True)
    echo(f"  {event['reason']}", err=True)
    return click.confirm("  Run it?", default=False, err=True)


SHORT_ARGUMENTS = 120
"""Characters of a proposal's arguments shown on its one line."""


def _short(value: Any, width: int) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_tool_calls(calls: list[dict[str, Any]]) -> None:
    """One line per proposal: tool, arguments (short), decision, rule, what came of it."""
    if calls:
        echo("\nTool calls:")
    for call in calls:
        outcome = call["status"]
        if call["status"] == "executed":
            outcome = f"executed: {_short(call['result'], 80)}"
        elif call["status"] == "pending":
            outcome = f"pending (laika approvals approve {call['approval_id']})"
        elif call.get("error"):
            outcome = f"{call['status']}: {call['error']}"
        echo(
            f"- {call['tool']} {_short(call['arguments'], 60)}: {call['decision']} "
            f"by {call['rule_id']}; {outcome}"
        )


class _Stream:
    """The answer's text as the model writes it, on a terminal only: a pipe or a script gets
    the checked answer once (--json: one document), never a draft before it."""

    def __init__(self, live: bool) -> None:
        from ..agent.stream_text import AnswerText

        self._view = AnswerText()
        self._shown: list[str] = []
        self.on_delta = self._show if live else None

    @classmethod
    def for_output(cls, *, as_json: bool) -> _Stream:
        return cls(not as_json and sys.stdout.isatty())

    @property
    def text(self) -> str:
        return "".join(self._shown)

    def _show(self, delta: str) -> None:
        new = self._view.feed(delta)
        if new:
            self._shown.append(new)
            echo(new, nl=False)


def _finish(answer: dict[str, Any], *, as_json: bool, streamed: str = "") -> None:
    """Print the answer (one JSON document with --json); exit 1 when it failed."""
    fallback = answer.get("fallback")
    if fallback:
        echo(
            f"laika: provider {fallback['provider']!r} did not answer ({fallback['reason']}); "
            "start or fix it (`laika models list` checks it), or use --provider offline. "
            "Answering offline.",
            err=True,
        )
    if as_json:
        print_json(answer)
    else:
        _print_answer(answer, streamed)
    if answer["status"] == "error":
        sys.exit(1)


def _print_answer(answer: dict[str, Any], streamed: str = "") -> None:
    if answer["status"] == "error":
        _print_failure(answer)
        return
    if answer.get("fallback"):
        echo(f"Offline answer (provider {answer['fallback']['provider']!r} did not answer):\n")
    if not streamed:
        echo(answer["answer_markdown"])
    elif " ".join(streamed.split()) == " ".join(answer["answer_markdown"].split()):
        echo()  # the stream was the answer: end its line
    else:  # repaired or cut: the checked text is the one the citations belong to
        echo("\n\nAs checked:\n" + answer["answer_markdown"])
    for number, citation in enumerate(answer["citations"], start=1):
        mark = "verified" if citation["verified"] else "UNVERIFIED"
        echo(f"\n[{number}] {mark}: “{citation['quote']}”")
        echo(f"    {citation['locator'] or citation['url'] or citation['source_id']}")
        if citation.get("reason"):
            echo(f"    {citation['reason']}")
    _print_tool_calls(answer.get("tool_calls", []))
    if answer.get("coverage"):
        from ..service.ask import coverage_line

        echo(f"\n{coverage_line(answer['coverage'])}")
    if not answer.get("supported", True) and answer["status"] in ("ok", "partial"):
        echo("Not supported by your sources: no citation verified.")
    for warning in answer["warnings"]:
        echo(f"note: {warning}", err=True)


def _print_failure(answer: dict[str, Any]) -> None:
    """No answer: one line naming the provider and what failed (its message names the fix)."""
    *notes, reason = answer["warnings"] or ["it returned nothing"]
    for note in notes:
        echo(f"note: {note}", err=True)
    echo(f"laika: no answer from {answer['provider']!r}: {reason}", err=True)


@click.command()
@click.argument("source", metavar="FILE_OR_URL")
@click.option("--url", "page_url", help="The page's address, for a saved file.")
@collection_option
@max_tokens_option
@with_provider_options
@fallback_option
@allow_private_option
@json_option
def summarize(
    source: str,
    page_url: str | None,
    collection: str,
    max_tokens: int,
    provider_id: str | None,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    kind: str | None,
    no_fallback: bool,
    allow_private: bool,
    as_json: bool,
) -> None:
    """Capture a page (saved file, `-` or URL), store it, and summarize it with verified
    citations."""
    from ..service.ask import AskOptions
    from ..service.models import ProviderChoice
    from ..service.summarize import summarize_capture
    from .capture import read_page

    capture = read_page(source, page_url, allow_private=allow_private)
    stream = _Stream.for_output(as_json=as_json)
    options = AskOptions(
        collection=collection,
        provider=ProviderChoice(provider_id, model, base_url, api_key_env, kind),
        max_tokens=max_tokens,
        fallback=not no_fallback,
        on_delta=stream.on_delta,
    )
    answer = _answered(lambda store: summarize_capture(store, capture, options))
    _finish(answer.to_json(), as_json=as_json, streamed=stream.text)
