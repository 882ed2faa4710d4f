"""`laika validate`: check LLMCP data and say exactly what is wrong with it."""

from __future__ import annotations

import sys
from typing import BinaryIO

import click

from ..errors import exit_code
from ._output import echo, print_json

EXIT_VALID = 0
EXIT_INVALID = 1

KIND_CHOICES = (
    "auto",
    "request",
    "response",
    "envelope",
    "context_document",
    "web.observation.summary.v1",
    "web.observation.chunk.v1",
    "collection.index.v1",
    "collection.source.v1",
    "citation",
    "tool_call",
    "render_document",
)


@click.command()
@click.argument("source", type=click.File("rb"), metavar="FILE|-")
@click.option(
    "--as",
    "kind",
    type=click.Choice(KIND_CHOICES),
    default="auto",
    show_default=True,
    help="What FILE holds; auto tells a packet (by its `type`) from the other objects.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document with the result.")
def validate(source: BinaryIO, kind: str, as_json: bool) -> None:
    """Validate an LLMCP v1 packet (request or response, told apart by its `type`).

    Prints `ok <type> <id>` and exits 0 when valid. Otherwise prints each problem as
    `<json.path>: <message>` and exits 1. Input that is not JSON exits 2. Read standard
    input with `-`.

    Parts of a packet can be checked alone too: an envelope, a context document, a
    document's content (`ok <doc_type> <source_id or url>`), a citation, a tool call
    (`ok tool_call <name>`) or a render Document.
    """
    from ..protocol import NotJsonError, check_object, parse_json

    try:
        result = check_object(parse_json(source.read()), kind)
    except NotJsonError as exc:
        if as_json:
            print_json({"ok": False, "error": "not_json", "message": str(exc)}, indent=None)
        echo(f"laika validate: {exc}. Give one JSON object (an LLMCP packet).", err=True)
        sys.exit(exit_code(exc))
    if as_json:
        issues = [{"path": i.path, "message": i.message, "code": i.code} for i in result.issues]
        summary = {
            "ok": result.ok,
            "kind": result.kind,
            "label": result.label,
            "content_path": result.content_path,
            "issues": issues,
        }
        print_json(summary, indent=None)
    elif result.ok:
        echo(f"ok {result.kind} {result.label}")
    else:
        for issue in result.issues:
            echo(str(issue))
    sys.exit(EXIT_VALID if result.ok else EXIT_INVALID)
