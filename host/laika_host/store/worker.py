"""Run capture jobs: fetch each queued URL, capture it, store it, record the outcome.

A job fetches through the address guard (`capture.fetch_guard`): a private address only
when the user allowed this capture of the source (`Sources.allow_private_fetch`, cleared once
the job is done) and never for a model's `source.refresh`; a refused address fails the job at
once (a retry would be refused the same way).

Fetching runs in a worker thread and capturing in the capture worker process (under its
deadline, see `capture.isolated`); the database write that stores the result is
one short transaction, so a process killed at any point leaves either the old source or the
new one, and its job is recovered by the next process that opens the store.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..capture import CaptureError, CaptureOptions
from ..capture.errors import AddressRefusedError
from ..capture.fetch import fetch_html
from ..capture.isolated import capture_isolated
from ..capture.urls import strip_credentials
from .errors import StoreError
from .records import CaptureJob
from .store import Store

Fetch = Callable[[str], tuple[bytes, str]]
"""(url) -> (body, final URL); the default is `fetch_html` with the job's allowance."""
OnEvent = Callable[[str, dict[str, Any]], None]


@dataclass
class WorkSummary:
    succeeded: list[str] = field(default_factory=list)
    retrying: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Succeeded jobs whose capture did not replace the saved copy (see each job's reason)."""

    def to_json(self) -> dict[str, list[str]]:
        return dataclasses.asdict(self)


async def run_due_jobs(
    store: Store,
    *,
    fetch: Fetch | None = None,
    max_jobs: int | None = None,
    on_event: OnEvent | None = None,
    options: CaptureOptions | None = None,
) -> WorkSummary:
    """Claim and run due jobs until none is due (or `max_jobs` ran); `options` are the
    capture's (the service passes the user's capture settings)."""
    summary = WorkSummary()
    emit = on_event or (lambda _event, _data: None)
    while max_jobs is None or len(summary.succeeded + summary.retrying + summary.failed) < max_jobs:
        job = await store.jobs.claim()
        if job is None:
            break
        emit("job_started", {"job_id": job.id, "source_id": job.source_id})
        done = await run_job(store, job, fetch, options=options)
        bucket = {"succeeded": summary.succeeded, "queued": summary.retrying}.get(
            done.status, summary.failed
        )
        bucket.append(done.id)
        if done.outcome == "kept":
            summary.kept.append(done.id)
        emit("job_finished", {"job": done.to_json()})
    return summary


async def run_job(
    store: Store,
    job: CaptureJob,
    fetch: Fetch | None = None,
    *,
    force: bool = False,
    options: CaptureOptions | None = None,
    for_model: bool = False,
) -> CaptureJob:
    """Fetch, capture and store one job's URL; a capture that would lose what the user saw is
    kept out (the job succeeds with outcome `kept`) unless `force`. `for_model`: a model's
    tool asked (no private address, whatever the user allowed)."""
    source = await store.sources.get_summary(job.source_id)
    assert source.url is not None
    assert source.normalized_url is not None
    recorded = await store.sources.private_fetch_allowed(job.source_id)
    allowed = recorded and not for_model
    page = fetch or functools.partial(fetch_html, allow_private=allowed, for_model=for_model)
    done = await _capture(
        store, job, (source.url, source.normalized_url), page, force=force, options=options
    )
    if recorded and done.status != "queued":  # one capture's allowance, used (or not) now
        await store.sources.allow_private_fetch(job.source_id, False)
    return done


async def _capture(
    store: Store,
    job: CaptureJob,
    urls: tuple[str, str],
    fetch: Fetch,
    *,
    force: bool,
    options: CaptureOptions | None,
) -> CaptureJob:
    """One attempt: fetch `urls` (the source's URL, its normalized form), capture, store."""
    url, normalized_url = urls
    try:
        raw, final_url = await asyncio.to_thread(fetch, url)
        capture = await capture_isolated(raw, final_url, options=options)
    except AddressRefusedError as error:
        return await _failed(store, job, str(error), final=True)
    except CaptureError as error:
        return await _failed(store, job, str(error))
    except Exception as error:  # a job failure must not stop the queue
        return await _failed(store, job, f"{type(error).__name__}: {error}")
    # the source keeps its identity even when the page redirected elsewhere
    capture = dataclasses.replace(capture, url=url, normalized_url=normalized_url)
    try:
        saved = await store.sources.save_capture(
            job.collection_id,
            capture,
            origin="job",
            provenance={"fetched_url": strip_credentials(final_url)},
            force=force,
        )
    except StoreError as error:
        return await _failed(store, job, str(error))
    return await store.jobs.complete(job.id, outcome=saved.outcome, reason=saved.reason)


async def _failed(store: Store, job: CaptureJob, error: str, *, final: bool = False) -> CaptureJob:
    failed = await store.jobs.fail(job.id, error, final=final)
    if failed.status == "failed":
        await store.sources.mark_failed(job.source_id, error)
    return failed
