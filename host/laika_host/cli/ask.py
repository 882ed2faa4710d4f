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
    from ..llm.errors import LlmError

    try:
        return select_provider(
            provider_id, model=model, base_url=base_url, api_key_env=api_key_env, kind=kind
        )
    except LlmError as error:
        raise click.ClickException(error.message) from None


@click.command()
@click.argument("question")
@click.option("--collection", "-c", default="Inbox", show_default=True)
@click.option("--max-tokens", type=click.IntRange(16, 32_000), default=1024, show_default=True)
@with_provider_options
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
    as_json: bool,
) -> None:
    """Ask a question over a collection; the answer's citations are checked against the
    stored text of the sources (verified or flagged)."""
    from ..agent.flows import ask as ask_flow

    provider = choose_provider(provider_id, model, base_url, api_key_env, kind)
    stream = None if as_json else (lambda text: echo(text, nl=False, err=True))
    answer = run_with_store(
        lambda store: ask_flow(
            store, question, collection, provider=provider, max_tokens=max_tokens, on_delta=stream
        )
    )
    _finish(answer.to_json(), as_json=as_json)


def _finish(answer: dict[str, Any], *, as_json: bool) -> None:
    """Print the answer (one JSON document with --json); exit 1 when it failed."""
    if as_json:
        print_json(answer)
    else:
        _print_answer(answer)
    if answer["status"] == "error":
        sys.exit(1)


def _print_answer(answer: dict[str, Any]) -> None:
    echo(answer["answer_markdown"])
    for number, citation in enumerate(answer["citations"], start=1):
        mark = "verified" if citation["verified"] else "UNVERIFIED"
        echo(f"\n[{number}] {mark}: “{citation['quote']}”")
        echo(f"    {citation['locator'] or citation['url'] or citation['source_id']}")
        if citation.get("reason"):
            echo(f"    {citation['reason']}")
    for warning in answer["warnings"]:
        echo(f"note: {warning}", err=True)


@click.command()
@click.argument("source", metavar="FILE_OR_URL")
@click.option("--url", "page_url", help="The page's address, for a saved file.")
@click.option("--collection", "-c", default="Inbox", show_default=True)
@click.option("--max-tokens", type=click.IntRange(16, 32_000), default=1024, show_default=True)
@with_provider_options
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
    as_json: bool,
) -> None:
    """Capture a page (saved file, `-` or URL), store it, and summarize it with verified
    citations."""
    from ..agent.flows import summarize as summarize_flow
    from .capture import read_page

    capture = read_page(source, page_url)
    provider = choose_provider(provider_id, model, base_url, api_key_env, kind)
    stream = None if as_json else (lambda text: echo(text, nl=False, err=True))
    answer = run_with_store(
        lambda store: summarize_flow(
            store,
            capture,
            collection=collection,
            provider=provider,
            max_tokens=max_tokens,
            on_delta=stream,
        )
    )
    _finish(answer.to_json(), as_json=as_json)
