"""`laika demo`: the product in one command, on pages shipped with it (collection `Demo`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import click

from ._output import echo, print_json
from ._store import json_option, run_with_store


@click.command()
@click.option(
    "--model",
    "model",
    type=click.Choice(["offline", "local"]),
    default="offline",
    show_default=True,
    help="Who answers: `offline` (the built-in runtime, instant) or `local` (SmolLM2 on "
    "llama-server after `laika local-model setup`: the one `laika local-model serve` runs, "
    "else one started for this run and stopped after it).",
)
@click.option(
    "--provider",
    "provider_id",
    default=None,
    help="A configured provider answers instead (`laika models list`).",
)
@json_option
def demo(model: str, provider_id: str | None, as_json: bool) -> None:
    """Capture a few demo pages into the `Demo` collection, ask two questions over them, and
    print the answers with their verified citations and a standalone HTML page of them.

    Only the `Demo` collection is written; run it again at any time.
    """
    from ..demo.run import run_demo

    if provider_id is not None and model != "offline":
        raise click.UsageError("choose --model or --provider, not both")
    started = time.monotonic()
    progress: Callable[[str], None] = (
        (lambda _line: None) if as_json else (lambda line: echo(line, err=True))
    )
    answerer, max_tokens = _answerer(model, provider_id, progress)
    # a local model that is not set up (the error names the command) or did not start is a
    # LocalModelError: the group reports it (exit 1)
    with answerer as provider:
        result = run_with_store(
            lambda store: run_demo(
                store, provider=provider, progress=progress, max_tokens=max_tokens
            )
        )
    if as_json:
        print_json(result.to_json())
        return
    for question, answer in result.answers:
        echo(f"\nQ: {question}\n")
        echo(answer.answer_markdown)
        for number, citation in enumerate(answer.citations, start=1):
            mark = "verified" if citation["verified"] else "UNVERIFIED"
            echo(f"  [{number}] {mark}: {citation['locator'] or citation['url'] or ''}")
        for warning in answer.warnings:
            echo(f"note: {warning}", err=True)
    echo(f"\nThe answers as a page: {result.page}")
    echo(
        "(The demo pages ship inside Laika, so the links above name addresses that never "
        "resolve; the page shows each quote in the stored copy.)"
    )
    echo(f"Done in {time.monotonic() - started:.1f} s. Next: `laika ask QUESTION -c Demo`.")


def _answerer(
    model: str, provider_id: str | None, progress: Callable[[str], None]
) -> tuple[AbstractContextManager[Any], int]:
    """Who answers (None: offline) for as long as the run, and the answers' token bound."""
    if model == "local":
        from ..demo.local import MAX_TOKENS, local_provider

        return local_provider(progress), MAX_TOKENS
    from ..defaults import DEFAULT_MAX_TOKENS
    from .ask import choose_provider

    return nullcontext(choose_provider(provider_id or "offline", None, None, None, None)), (
        DEFAULT_MAX_TOKENS
    )
