"""`laika llmx`: read, write and translate LLMX v1.0 messages (spec 002)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, BinaryIO, NoReturn

import click

from ..errors import EXIT_USAGE, exit_code
from ._output import echo, print_json

if TYPE_CHECKING:
    from ..llmx import LlmxError

EXIT_INVALID = 1


@click.group()
def llmx() -> None:
    """LLMX v1.0: the compact message format between models (spec 002).

    `parse` checks a message and prints it as JSON, `encode` writes that JSON back as LLMX,
    `from-llmcp` shows an LLMCP packet's LLMX form. An invalid message prints the spec's reply,
    `RES:{o:"NACK",msg:"parse error: ..."}`, naming block, field and position, and exits 1;
    input that cannot be read (not UTF-8, not JSON) exits 2.
    """


@llmx.command("parse")
@click.argument("source", type=click.File("rb"), metavar="FILE|-")
def parse_command(source: BinaryIO) -> None:
    """Check an LLMX message and print it as JSON (blocks, warnings, expanded shortcuts)."""
    from ..llmx import LlmxError, parse
    from ..llmx.jsonform import message_to_json

    text = _text(source, "parse")
    try:
        message = parse(text)
    except LlmxError as error:
        _nack(error)
    print_json(message_to_json(message))


@llmx.command("encode")
@click.argument("source", type=click.File("rb"), metavar="FILE|-")
def encode_command(source: BinaryIO) -> None:
    """Write the JSON that `laika llmx parse` prints back as LLMX (one block a line)."""
    from ..llmx import LlmxError, serialize
    from ..llmx.jsonform import message_from_json

    data = _json(source, "encode", "the JSON `laika llmx parse` prints")
    try:
        message = message_from_json(data)
    except LlmxError as error:
        _nack(error)
    echo(serialize(message))


@llmx.command("from-llmcp")
@click.argument("source", type=click.File("rb"), metavar="FILE|-")
def from_llmcp_command(source: BinaryIO) -> None:
    """Show an LLMCP request or response packet as LLMX (see `laika validate` for packets)."""
    from ..llmx import serialize
    from ..llmx.bridge import request_to_llmx, response_to_llmx
    from ..protocol import RequestPacket, check_packet

    result = check_packet(_json(source, "from-llmcp", "an LLMCP packet"))
    packet = result.packet
    if packet is None:
        for issue in result.issues:
            echo(str(issue), err=True)
        sys.exit(EXIT_INVALID)
    message = (
        request_to_llmx(packet) if isinstance(packet, RequestPacket) else response_to_llmx(packet)
    )
    echo(serialize(message))


def _nack(error: LlmxError) -> NoReturn:
    """The spec's reply on standard output (a sender can read it back), then exit 1."""
    echo(error.nack())
    sys.exit(EXIT_INVALID)


def _read(source: BinaryIO) -> bytes:
    from ..llmx.limits import MAX_INPUT_CHARS

    return source.read(4 * MAX_INPUT_CHARS + 1)  # UTF-8: at most 4 bytes a character


def _text(source: BinaryIO, command: str) -> str:
    from ..llmx import LlmxError
    from ..llmx.limits import MAX_INPUT_CHARS

    data = _read(source)
    if len(data) > 4 * MAX_INPUT_CHARS:
        _nack(LlmxError(f"message longer than {MAX_INPUT_CHARS} characters; split it"))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        echo(
            f"laika llmx {command}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}): give an LLMX message as UTF-8 text.",
            err=True,
        )
        sys.exit(EXIT_USAGE)


def _json(source: BinaryIO, command: str, what: str) -> object:
    from ..protocol import NotJsonError, parse_json

    try:
        return parse_json(_read(source))
    except NotJsonError as exc:
        echo(f"laika llmx {command}: {exc}. Give {what}.", err=True)
        sys.exit(exit_code(exc))
