"""One line of `laika doctor`'s report: a check, its outcome, and how to fix a failure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    level: str  # "ok", "warn", "fail", or "skip" (the browser is not installed)
    check: str
    detail: str = ""
    browser_says: str | None = None
    fix: str | None = None
