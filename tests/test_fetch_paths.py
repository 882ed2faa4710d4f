"""Every way the host fetches a page refuses an address on the user's machine or network in
every spelling (issue #24, SSRF): the extension's `sources.add_url` (a real host process),
queued capture jobs, and `laika capture URL` (the real command). The tools are covered in
test_app_executors.py, the fetcher itself (redirects, rebinding) in test_fetch_guard.py.
A page the extension hands over (its DOM) is not a fetch and stays allowed."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from laika_host.service.sources import add_url
from laika_host.store import open_store
from laika_host.store.worker import run_due_jobs

from html_server import Served, serve_at
from native_client import ARTICLE, Client, HostProcess
from support import run_laika

FORMS = [
    "http://127.0.0.1:{port}/page",
    "http://[::1]:{port}/page",
    "http://0x7f000001:{port}/page",
    "http://0X7F000001:{port}/page",
    "http://2130706433:{port}/page",
    "http://0177.0.0.1:{port}/page",
    "http://127.1:{port}/page",
    "http://127.0.0.1.:{port}/page",
    "http://0x7f.0.0.1:{port}/page",
    "http://localhost:{port}/page",
    "http://LOCALHOST.:{port}/page",
    "http://app.localhost:{port}/page",
    "http://[::ffff:127.0.0.1]:{port}/page",
    "http://[::ffff:7f00:1]:{port}/page",
    "http://[64:ff9b::7f00:1]:{port}/page",
    "http://[2002:7f00:1::1]:{port}/page",
    "http://0.0.0.0:{port}/page",
    "http://0:{port}/page",
    "http://user:pw@127.0.0.1:{port}/page",
    "https://127.0.0.1:{port}/page",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/admin",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[fd00:ec2::254]/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://255.255.255.255/",
    "http://240.0.0.1/",
]


@pytest.fixture
def inside() -> Iterator[Served]:
    """A service on this machine; it must see no request."""
    with serve_at(lambda _path: ARTICLE) as served:
        yield served


def _urls(served: Served) -> list[str]:
    return [form.format(port=served.port) for form in FORMS]


@pytest.mark.slow  # a host process
def test_the_extensions_add_url_refuses_every_form_and_save_page_still_works(
    tmp_path: Path, inside: Served
) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        for url in _urls(inside):
            added = client.call("sources.add_url", {"url": url, "collection": "Coast"})
            assert not added["ok"], url
            error = added["error"]
            assert error["code"] == "bad_request", (url, error)
            assert error["message"].startswith("refused to fetch "), (url, error)
            assert "--allow-private-address" in error["message"]
            assert error["details"]["capture_error"] == "private_address"
            assert "pw" not in error["message"]  # credentials never echoed
        saved = client.call(  # the user's own page, handed over by the extension: no fetch
            "sources.save_page",
            {"url": f"http://127.0.0.1:{inside.port}/local", "html": ARTICLE, "collection": "Mine"},
        )
        assert saved["ok"], saved
        listed = client.call("sources.list", {})["result"]["sources"]
        assert [source["url"] for source in listed] == [f"http://127.0.0.1:{inside.port}/local"]
        assert client.call("jobs.list")["result"]["jobs"] == []
    finally:
        host.kill()
    assert inside.connections == []


def test_a_message_names_the_problem_and_the_way() -> None:
    done = run_laika("sources", "add", "http://127.0.0.1:8080/")
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        .removeprefix("laika: ")
        .startswith(
            "refused to fetch http://127.0.0.1:8080/: its host is a loopback address (127.0.0.1), "
            "which Laika fetches only when you ask; to capture a page on your own machine or "
            "network, save it from the browser or run "
            "`laika capture http://127.0.0.1:8080/ --allow-private-address`"
        )
    ), done.stderr


@pytest.mark.slow  # two commands
def test_laika_capture_fetches_from_this_machine_only_with_the_flag(inside: Served) -> None:
    url = f"http://0x7f000001:{inside.port}/page"
    refused = run_laika("capture", url, "--dry-run")
    assert refused.returncode == 2
    assert "its host 0x7f000001 is a loopback address (127.0.0.1)" in refused.stderr
    assert inside.connections == []
    allowed = run_laika("capture", url, "--dry-run", "--allow-private-address")
    assert allowed.returncode == 0, allowed.stderr
    assert "Tide tables" in allowed.stdout


def test_a_queued_job_refuses_every_form_at_once(
    tmp_path: Path, inside: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job queued for such a URL (queued before this check, or by a name that resolves
    there) fails at its first attempt without a connection, naming why; the same URL whose
    capture the user allowed is fetched, once."""
    real = socket.getaddrinfo

    def resolve(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "intranet.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", int(port)))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    urls = [*_urls(inside), f"http://intranet.test:{inside.port}/page"]

    async def work() -> None:
        async with open_store(tmp_path / "laika.db") as store:
            queued = set()
            for url in urls:  # spellings of one normalized URL share a source and its job
                saved = await store.sources.add_url("Queue", url)
                queued.add((await store.jobs.queue(saved.source.id)).id)
            summary = await run_due_jobs(store)
            assert (summary.succeeded, summary.retrying) == ([], [])
            assert set(summary.failed) == queued
            for job_id in summary.failed:
                job = await store.jobs.get(job_id)
                assert job.attempt_count == 1  # no retry: it would be refused again
                assert job.last_error is not None
                assert job.last_error.startswith("refused to fetch ")
            mine = await add_url(
                store,
                f"http://intranet.test:{inside.port}/mine",
                collection="Mine",
                allow_private=True,  # the user asked for this capture
            )
            assert await store.sources.private_fetch_allowed(mine.source.id)
            ran = await run_due_jobs(store)
            assert ran.succeeded == [mine.job.id]
            assert not await store.sources.private_fetch_allowed(mine.source.id)  # used up
            captured = await store.sources.get(mine.source.id)
            assert captured.title == "Tide tables"
            with pytest.raises(Exception, match="refused to fetch"):
                await add_url(store, f"http://127.1:{inside.port}/again", collection="Mine")

    asyncio.run(work())
    assert inside.paths == ["/mine"]
