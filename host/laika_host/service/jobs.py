"""The capture queue: URLs the host fetches and captures itself (pages that need no login).

Jobs survive the process: a job left running by a killed process is resumed by the next run.
Running one now (`capture_now`) and running the due ones (`run_due`) share `store.worker`,
which fetches in a thread and captures in the capture worker under its deadline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..events import payloads
from ..events.bus import emit
from ..store import CaptureJob, SavedSource, Store
from ..store.records import JobStatus
from ..store.worker import WorkSummary, run_due_jobs, run_job
from .capture_settings import capture_options

OnProgress = Callable[[dict[str, Any]], None]
"""Told `{"stage": "job_started" | "job_finished", ...}` as each job starts and ends."""


@dataclass(frozen=True)
class JobList:
    jobs: list[CaptureJob]
    counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"jobs": [job.to_json() for job in self.jobs], "counts": self.counts}


async def list_jobs(store: Store, *, status: JobStatus | None = None) -> JobList:
    """The newest jobs (of one status, if given) and the count per status."""
    return JobList(await store.jobs.list(status=status), await store.jobs.counts())


async def get_job(store: Store, job_id: str) -> CaptureJob:
    return await store.jobs.get(job_id)


async def run_due(
    store: Store, *, max_jobs: int | None = None, on_progress: OnProgress | None = None
) -> WorkSummary:
    """Claim and run the due jobs (at most `max_jobs`) until none is due, with the user's
    capture settings; then the events of what they stored or gave up on."""

    def emit(event: str, data: dict[str, Any]) -> None:
        if on_progress is not None:
            on_progress({"stage": event, **data})

    summary = await run_due_jobs(store, max_jobs=max_jobs, on_event=emit, options=capture_options())
    for job_id in (*summary.succeeded, *summary.failed):  # the user's rules, once all ran
        await announce_job(store, await store.jobs.get(job_id))
    return summary


async def queue_capture(
    store: Store,
    source_id: str,
    *,
    capture_now: bool,
    force: bool = False,
    allow_private: bool = False,
    for_model: bool = False,
) -> CaptureJob:
    """Queue a capture of a URL source and, with `capture_now`, run it at once (unless
    another process already took it); `force` replaces the saved copy even when the new
    capture has much less text or a login wall. `allow_private`: the user allowed this
    capture a private address (recorded on the source for the job, now or queued);
    `for_model`: a model's tool asked, so no private address whatever was allowed."""
    if allow_private and not for_model:
        await store.sources.allow_private_fetch(source_id)
    job = await store.jobs.queue(source_id)
    if capture_now:
        claimed = await store.jobs.claim_job(job.id)
        if claimed is not None:
            job = await run_job(
                store, claimed, force=force, options=capture_options(), for_model=for_model
            )
            await announce_job(store, job)
    return job


async def announce_job(store: Store, job: CaptureJob) -> None:
    """`source.captured` for a capture the job stored, `source.capture_failed` for a job
    that gave up (the user's event rules run now, never failing the job)."""
    if job.status == "succeeded" and job.outcome in ("new", "updated"):
        source = await store.sources.get_summary(job.source_id)
        collection = await store.collections.find(job.collection_id)
        saved = SavedSource(
            outcome=job.outcome, collection=collection.title if collection else "", source=source
        )
        await emit(store, "source.captured", payloads.captured(saved))
    elif job.status == "failed":
        await emit(store, "source.capture_failed", await payloads.capture_failed(store, job))
