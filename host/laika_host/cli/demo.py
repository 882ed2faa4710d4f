"""`laika demo`: the product in one command, on pages shipped with it (collection `Demo`)."""

from __future__ import annotations

import time

import click

from ._output import echo, print_json
from ._store import json_option, run_with_store


@click.command()
@click.option(
    "--provider",
    "provider_id",
    default="offline",
    show_default=True,
    help="Who answers: `offline` (built in), or a configured provider id (`laika models list`).",
)
@json_option
def demo(provider_id: str, as_json: bool) -> None:
    """Capture a few demo pages into the `Demo` collection, ask two questions over them, and
    print the answers with their verified citations and a standalone HTML page of them.

    Only the `Demo` collection is written; run it again at any time.
    """
    from ..demo.run import run_demo
    from .ask import choose_provider

    provider = choose_provider(provider_id, None, None, None, None)
    started = time.monotonic()
    progress = (lambda _line: None) if as_json else (lambda line: echo(line, err=True))
    result = run_with_store(lambda store: run_demo(store, provider=provider, progress=progress))
    if as_json:
        print_json(result.to_json())
        return
    for question, answer in result.answers:
        echo(f"\nQ: {question}\n")
        echo(answer.answer_markdown)
        for number, citation in enumerate(answer.citations, start=1):
            mark = "verified" if citation["verified"] else "UNVERIFIED"
            echo(f"  [{number}] {mark}: {citation['locator'] or citation['url'] or ''}")
    echo(f"\nThe answers as a page: {result.page}")
    echo(f"Done in {time.monotonic() - started:.1f} s. Next: `laika ask QUESTION -c Demo`.")
