"""`laika validate`: check one LLMCP packet and say exactly what is wrong with it."""

from __future__ import annotations

import json
import sys
from typing import BinaryIO

import click

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_NOT_JSON = 2


@click.command()
@click.argument("source", type=click.File("rb"), metavar="FILE|-")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document with the result.")
def validate(source: BinaryIO, as_json: bool) -> None:
    """Validate an LLMCP v1 packet (request or response, detected from its `type`).

    Prints `ok <type> <id>` and exits 0 when the packet is valid. Otherwise prints each
    problem as `<json.path>: <message>` and exits 1. Input that is not JSON exits 2.
    Read from standard input with `-`.
    """
    from ..protocol import NotJsonError, check_packet_text

    raw = source.read()
    try:
        result = check_packet_text(raw)
    except NotJsonError as exc:
        if as_json:
            click.echo(json.dumps({"ok": False, "error": "not_json", "message": str(exc)}))
        click.echo(f"laika validate: {exc}. Give one JSON object (an LLMCP packet).", err=True)
        sys.exit(EXIT_NOT_JSON)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "ok": result.ok,
                    "type": result.packet_type,
                    "id": result.packet_id,
                    "content_path": result.content_path,
                    "issues": [
                        {"path": i.path, "message": i.message, "code": i.code}
                        for i in result.issues
                    ],
                },
                ensure_ascii=False,
            )
        )
    elif result.ok:
        click.echo(f"ok {result.packet_type} {result.packet_id}")
    else:
        for issue in result.issues:
            click.echo(str(issue))
    sys.exit(EXIT_VALID if result.ok else EXIT_INVALID)
