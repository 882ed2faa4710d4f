"""Entry point the browser runs: `laika host ARGS` or `python -m laika_host.native ARGS`.

Browsers pass: Chrome and its forks the caller origin `chrome-extension://<id>/` (and on
Windows `--parent-window=<hwnd>`); Firefox the manifest path and the extension id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from .session import Caller, Session, SessionOptions

log = logging.getLogger("laika.host")


def parse_browser_args(argv: Sequence[str]) -> Caller:
    """Who launched us, from the arguments each browser passes; unknown ones are kept."""
    origin = extension_id = manifest = parent = None
    browser = "unknown"
    other: list[str] = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg.startswith("chrome-extension://"):
            browser, origin = "chromium", arg
            extension_id = arg.removeprefix("chrome-extension://").strip("/") or None
        elif arg.startswith("--parent-window="):
            parent = arg.partition("=")[2]
        elif arg.endswith(".json") and args and not args[0].startswith("-"):
            browser, manifest, extension_id = "firefox", arg, args.pop(0)
        else:
            other.append(arg)
    return Caller(browser, origin, extension_id, manifest, parent, tuple(other))


USER_DATA_DIR_FLAG = "--user-data-dir"


def user_data_dir_of(arguments: Sequence[str], cwd: str | None = None) -> str | None:
    """The `--user-data-dir` of a Chrome-family browser's command line (`--flag=DIR` or
    `--flag DIR`; the last one wins, as in Chromium), made absolute against the browser's
    working directory `cwd`; None without one."""
    found = None
    for index, arg in enumerate(arguments):
        if arg.startswith(f"{USER_DATA_DIR_FLAG}="):
            found = arg.partition("=")[2]
        elif arg == USER_DATA_DIR_FLAG and index + 1 < len(arguments):
            found = arguments[index + 1]
    if not found:
        return None
    if not os.path.isabs(found) and cwd:
        found = os.path.join(cwd, found)
    return os.path.normpath(found)


def browser_user_data_dir(pid: int | None = None) -> str | None:
    """The profile folder of the browser that started this host (its parent process: the
    browser starts the launcher, which `exec`s Python): read from /proc on Linux, where
    Chromium with `--user-data-dir` reads host manifests only from DIR/NativeMessagingHosts.
    None elsewhere or when it cannot be read."""
    parent = os.getppid() if pid is None else pid
    try:
        raw = Path(f"/proc/{parent}/cmdline").read_bytes()
        cwd = os.readlink(f"/proc/{parent}/cwd")
    except OSError:
        return None
    arguments = [part.decode("utf-8", "surrogateescape") for part in raw.split(b"\0") if part]
    return user_data_dir_of(arguments, cwd)


TERMINAL_NOTICE = """\
laika host is the native-messaging host: your browser starts it (through the launcher that
`laika install` wrote) and talks to it in binary frames on stdin and stdout, so typing here
does nothing. To check that your browsers can reach it, run `laika doctor`. To see what it
prints when it starts, give it no input: `laika host < /dev/null`.
"""
TERMINAL_EXIT = 2
"""Started from a terminal the host has nothing to serve: like a usage error (click's 2), so
a script that runs it by mistake notices, where 0 would claim it served a browser."""


LOOP_SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another waits for it (Python's default: 0.005).
A model's reply is read in a worker thread (`agent.flows`); with the default, the event loop
waited for the GIL at every step of a ping (each read and write gives it up), and pings took
80-300 ms (at most 680) while a 1 MiB reply was read on these busy cores; with 1 ms, 3-35 ms
(at most 141). A worker process did better still (at most 25 ms) but costs a second
interpreter and its imports, and pickling each reply both ways."""


def prefer_the_loop() -> None:
    """Let the event loop's thread have the GIL back soon whenever it needs it."""
    sys.setswitchinterval(LOOP_SWITCH_INTERVAL)


def run_host(argv: Sequence[str]) -> int:
    """Serve one browser port on stdin/stdout until it closes; exit status 0 (2 when stdin
    is a terminal: no browser started it)."""
    if os.isatty(0):
        os.write(2, TERMINAL_NOTICE.encode())
        return TERMINAL_EXIT
    from .stdio import protect_stdout

    frames_fd = protect_stdout()  # first: nothing may ever reach the real stdout
    from .logsetup import configure_logging

    configure_logging()
    caller = parse_browser_args(argv)
    if caller.browser == "chromium":
        caller = replace(caller, user_data_dir=browser_user_data_dir())
    log.info("host starting for %s", caller.to_json() or "an unknown caller")
    prefer_the_loop()
    asyncio.run(_serve_stdio(frames_fd, caller))
    log.info("host stopped")
    return 0


async def _serve_stdio(frames_fd: int, caller: Caller) -> None:
    from ..handlers.routes import default_router, default_watchers
    from .stdio import open_stdio

    reader, sink = await open_stdio(frames_fd)
    grace = float(os.environ.get("LAIKA_EOF_GRACE_SECONDS", "5"))
    options = SessionOptions(
        "stdio", eof_grace_seconds=grace, caller=caller, watchers=default_watchers()
    )
    session = Session(reader, sink, default_router(), options)
    served = asyncio.ensure_future(session.run())
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
            loop.add_signal_handler(signum, reader.feed_eof)  # stop reading, finish, exit 0
    await served
