"""`laika render`: Markdown or a render Document -> the safe HTML the extension would show."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, BinaryIO

import click

from ..errors import EXIT_USAGE, exit_code
from ._output import echo

if TYPE_CHECKING:
    from ..protocol import Document

EXIT_INVALID = 1
EXIT_NOT_TEXT = EXIT_USAGE


@click.command()
@click.argument("source", type=click.File("rb"), metavar="FILE|-")
@click.option(
    "--document",
    "as_document",
    is_flag=True,
    help="FILE is a JSON render Document (`type: doc`), not Markdown.",
)
@click.option(
    "--allow-images",
    is_flag=True,
    help="Keep images with an http(s) URL (off: an image shows as its alt text).",
)
def render(source: BinaryIO, as_document: bool, allow_images: bool) -> None:
    """Print the sanitized HTML for Markdown (or, with --document, a render Document).

    The output keeps only basic text markup, tables and http/https/mailto links; raw HTML in
    the input shows as text. An invalid Document prints each problem as `<json.path>:
    <message>` and exits 1; input that is not JSON (or, for Markdown, not UTF-8 text) exits 2.
    Read standard input with `-`.
    """
    from ..render import document_to_safe_html, markdown_to_safe_html

    data = source.read()
    if as_document:
        html = document_to_safe_html(_load_document(data), allow_images=allow_images)
    else:
        html = markdown_to_safe_html(_text(data), allow_images=allow_images)
    echo(html, nl=not html.endswith("\n"))


def _text(data: bytes) -> str:
    """The Markdown as text, or exit 2 naming the problem: a binary file (an image, a PDF, a
    program) would otherwise come out as a page of replacement characters."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        echo(
            f"laika render: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): "
            "give a Markdown file; convert other encodings with `iconv -t UTF-8`.",
            err=True,
        )
        sys.exit(EXIT_NOT_TEXT)
    if "\0" in text:
        offset = text.index("\0")
        echo(
            f"laika render: binary data (a NUL byte at character {offset}): give a Markdown file.",
            err=True,
        )
        sys.exit(EXIT_NOT_TEXT)
    return text


def _load_document(data: bytes) -> Document:
    """The validated Document, or exit with every problem named."""
    from ..protocol import Document, NotJsonError, check_object, parse_json

    try:
        result = check_object(parse_json(data), "render_document")
    except NotJsonError as exc:
        echo(f"laika render: {exc}. Give one JSON object (a render Document).", err=True)
        sys.exit(exit_code(exc))
    if not isinstance(result.value, Document):
        echo("laika render: not a valid render Document:", err=True)
        for issue in result.issues:
            echo(f"  {issue}", err=True)
        sys.exit(EXIT_INVALID)
    return result.value
