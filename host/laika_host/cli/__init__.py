"""The `laika` command. Each subcommand lives in its own module and is imported on use."""

from __future__ import annotations

import click

from .. import __version__
from ._errors import LaikaGroup

COMMANDS = {
    "approvals": "laika_host.cli.approvals:approvals",
    "ask": "laika_host.cli.ask:ask",
    "artifacts": "laika_host.cli.artifacts:artifacts",
    "capture": "laika_host.cli.capture:capture",
    "collections": "laika_host.cli.collections:collections",
    "config": "laika_host.cli.config:config",
    "db": "laika_host.cli.db:db",
    "demo": "laika_host.cli.demo:demo",
    "doctor": "laika_host.cli.install:doctor",
    "host": "laika_host.cli.host:host",
    "install": "laika_host.cli.install:install",
    "jobs": "laika_host.cli.jobs:jobs",
    "local-model": "laika_host.cli.local_model:local_model",
    "llmx": "laika_host.cli.llmx:llmx",
    "logs": "laika_host.cli.logs:logs",
    "models": "laika_host.cli.models:models",
    "serve": "laika_host.cli.host:serve",
    "settings": "laika_host.cli.settings:settings",
    "render": "laika_host.cli.render:render",
    "rules": "laika_host.cli.rules:rules",
    "schema": "laika_host.cli.schema:schema",
    "search": "laika_host.cli.search:search",
    "sources": "laika_host.cli.sources:sources",
    "summarize": "laika_host.cli.ask:summarize",
    "tools": "laika_host.cli.tools:tools",
    "transform": "laika_host.cli.transform:transform",
    "uninstall": "laika_host.cli.install:uninstall",
    "validate": "laika_host.cli.validate:validate",
}
"""Subcommand name -> `module:attribute`; add new commands here."""
SELF_LOGGING = frozenset({"host", "serve"})
"""Long-running commands that set up their own logging (`native.transport.logsetup`)."""


@click.group(
    cls=LaikaGroup, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, prog_name="laika")
@click.pass_context
def main(context: click.Context) -> None:
    """Laika Host: the local half of the Laika browser extension.

    It turns the pages you browse into clean Markdown sources, answers questions over them
    with verified citations, and speaks LLMCP v1 with local or cloud models.
    """
    if context.invoked_subcommand not in SELF_LOGGING:
        from ..events.budget import operation
        from ._logging import configure_cli_logging

        configure_cli_logging()
        # one command is one user operation: its event rules share one action budget
        # (the host and the socket server open one per request instead)
        context.with_resource(operation())
