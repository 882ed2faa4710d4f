"""A click group that imports a subcommand's module only when that subcommand runs.

The browser starts `laika host` for every port; importing pydantic models, trafilatura or
httpx for commands that are not running would cost that start-up time.
"""

from __future__ import annotations

import importlib

import click


class LazyGroup(click.Group):
    """Subcommands given as `{"name": "package.module:attribute"}`, resolved on first use."""

    def __init__(self, *args: object, lazy_commands: dict[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._lazy_commands = lazy_commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self._lazy_commands.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):  # pragma: no cover - programming error
            raise TypeError(f"{target} is not a click command")
        return command
