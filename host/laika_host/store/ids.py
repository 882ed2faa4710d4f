"""Typed ids (`col_`, `src_`, `job_`, `chat_`, `art_`, `run_`, `call_`, `rule_` + UUID) and
epoch-ms clocks."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Literal

IdPrefix = Literal["col", "src", "job", "chat", "art", "run", "call", "rule"]


def new_id(prefix: IdPrefix) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def iso(ms: int | None) -> str | None:
    """Epoch ms (as stored) -> ISO-8601 UTC (as sent on the wire)."""
    if ms is None:
        return None
    return (
        datetime.fromtimestamp(ms / 1000, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )
