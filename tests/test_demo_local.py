"""`laika demo --model local`: the real SmolLM2 answers the demo, through a server started for
the run (and stopped after it) or the one `laika local-model serve` runs; without the local
model set up, one line names the command that sets it up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from laika_host.agent.verify import normalize
from laika_host.llm.local_model import RECORD_FILE, running_server

from support import laika_executable, run_laika


def _home(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "LAIKA_HOME": str(tmp_path / "home"), **extra}


@pytest.mark.slow  # > 3 s with the cores busy
def test_without_the_local_model_one_line_names_the_setup_command(tmp_path: Path) -> None:
    env = _home(tmp_path, LAIKA_LLAMA_CACHE=str(tmp_path / "no-build"))
    done = run_laika("demo", "--model", "local", env=env)
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "not set up" in lines[0]
    assert "`laika local-model setup`" in lines[0]
    assert "Traceback" not in done.stderr
    both = run_laika("demo", "--model", "local", "--provider", "x", env=env)
    assert both.returncode == 2
    assert "not both" in both.stderr


_DEAD_PID = st.integers(max_value=0) | st.integers(min_value=2**22 + 1)
"""No process has these ids (Linux's pid_max is at most 2**22)."""
_RECORDS = (
    st.binary(max_size=300)
    | st.builds(json.dumps, st.dictionaries(st.text(max_size=10), st.integers() | st.text()))
    | st.builds(
        lambda pid, url: json.dumps({"pid": pid, "base_url": url}).encode(),
        _DEAD_PID,
        st.text() | st.builds("http://127.0.0.1:{}".format, st.integers(0, 99_999)),
    )
)


@given(_RECORDS)
def test_a_record_that_names_no_live_server_is_ignored(content: bytes | str) -> None:
    """Whatever a record holds (left by a killed server, or garbled), nothing is reached that
    does not answer as a live loopback llama-server."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        record = Path(folder) / RECORD_FILE
        record.write_bytes(content if isinstance(content, bytes) else content.encode())
        assert running_server(record) is None


def test_a_record_naming_another_host_is_ignored_even_for_a_live_process(
    tmp_path: Path,
) -> None:
    record = tmp_path / RECORD_FILE
    for url in ["http://10.0.0.1:80", "http://localhost.evil:80", "https://127.0.0.1:8080"]:
        record.write_text(json.dumps({"pid": os.getpid(), "base_url": url}))
        assert running_server(record) is None


def _llama_servers_of(home: Path) -> list[int]:
    """Live llama-server processes started with this LAIKA_HOME in their environment."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if b"llama-server" in command and f"LAIKA_HOME={home}\0".encode() in environ + b"\0":
            found.append(int(entry.name))
    return found


def _check_answers(result: dict[str, Any], env: dict[str, str]) -> None:
    """Both questions answered by the local model; a citation shown as verified quotes the
    stored text (a 135M model often cites nothing: then the answer says so)."""
    assert [s["title"] for s in result["sources"]]
    stored = " ".join(
        normalize(
            json.loads(run_laika("sources", "show", s["id"], "--json", env=env).stdout)["markdown"]
        )
        for s in result["sources"]
    )
    assert len(result["answers"]) == 2
    for answer in result["answers"]:
        assert answer["provider"] == "local-model", answer
        assert answer["run_id"]
        assert answer["answer_markdown"].strip()
        verified = [c for c in answer["citations"] if c["verified"]]
        for citation in verified:
            assert normalize(citation["quote"]) in stored, citation
        if not verified:
            assert any("no citation" in w for w in answer["warnings"]), answer


@pytest.mark.real_llm
@pytest.mark.slow
def test_the_demo_starts_the_local_model_for_the_run_and_stops_it(tmp_path: Path) -> None:
    env = _home(tmp_path)
    done = run_laika("demo", "--model", "local", env=env)
    assert done.returncode == 0, done.stderr
    assert "local model: starting llama-server" in done.stderr
    assert "local model: stopped" in done.stderr
    assert done.stdout.count("\nQ: ") == 2
    assert "The answers as a page: " in done.stdout
    assert not _llama_servers_of(tmp_path / "home")


@pytest.mark.real_llm
@pytest.mark.slow
def test_the_demo_uses_the_served_local_model_and_leaves_it_running(tmp_path: Path) -> None:
    env = _home(tmp_path)
    serve = subprocess.Popen(
        [laika_executable(), "local-model", "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # on failure, kill its llama-server too
    )
    record = tmp_path / "home" / RECORD_FILE
    try:
        assert serve.stdout is not None
        base_url = serve.stdout.readline().strip()
        deadline = time.monotonic() + 30
        while not record.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert oct(record.stat().st_mode & 0o777) == "0o600"
        # with no llama-server build of its own, the demo can only answer through the served one
        alone = {**env, "LAIKA_LLAMA_CACHE": str(tmp_path / "no-build")}
        done = run_laika("demo", "--model", "local", "--json", env=alone)
        assert done.returncode == 0, done.stderr
        _check_answers(json.loads(done.stdout), env)
        assert httpx.get(f"{base_url}/health", timeout=10).status_code == 200  # still serving
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=30) == 0
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
        serve.wait()
        serve.stdout.close()  # type: ignore[union-attr]
    assert not record.exists()  # a stopped server leaves no record behind
