"""`laika jobs ...`: the capture queue."""

from __future__ import annotations

import click

from ..service import jobs as service
from ._output import echo, print_json
from ._store import json_option, run_with_store, table


@click.group()
def jobs() -> None:
    """Capture jobs: queued, running, done."""


@jobs.command("list")
@click.option(
    "--status", type=click.Choice(["queued", "running", "succeeded", "failed", "cancelled"])
)
@json_option
def list_jobs(status: str | None, as_json: bool) -> None:
    """List capture jobs, newest first."""
    found = run_with_store(
        lambda store: service.list_jobs(store, status=status)  # type: ignore[arg-type]
    )
    if as_json:
        print_json({"jobs": [job.to_json() for job in found.jobs]})
        return
    rows = [
        [j.id, j.status, f"{j.attempt_count}/{j.max_attempts}", j.source_id, j.last_error or ""]
        for j in found.jobs
    ]
    echo(table(rows, ["ID", "STATUS", "ATTEMPTS", "SOURCE", "LAST ERROR"]) if rows else "no jobs")


@jobs.command("run")
@click.option("--max-jobs", type=click.IntRange(1), default=None, help="Stop after N jobs.")
@json_option
def run(max_jobs: int | None, as_json: bool) -> None:
    """Run the due jobs now (jobs left running by a killed process are resumed)."""
    summary = run_with_store(lambda store: service.run_due(store, max_jobs=max_jobs)).to_json()
    if as_json:
        print_json(summary)
    else:
        echo(", ".join(f"{len(ids)} {name}" for name, ids in summary.items()))
