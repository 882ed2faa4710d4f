"""`laika host` (what the browser runs) and `laika serve --socket` (the Safari relay)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._output import echo


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("browser_args", nargs=-1, type=click.UNPROCESSED)
def host(browser_args: tuple[str, ...]) -> None:
    """Run the native-messaging host on stdin/stdout, as a browser starts it.

    Takes whatever the browser passes: Chrome's caller origin `chrome-extension://<id>/`,
    Firefox's manifest path and extension id, Windows' `--parent-window=`. Writes only frames
    to stdout; logs go to stderr and to logs/host.log in the data directory. `laika install`
    sets browsers up to run this; `laika doctor` checks that they can. Started from a
    terminal it says so and exits 2; with no input (`< /dev/null`) it exits 0 at once.
    """
    from ..native.transport.host_main import run_host

    sys.exit(run_host(list(browser_args)))


@click.command()
@click.option(
    "--socket",
    "socket_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Socket path (default: laika.sock in the data directory).",
)
def serve(socket_path: Path | None) -> None:
    """Serve the host's messages on a Unix domain socket (for the Safari relay).

    Same frames and message types as `laika host`. The socket is created mode 0600 and
    connections from other users are refused; one server per path (a lock file beside it).
    Stop with Ctrl-C, SIGTERM or SIGHUP: the socket file is removed (only the one this
    server made; a leftover from a killed server is replaced at the next start).
    """
    import contextlib

    from ..native.transport.host_main import prefer_the_loop
    from ..native.transport.logsetup import configure_logging
    from ..native.transport.socket_server import run_socket_server
    from ..paths import data_dir

    configure_logging("serve.log")
    prefer_the_loop()
    path = socket_path or data_dir() / "laika.sock"
    echo(f"serving on {path} (Ctrl-C to stop)", err=True)
    try:
        with contextlib.suppress(KeyboardInterrupt):  # a Ctrl-C before the handlers are set
            run_socket_server(path)
    except FileExistsError as exc:
        raise click.ClickException(str(exc)) from None
