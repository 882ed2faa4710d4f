"""README and shipped examples stay true: the examples validate and the shown output is real."""

from __future__ import annotations

import re

import pytest

from support import REPO, run_laika

EXAMPLES = REPO / "docs" / "examples"


@pytest.mark.parametrize("name", ["summarize.request.json", "summarize.response.json"])
def test_shipped_examples_are_valid(name: str) -> None:
    done = run_laika("validate", str(EXAMPLES / name))
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("ok ")


def _console_block(readme: str) -> list[str]:
    block = re.search(r"```console\n(.*?)```", readme, re.DOTALL)
    assert block, "README lost its `laika validate` console example"
    return block.group(1).splitlines()


def test_readme_console_example_matches_real_output() -> None:
    lines = _console_block((REPO / "README.md").read_text(encoding="utf-8"))
    outputs: dict[str, list[str]] = {}
    command = ""
    for line in lines:
        if line.startswith("$ laika "):
            command = line.removeprefix("$ laika ")
            outputs[command] = []
        else:
            outputs[command].append(line)
    assert len(outputs) == 2
    for command, shown in outputs.items():
        done = run_laika(*command.split())
        real = done.stdout.splitlines()
        assert len(real) == len(shown), command
        for shown_line, real_line in zip(shown, real, strict=True):
            if shown_line.endswith("..."):  # the README shortens long lines
                assert real_line.startswith(shown_line.removesuffix("..."))
            else:
                assert real_line == shown_line
