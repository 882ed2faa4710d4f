"""Host logging: stderr (the browser keeps it) and a rotating file in the data directory.

Never stdout: that is the frame stream. Request payloads are never logged, only their type,
id, outcome and timing. Whatever does get logged (an id, an extension's `host.log` line, an
exception) is untrusted: `SafeFormatter` redacts secrets from each final record and escapes
its control characters, so one record is one line and no bearer token or cookie is kept.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path
from typing import Any

from ...controls import escape_controls
from ...paths import ensure_private_dir, logs_dir
from ...redact import redact_text

LOG_FORMAT = "%(asctime)s %(levelname)s pid=%(process)d %(name)s: %(message)s"
MAX_LOG_BYTES = 1_000_000
LOG_BACKUPS = 3


_SAFE_LINE = "_laika_safe_line"


class SafeFormatter(logging.Formatter):
    """The standard format with secrets redacted from what can come from outside (the
    message, a traceback, a stack), then CR/LF (and every other control character,
    tracebacks' newlines too) escaped: one record, one line.

    The prefix (time, level, pid, logger name) is ours and holds colons and `=` that would
    each cost the redactor a look, on every request the host logs.
    """

    def format(self, record: logging.LogRecord) -> str:
        # the rotating file handler formats each record twice (once to decide on rollover):
        # the safe line is kept on the record, so the redactor reads it once
        kept = record.__dict__.get(_SAFE_LINE)
        if kept is not None and kept[0] is self:
            return str(kept[1])
        line = escape_controls(super().format(record))
        record.__dict__[_SAFE_LINE] = (self, line)
        return line

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        record.message = redact_text(record.message)  # format() sets it anew on every call
        return super().formatMessage(record)

    def formatException(self, ei: Any) -> str:  # noqa: N802
        return redact_text(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:  # noqa: N802
        return redact_text(super().formatStack(stack_info))


def configure_logging(file_name: str = "host.log") -> Path | None:
    """Log INFO and up to the rotating file, WARNING and up to stderr; returns the file."""
    root = logging.getLogger("laika")
    root.setLevel(os.environ.get("LAIKA_LOG_LEVEL", "INFO").upper())
    root.propagate = False
    for handler in list(root.handlers):
        root.removeHandler(handler)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.WARNING)
    stderr.setFormatter(SafeFormatter(LOG_FORMAT))
    root.addHandler(stderr)
    try:
        path = ensure_private_dir(logs_dir()) / file_name
        to_file = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
        )
    except OSError as exc:  # a read-only home must not stop the host
        root.warning("cannot write the log file in %s: %s", logs_dir(), exc)
        return None
    to_file.setFormatter(SafeFormatter(LOG_FORMAT))
    root.addHandler(to_file)
    return path
