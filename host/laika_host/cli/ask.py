"""`laika ask` and `laika summarize`: grounded answers with verified citations."""

from __future__ import annotations

import sys
from typing import Any

import click

from ._output import echo, print_json
from ._store import json_option, run_with_store

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
) -> Any:
    """The provider for this call (None = offline); see `llm.config.select_provider`."""
    from ..llm.config import select_provider

    return select_provider(
        provider_id, model=model, base_url=base_url, api_key_env=api_key_env, kind=kind
    )


def _question(_context: click.Context, _param: click.Parameter, value: str) -> str:
    if not value.strip():
        raise click.BadParameter(
            'the question is empty: ask something, e.g. laika ask "What is X?"'
        )
    return value


fallback_option = click.option(
    "--no-fallback",
    is_flag=True,
    help="When the default provider does not answer, fail (exit 1) instead of answering "
    "with the offline runtime.",
)


@click.command()
@click.argument("question", callback=_question)
@click.option("--collection", "-c", default="Inbox", show_default=True)
@click.option("--max-tokens", type=click.IntRange(16, 32_000), default=1024, show_default=True)
@with_provider_options
@fallback_option
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
    as_json: bool,
) -> None:
    """Ask a question over a collection; the answer's citations are checked against the
    stored text of the sources (verified or flagged).

    On a terminal the answer streams as the model writes it; piped, or with --json, only the
    checked answer is printed. When the default provider does not answer, one line on stderr
    says so and the offline runtime answers instead (labelled), unless --no-fallback.
    """
    from ..agent.flows import ask as ask_flow

    provider = choose_provider(provider_id, model, base_url, api_key_env, kind)
    chosen_by_default = provider_id is None and base_url is None
    stream = _Stream.for_output(as_json=as_json)
    answer = run_with_store(
        lambda store: ask_flow(
            store,
            question,
            collection,
            provider=provider,
            max_tokens=max_tokens,
            on_delta=stream.on_delta,
            fallback=chosen_by_default and not no_fallback,
        )
    )
    _finish(answer.to_json(), as_json=as_json, streamed=stream.text)


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
@click.option("--collection", "-c", default="Inbox", show_default=True)
@click.option("--max-tokens", type=click.IntRange(16, 32_000), default=1024, show_default=True)
@with_provider_options
@fallback_option
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
    as_json: bool,
) -> None:
    """Capture a page (saved file, `-` or URL), store it, and summarize it with verified
    citations."""
    from ..agent.flows import summarize as summarize_flow
    from .capture import read_page

    capture = read_page(source, page_url)
    provider = choose_provider(provider_id, model, base_url, api_key_env, kind)
    stream = _Stream.for_output(as_json=as_json)
    answer = run_with_store(
        lambda store: summarize_flow(
            store,
            capture,
            collection=collection,
            provider=provider,
            max_tokens=max_tokens,
            on_delta=stream.on_delta,
            fallback=provider_id is None and base_url is None and not no_fallback,
        )
    )
    _finish(answer.to_json(), as_json=as_json, streamed=stream.text)
