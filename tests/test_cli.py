"""The `laika` command as a user runs it: exit codes, output formats, help in step with README."""

from __future__ import annotations

import json
import re

from laika_host import __version__
from laika_host.cli import COMMANDS

from support import REPO, SPEC_FIXTURES, run_laika

RESPONSE = (SPEC_FIXTURES / "summarize_response.json").read_bytes()


def test_version() -> None:
    done = run_laika("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"laika, version {__version__}"


def test_help_lists_every_command() -> None:
    done = run_laika("--help")
    assert done.returncode == 0
    for name in COMMANDS:
        assert re.search(rf"^\s+{name}\s", done.stdout, re.MULTILINE), name


def test_validate_reads_standard_input() -> None:
    done = run_laika("validate", "-", stdin=RESPONSE)
    assert (done.returncode, done.stdout) == (0, "ok response res-1\n")


def test_validate_not_json_exits_2_with_a_clear_message() -> None:
    done = run_laika("validate", "-", stdin=b"summarize this page")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "not JSON" in done.stderr
    assert "line 1 column 1" in done.stderr


def test_validate_invalid_utf8_exits_2() -> None:
    done = run_laika("validate", "-", stdin=b'{"id": "\xff"}')
    assert done.returncode == 2
    assert "UTF-8" in done.stderr


def test_validate_nan_exits_2() -> None:
    done = run_laika("validate", "-", stdin=b'{"confidence": NaN}')
    assert done.returncode == 2
    assert "NaN" in done.stderr


def test_validate_duplicate_keys_exit_2() -> None:
    done = run_laika("validate", "-", stdin=b'{"type": "request", "type": "response"}')
    assert done.returncode == 2
    assert "'type' twice" in done.stderr


def test_validate_deeply_nested_json_exits_2() -> None:
    done = run_laika("validate", "-", stdin=b"[" * 100_000 + b"]" * 100_000)
    assert done.returncode == 2
    assert "too deeply" in done.stderr
    assert "Traceback" not in done.stderr


def test_validate_empty_input_exits_2() -> None:
    assert run_laika("validate", "-", stdin=b"").returncode == 2


def test_validate_json_that_is_not_an_object_exits_1() -> None:
    done = run_laika("validate", "-", stdin=b"[1, 2]")
    assert (done.returncode, done.stdout) == (1, "$: must be a JSON object (got array)\n")


def test_validate_prints_every_issue_on_its_own_line() -> None:
    packet = json.loads(RESPONSE)
    packet["protocol"]["version"] = 2
    packet["conversation"]["turn"] = 0
    del packet["in_reply_to"]
    done = run_laika("validate", "-", stdin=json.dumps(packet).encode())
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "protocol.version: must be 1: this host speaks LLMCP v1 (got 2)",
        "conversation.turn: must be >= 1 (got 0)",
        "in_reply_to: required field is missing",
    ]


def test_validate_json_output() -> None:
    packet = json.loads(RESPONSE)
    packet["assistant"]["citations"][0]["confidence"] = 1.5
    done = run_laika("validate", "--json", "-", stdin=json.dumps(packet).encode())
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["ok"] is False
    assert result["kind"] == "response"
    assert result["issues"] == [
        {
            "path": "assistant.citations[0].confidence",
            "message": "must be <= 1.0 (got 1.5)",
            "code": "less_than_equal",
        }
    ]


def test_validate_missing_file_is_a_usage_error() -> None:
    done = run_laika("validate", "no/such/packet.json")
    assert done.returncode == 2
    assert "No such file" in done.stderr


def test_readme_documents_every_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"laika {name}" in readme, f"README does not mention `laika {name}`"
