"""`laika ask` in a terminal, a pipe and a script: the answer printed once, a default provider
that is down replaced by the labelled offline answer, human errors (never a JSON log line or
a traceback), and clear refusals. Real subprocesses, a real store, real loopback servers."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from laika_host.cli.ask import _question

from llm_servers import ProviderServer, Reply, closed_port_url, openai_sse
from support import laika_executable, run_laika

PAGE = """<html><head><title>Cats</title></head><body><article><h1>Cats</h1>
<p>Cats sleep for about sixteen hours every day, which is a lot more than dogs.</p>
<p>A group of cats is called a clowder in English.</p></article></body></html>"""
PROSE = 'Cats sleep "about sixteen hours" a day [1].\nThat is more than dogs.'


@pytest.fixture
def source_id(tmp_path: Path) -> str:
    page = tmp_path / "cats.html"
    page.write_text(PAGE, encoding="utf-8")
    done = run_laika("capture", str(page), "--url", "https://ex.com/cats", "--json")
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["source"]["id"])


def _reply(source: str) -> list[str]:
    """The model's JSON reply, streamed in small pieces (escapes split across chunks)."""
    text = json.dumps(
        {
            "assistant": {"markdown": PROSE},
            "citations": [{"doc_id": f"src:{source}", "quote": "Cats sleep for about sixteen"}],
        }
    )
    return openai_sse([text[i : i + 7] for i in range(0, len(text), 7)])


def _provider_args(url: str) -> list[str]:
    return ["--base-url", url, "--kind", "openai", "--api-key-env", "LAIKA_TEST_KEY"]


def _env() -> dict[str, str]:
    return {**os.environ, "LAIKA_TEST_KEY": "k"}


@pytest.mark.slow  # > 3 s with the cores busy
def test_piped_answer_is_printed_once_and_stderr_holds_no_answer_text(source_id: str) -> None:
    server = ProviderServer([Reply(chunks=_reply(source_id))])
    try:
        done = run_laika("ask", "How long do cats sleep?", *_provider_args(server.url), env=_env())
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("That is more than dogs.") == 1
    assert done.stdout.startswith(PROSE + "\n")
    assert "[1] verified: “Cats sleep for about sixteen”" in done.stdout
    assert "sixteen" not in done.stderr
    assert "{" not in done.stderr


@pytest.mark.slow  # > 3 s with the cores busy
def test_on_a_terminal_the_answer_streams_once_as_prose(source_id: str) -> None:
    """stdout is a real pseudo-terminal: the prose appears as the model writes it (decoded
    from the JSON reply), once, and the checked answer is not printed a second time."""
    server = ProviderServer([Reply(chunks=_reply(source_id), delay_between=0.01)])
    main, child = pty.openpty()
    try:
        process = subprocess.Popen(
            [laika_executable(), "ask", "How long?", *_provider_args(server.url)],
            stdin=subprocess.DEVNULL,
            stdout=child,
            stderr=subprocess.PIPE,
            env={**_env(), "PYTHONUTF8": "1"},
        )
        os.close(child)
        shown = _read_all(main).decode("utf-8").replace("\r\n", "\n")
        stderr = process.communicate(timeout=60)[1].decode()
    finally:
        os.close(main)
        server.close()
    assert process.returncode == 0, stderr
    assert shown.startswith(PROSE + "\n")
    assert shown.count("That is more than dogs.") == 1
    assert '"markdown"' not in shown
    assert "\\n" not in shown  # no JSON escapes reach the reader
    assert "[1] verified:" in shown


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed its end of the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _configure_down_default() -> None:
    added = run_laika(
        "models", "add", "homebox", "--kind", "openai_compatible", "--model", "m",
        "--base-url", f"{closed_port_url()}/v1",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr


@pytest.mark.slow  # > 5 s here
def test_a_default_provider_that_is_down_gives_one_line_then_the_labelled_offline_answer(
    source_id: str,
) -> None:
    _configure_down_default()
    done = run_laika("ask", "How long do cats sleep?")
    assert done.returncode == 0, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("laika: provider 'homebox' did not answer (")
    assert "could not connect" in line
    assert "--provider offline" in line
    assert done.stdout.startswith("Offline answer (provider 'homebox' did not answer):\n")
    assert "verified: “Cats sleep for about sixteen hours every day" in done.stdout

    scripted = run_laika("ask", "How long do cats sleep?", "--json")
    assert scripted.returncode == 0
    answer = json.loads(scripted.stdout)
    assert answer["provider"] == "offline"
    assert answer["fallback"]["provider"] == "homebox"
    assert all(c["verified"] for c in answer["citations"])
    assert answer["citations"]
    assert len(scripted.stderr.splitlines()) == 1


@pytest.mark.slow  # > 5 s here
def test_no_fallback_makes_a_provider_that_is_down_one_clear_error(source_id: str) -> None:
    _configure_down_default()
    for args in (["--no-fallback"], ["--provider", "homebox"]):
        done = run_laika("ask", "How long do cats sleep?", *args)
        assert done.returncode == 1
        assert done.stdout == ""
        [line] = done.stderr.splitlines()
        assert line.startswith("laika: no answer from 'homebox': ")
        assert "could not connect (is the server running?)" in line
        assert "Traceback" not in done.stderr


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("question", ["", " ", "\t\n  "])
def test_an_empty_question_is_refused_with_exit_2(question: str) -> None:
    done = run_laika("ask", question)
    assert done.returncode == 2
    assert "the question is empty" in done.stderr
    assert done.stdout == ""


@given(st.text(alphabet=" \t\n\r\x0b\x0c\u00a0\u2003\u3000", max_size=20))
def test_every_blank_question_is_refused(question: str) -> None:
    with pytest.raises(click.BadParameter, match="the question is empty"):
        _question(None, None, question)  # type: ignore[arg-type]


@pytest.mark.slow  # > 3 s with the cores busy
def test_an_empty_collection_says_so_and_how_to_add_sources() -> None:
    assert run_laika("collections", "create", "Reading").returncode == 0
    done = run_laika("ask", "anything about cats?", "-c", "Reading")
    assert done.returncode == 0, done.stderr
    assert "The collection “Reading” is empty" in done.stdout
    assert 'laika capture FILE_OR_URL -c "Reading"' in done.stdout
    scripted = json.loads(run_laika("ask", "cats?", "-c", "Reading", "--json").stdout)
    assert scripted["status"] == "unsupported"
    assert scripted["citations"] == []


@pytest.mark.slow  # > 3 s with the cores busy
def test_an_unknown_collection_lists_the_existing_ones(source_id: str) -> None:
    assert run_laika("collections", "create", "Recipes").returncode == 0
    done = run_laika("ask", "cats?", "-c", "Recipies")
    assert done.returncode == 1
    assert done.stderr.startswith("laika: no collection 'Recipies'; the collections are: ")
    assert "'Recipes'" in done.stderr
    assert "'Inbox'" in done.stderr
