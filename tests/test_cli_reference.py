"""docs/CLI.md is the commands' own `--help`: it is exactly what the generator renders now, and
each section is exactly what `laika ... --help` prints."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from laika_host.cli import main
from laika_host.cli.reference import REGENERATE, WIDTH, reference, walk

from support import REPO

CLI_MD = REPO / "docs" / "CLI.md"


def test_the_reference_is_current() -> None:
    assert CLI_MD.read_text(encoding="utf-8") == reference(main), (
        f"docs/CLI.md differs from the commands' --help: regenerate it with `{REGENERATE}` "
        "(from the repository root, in the venv) and commit it"
    )


def _paths() -> list[list[str]]:
    top = click.Context(main, info_name="laika", **main.context_settings)
    return [context.command_path.split()[1:] for context in walk(main, top)]


@pytest.fixture
def _root_logging_restored() -> Iterator[None]:
    """`laika` configures the root logger when a subcommand runs (even for --help): undo it,
    so no other test in this process logs into this one's data directory."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.usefixtures("_root_logging_restored")
def test_each_section_is_what_the_command_prints_for_help() -> None:
    sections = dict(
        re.findall(r"^#{2,4} `([^`]+)`\n\n```text\n(.*?)\n```\n", reference(main), re.M | re.S)
    )
    paths = _paths()
    assert len(sections) == len(paths) > 20  # every command and subcommand, once
    runner = CliRunner()
    for path in paths:
        shown = runner.invoke(main, [*path, "--help"], prog_name="laika", terminal_width=WIDTH)
        assert shown.exit_code == 0, (path, shown.output)
        assert sections[" ".join(["laika", *path])] == shown.output.rstrip("\n"), path


def test_contents_links_name_existing_sections() -> None:
    text = reference(main)
    anchors = {
        heading.replace(" ", "-") for heading in re.findall(r"^#{2,4} `([^`]+)`$", text, re.M)
    }
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert set(links) == anchors


def test_the_module_writes_the_file_it_checks(tmp_path: Path) -> None:
    out = tmp_path / "CLI.md"
    done = subprocess.run(
        [sys.executable, "-m", "laika_host.cli.reference", "--output", str(out)],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "37", "LAIKA_HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == reference(main)  # whatever the terminal width


def _commands() -> dict[tuple[str, ...], set[str]]:
    """Each command path and the options it takes (`--help` and `-h` included)."""
    top = click.Context(main, info_name="laika", **main.context_settings)
    found = {}
    for context in walk(main, top):
        options = {"--help", "-h"}
        for param in context.command.params:
            options.update(o for o in [*param.opts, *param.secondary_opts] if o.startswith("-"))
        found[tuple(context.command_path.split())] = options
    return found


def _readme_commands(readme: str) -> list[str]:
    """Every `laika ...` the README shows: inline code, and lines of its shell examples."""
    shown = re.findall(r"`(laika [^`\n]*)`", readme)
    for block in re.findall(r"```(?:sh|console)\n(.*?)```", readme, re.S):
        for raw in block.splitlines():
            line = raw.split(" #")[0].strip().removeprefix("$ ").removeprefix(".venv/bin/")
            if line.startswith("laika "):
                shown.append(line)
    return shown


def _unknown(command: str, commands: dict[tuple[str, ...], set[str]]) -> list[str]:
    """What `command` names that `laika` does not have: a subcommand or an option. `a | b`
    after a subcommand shows its siblings (`laika jobs list | run`)."""
    path: tuple[str, ...] = ("laika",)
    unknown: list[str] = []
    words = command.split()[1:]
    for before, word in zip(["", *words], words, strict=False):
        option = word.strip("[](),.").split("=")[0]
        if (*path, word) in commands:
            path = (*path, word)
        elif before == "|" and (*path[:-1], word) in commands:
            path = (*path[:-1], word)
        elif option.startswith("-") and option not in ("-", "--") and option not in commands[path]:
            unknown.append(f"{' '.join(path)} {option}")
        elif path == ("laika",) and not option.startswith("-"):
            unknown.append(f"laika {word}")
            break
    return unknown


def test_every_command_the_readme_shows_exists_with_its_options() -> None:
    commands = _commands()
    shown = _readme_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(shown) > 30
    unknown = sorted({name for command in shown for name in _unknown(command, commands)})
    assert not unknown, f"README.md shows commands or options `laika` lacks: {unknown}"


def test_the_readme_check_catches_what_it_is_for() -> None:
    commands = _commands()
    assert _unknown("laika demo --model local --json", commands) == []
    assert _unknown("laika jobs list [--status S] | run [--max-jobs N]", commands) == []
    assert _unknown("laika demo --modle local", commands) == ["laika demo --modle"]
    assert _unknown("laika jobs list --max-jobs 3", commands) == ["laika jobs list --max-jobs"]
    assert _unknown("laika frobnicate --json", commands) == ["laika frobnicate"]
