"""What the CLI prints carries no terminal control: escape sequences from pages and models
(an OSC 52 clipboard write, an OSC 8 link hidden behind text, a screen clear) are stripped
from human output, and `--json` escapes every control character, DEL and C1 included."""

from __future__ import annotations

import asyncio
import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.cli import main
from laika_host.store import open_store

from support import REPO, run_laika

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"  # writes `rm -rf ~` to the clipboard
OSC8 = "\x1b]8;;https://evil.example/\x1b\\the tide tables\x1b]8;;\x1b\\"
CLEAR = "\x1b[2J\x1b[H\x9b31m\r"
HOSTILE = f"{OSC52}Tides rise twice a day {OSC8} because the moon pulls. {CLEAR}\x00\x7f\x85"
TERMINAL_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _clean(output: str) -> bool:
    return TERMINAL_UNSAFE.search(output) is None


@pytest.mark.slow  # > 3 s with the cores busy
def test_ask_and_sources_print_no_escape_sequence_from_stored_text(tmp_path: Path) -> None:
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    added = run_laika("sources", "note", "-", stdin=HOSTILE.encode(), env=env)  # title: line 1
    assert added.returncode == 0, added.stderr
    source_id = added.stdout.split()[0]
    for args in (
        ("sources", "list"),
        ("sources", "show", source_id),
        ("search", "tides"),
        ("ask", "Why do tides rise twice a day?"),
    ):
        for json_flag in ((), ("--json",)):
            done = run_laika(*args, *json_flag, env=env)
            assert done.returncode == 0, done.stderr
            assert _clean(done.stdout), (args, json_flag, done.stdout)
            assert _clean(done.stderr), (args, json_flag, done.stderr)
            if json_flag:
                assert "Tides" in json.dumps(json.loads(done.stdout))  # still one JSON document
            elif args[0] != "search":
                assert "the tide tables" in done.stdout or "Tides" in done.stdout
    shown = run_laika("sources", "show", source_id, env=env).stdout
    assert "evil.example" not in shown  # the hidden link's target went with its sequence
    assert "Tides rise twice a day the tide tables because the moon pulls." in shown


async def _add_note(markdown: str) -> str:
    """The note's title is its first line: stored text, which a given title cannot be."""
    async with open_store() as store:
        saved = await store.sources.add_note("Inbox", markdown)
        return saved.source.id


@pytest.mark.slow  # > 3 s with the cores busy
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(min_size=1, max_size=60))
def test_for_any_stored_text_the_cli_prints_no_control_character(text: str) -> None:
    with tempfile.TemporaryDirectory() as home:
        runner = CliRunner(env={"LAIKA_HOME": home})
        os.environ["LAIKA_HOME"] = home  # the store the note goes to (the fixture restores it)
        source_id = asyncio.run(_add_note(f"{text} tides {text}"))
        _check_commands(runner, source_id)


def _check_commands(runner: CliRunner, source_id: str) -> None:
    for args in (
        ["sources", "list"],
        ["sources", "show", source_id],
        ["sources", "show", source_id, "--json"],
        ["search", "tides"],
        ["search", "tides", "--json"],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        assert _clean(result.output), (args, result.output)


def test_every_command_prints_through_the_one_output_helper() -> None:
    cli = REPO / "host" / "laika_host" / "cli"
    direct = [
        path.name
        for path in cli.glob("*.py")
        if path.name != "_output.py" and "click.echo(" in path.read_text(encoding="utf-8")
    ]
    assert not direct, f"print with laika_host.cli._output.echo, not click.echo: {direct}"


@given(text=st.text())
def test_the_output_helpers_print_no_control_character_for_any_text(text: str) -> None:
    import click

    from laika_host.cli._output import echo, print_json

    @click.command()
    def human() -> None:
        echo(text)
        echo(text, err=True)

    @click.command()
    def as_json() -> None:
        print_json({"text": text, text: [text]})

    shown = CliRunner().invoke(human, [])
    assert shown.exit_code == 0
    assert _clean(shown.output)
    printed = CliRunner().invoke(as_json, [])
    assert _clean(printed.output)
    assert json.loads(printed.output) == {"text": text, text: [text]}  # escaped, not lost
