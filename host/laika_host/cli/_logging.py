"""Logging for CLI commands: records go to a file; the terminal gets human lines only.

Without this, Python's last-resort handler prints a WARNING as it was logged: a provider
failure came out as a raw JSON event (`{"event": "llm_request_failed", ...}`) and a failed
answer as a traceback, next to the command's own message about the same thing.
Here every record goes to `cli.log` in the logs folder (redacted, one line each, as the
host's), and stderr gets WARNING and up as `laika: warning: <message>`, without traceback,
pointing to the file. Machine events (records whose message is a JSON object) stay in the
file: the command reports their outcome in its own words.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from io import TextIOWrapper

from ..controls import strip_controls
from ..native.transport.logsetup import LOG_BACKUPS, LOG_FORMAT, MAX_LOG_BYTES, SafeFormatter
from ..paths import ensure_private_dir, logs_dir
from ..redact import redact_text

LOG_FILE = "cli.log"


class _LazyFile(logging.handlers.RotatingFileHandler):
    """Created (folder and file) on the first record, so a command that logs nothing writes
    nothing; a log file that cannot be written never fails the command."""

    def _open(self) -> TextIOWrapper:
        ensure_private_dir(logs_dir())
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        pass


class HumanFormatter(logging.Formatter):
    """`laika: warning: <message>`, redacted, one line; a traceback becomes a pointer to the
    log file that holds it."""

    def __init__(self, log_file: str) -> None:
        super().__init__()
        self.log_file = log_file

    def format(self, record: logging.LogRecord) -> str:
        message = " ".join(strip_controls(redact_text(record.getMessage())).split())
        line = f"laika: {record.levelname.lower()}: {message}"
        return line + (f" (details in {self.log_file})" if record.exc_info else "")


def _ours_and_human(record: logging.LogRecord) -> bool:
    """Other libraries' warnings (trafilatura, pypdf, ...) are for the file, not the user."""
    ours = record.name == "laika" or record.name.startswith("laika.")
    return ours and not record.getMessage().lstrip().startswith("{")


def configure_cli_logging() -> None:
    """Route the log records of one CLI command (see the module docstring): the `laika`
    loggers from INFO, other libraries' from WARNING."""
    root = logging.getLogger()
    root.setLevel(logging.WARNING)
    for handler in list(root.handlers):
        root.removeHandler(handler)
    ours = logging.getLogger("laika")
    ours.setLevel(logging.INFO)
    ours.propagate = True
    for handler in list(ours.handlers):
        ours.removeHandler(handler)
    path = logs_dir() / LOG_FILE
    to_file = _LazyFile(path, maxBytes=MAX_LOG_BYTES, backupCount=LOG_BACKUPS, delay=True)
    to_file.setFormatter(SafeFormatter(LOG_FORMAT))
    root.addHandler(to_file)
    terminal = logging.StreamHandler(sys.stderr)
    terminal.setLevel(logging.WARNING)
    terminal.addFilter(_ours_and_human)
    terminal.setFormatter(HumanFormatter(str(path)))
    root.addHandler(terminal)
