"""`laika logs`: the redacted history of model calls (llm_runs)."""

from __future__ import annotations

import click

from ..defaults import MAX_CLI_LIST_LIMIT, RUNS_LIMIT
from ..store import Store
from ._output import echo, print_json
from ._store import json_option, run_with_store, shorten, table


@click.group(invoke_without_command=True)
@click.pass_context
def logs(ctx: click.Context) -> None:
    """Model calls, newest first: provider, model, status, tokens (bodies are digests)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_runs)


@logs.command("list")
@click.option(
    "--limit", type=click.IntRange(1, MAX_CLI_LIST_LIMIT), default=RUNS_LIMIT, show_default=True
)
@json_option
def list_runs(limit: int = RUNS_LIMIT, as_json: bool = False) -> None:
    """List recent runs."""
    runs = run_with_store(lambda store: store.runs.list(limit=limit))
    if as_json:
        print_json({"runs": [run.to_json() for run in runs]})
        return
    rows = [
        [
            r.id,
            r.created_at,
            r.kind,
            f"{r.provider_id or '-'}/{r.model_id or '-'}",
            r.status,
            str(r.total_tokens or ""),
            shorten(r.error, 40),
        ]
        for r in runs
    ]
    header = ["ID", "WHEN", "KIND", "PROVIDER/MODEL", "STATUS", "TOKENS", "ERROR"]
    echo(table(rows, header) if rows else "no model calls yet")


@logs.command("show")
@click.argument("run_id")
def show(run_id: str) -> None:
    """One run in full (JSON): links, usage, the redacted request and response."""

    async def work(store: Store) -> dict[str, object]:
        return (await store.runs.get(run_id)).to_json()

    print_json(run_with_store(work))
