"""When a new capture of a saved URL must not replace it: the refresh guard.

The host fetches without the user's session, so a refresh of a page saved while logged in
often gets the login wall instead. A capture is kept out (the saved copy stays, and the
caller is told why) when it brings less than `MIN_TEXT_RATIO` of the saved text, or a
blocking signal the saved copy did not have. `force` replaces anyway; what is replaced is
archived in `source_versions` either way.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..capture.models import Capture
from .records import CaptureStatus, loads
from .rows import DamagedValueError, from_row

MIN_TEXT_RATIO = 0.5
"""A new capture with less than this share of the saved text does not replace it."""

BLOCKING_SIGNALS = ("paywall_or_login", "captcha", "age_gate", "script_required")
"""Signals of a page that stands in for the content (overlays and cookie banners sit on top
of content that is still there; the text ratio catches them when it is not)."""


def keep_reason(saved_text_chars: int, saved_signals: list[str], capture: Capture) -> str | None:
    """Why `capture` must not replace the saved copy, or None when it may."""
    new_blocks = [s for s in BLOCKING_SIGNALS if s in capture.signals and s not in saved_signals]
    if new_blocks:
        return (
            f"the new capture shows {', '.join(new_blocks)}, which the saved copy did not (a "
            "login wall or a block page?); kept the saved copy. Save the page from the browser "
            "while logged in, or delete the saved copy to keep the new one"
        )
    if saved_text_chars and len(capture.text) < MIN_TEXT_RATIO * saved_text_chars:
        return (
            f"the new capture has {len(capture.text):,} characters of text, less than half of "
            f"the saved {saved_text_chars:,} (a login wall or a broken page?); kept the saved "
            "copy (delete it to keep the new one)"
        )
    return None


class SavedCopy(BaseModel):
    """The saved capture a new one is compared with, checked before anything is written: a
    damaged row (a version below 1, text where a count belongs) must stop the write, not
    reach an archive or an UPDATE half-way."""

    model_config = ConfigDict(strict=True, frozen=True)

    id: str
    status: CaptureStatus
    content_hash: str | None
    version: int = Field(ge=1, lt=2**63 - 1)
    """Below SQLite's largest INTEGER: the next capture stores it plus one."""
    text_chars: int = Field(ge=0)
    signals: list[str]
    previous_hashes: list[str]

    @property
    def captured(self) -> bool:
        return self.status == "captured"


@from_row
def saved_copy(row: Any) -> SavedCopy:
    """From `id, capture_status, content_hash, capture_version, text_chars, signals,
    provenance_json` of a `sources` row."""
    provenance = loads(row["provenance_json"], {})
    if not isinstance(provenance, dict):
        raise DamagedValueError("provenance that is not a JSON object")
    return SavedCopy(
        id=row["id"],
        status=row["capture_status"],
        content_hash=row["content_hash"],
        version=row["capture_version"],
        text_chars=row["text_chars"] or 0,
        signals=loads(row["signals"], []),
        previous_hashes=provenance.get("previous_hashes", []),
    )
