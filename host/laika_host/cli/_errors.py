"""How every `laika` command fails on an error Laika raised on purpose: one line,
`laika: <message>`, on stderr (the message already names the problem and the fix; the
error's `cli_hint`, a command-line way out such as a flag, follows in parentheses), then the
exit status of the error's category (`laika_host.errors.EXIT_CODES`).

Commands do not catch these errors themselves: the group does, once, so two commands cannot
report the same error in two ways, and the CLI agrees with the host's error codes.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import click

from ..errors import LaikaError, exit_code
from ._lazy import LazyGroup


def fail(error: LaikaError) -> NoReturn:
    """Report `error` and exit with its category's status."""
    from ._output import echo  # on failure only: `laika host` starts for every browser port

    hint = f" ({error.cli_hint})" if error.cli_hint else ""
    echo(f"laika: {error}{hint}", err=True)
    sys.exit(exit_code(error))


class LaikaGroup(LazyGroup):
    """The `laika` group: lazy subcommands, and every LaikaError they raise reported once."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LaikaError as error:
            fail(error)
