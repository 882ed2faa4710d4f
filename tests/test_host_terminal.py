"""`laika host` run by a person, not a browser (issue 14, item 4).

Real subprocesses: `--help` prints help and exits 0; a terminal on stdin gets a notice on
stderr and exit 2; stdin at EOF (`/dev/null`, an empty file, a closed pipe) ends the host at
once with exit 0, nothing on stdout and no traceback (it used to hang with an asyncio
traceback: epoll refuses /dev/null).
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from laika_host.native.transport.host_main import TERMINAL_EXIT

from support import laika_executable, run_laika

EOF_DEADLINE_SECONDS = 2.0


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_prints_help_and_exits_0(flag: str) -> None:
    done = run_laika("host", flag)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: laika host")
    assert "laika doctor" in done.stdout


def _launchers() -> list[list[str]]:
    """The CLI command and what the installed launcher runs (`python -m laika_host.native`)."""
    return [[laika_executable(), "host"], [sys.executable, "-m", "laika_host.native"]]


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("command", _launchers(), ids=["laika host", "python -m"])
@pytest.mark.parametrize("stdin_kind", ["/dev/null", "empty file", "closed pipe"])
@pytest.mark.parametrize("stdout_kind", ["pipe", "/dev/null"])
def test_stdin_at_eof_exits_0_at_once_quietly(
    tmp_path: Path, command: list[str], stdin_kind: str, stdout_kind: str
) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    stdin_path = {"/dev/null": os.devnull, "empty file": str(empty)}.get(stdin_kind)
    with open(stdin_path or os.devnull, "rb") as stdin_file, open(os.devnull, "wb") as null:
        started = time.monotonic()
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE if stdin_path is None else stdin_file,
            stdout=subprocess.PIPE if stdout_kind == "pipe" else null,
            stderr=subprocess.PIPE,
        )
        try:
            stdout, stderr = proc.communicate(b"", timeout=30)  # closes a piped stdin: EOF
        finally:
            proc.kill()
        elapsed = time.monotonic() - started
    assert proc.returncode == 0, stderr
    assert elapsed < EOF_DEADLINE_SECONDS, f"took {elapsed:.2f} s"
    assert not stdout  # None when stdout was /dev/null
    assert b"Traceback" not in stderr
    assert b"Error" not in stderr


@pytest.mark.parametrize("command", _launchers(), ids=["laika host", "python -m"])
def test_a_terminal_on_stdin_gets_a_notice_and_exit_2(command: list[str]) -> None:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(command, stdin=follower, capture_output=True, timeout=30, check=False)
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == TERMINAL_EXIT == 2
    assert done.stdout == b""
    notice = done.stderr.decode()
    assert "your browser starts it" in notice
    assert "laika doctor" in notice
    assert "Traceback" not in notice
