"""The one way the CLI prints: stored pages and model answers are untrusted, so nothing
reaches the terminal with an escape sequence or control character in it.

Human output loses them (`laika_host.controls.strip_controls`); `--json` output keeps the
text and escapes them, DEL and C1 included, which `json.dumps` alone would print raw.
"""

from __future__ import annotations

import json
import re
from typing import Any

import click

from ..controls import strip_controls

_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u2028\u2029]")  # json.dumps escapes C0 itself


def echo(message: object = "", *, err: bool = False, nl: bool = True) -> None:
    """`click.echo` for text that may come from a page, a model or a user's file."""
    click.echo(strip_controls(str(message)), err=err, nl=nl)


def print_json(value: Any, *, indent: int | None = 2, err: bool = False) -> None:
    """One JSON document; every control character inside it written as a `\\u` escape."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    click.echo(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text), err=err)
