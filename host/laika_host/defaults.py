"""User-level defaults and bounds, each defined once.

The CLI's options, the native payload models, the service layer and the store all read them
from here, so `laika ask` and the side panel cannot drift apart (a test finds any of them
written as a literal elsewhere). A leaf module: it imports nothing, so every layer may use it
and `laika --help` stays fast.
"""

from __future__ import annotations

DEFAULT_COLLECTION = "Inbox"
"""Where a page, note or question goes when no collection is named (created on first use)."""

DEFAULT_MAX_TOKENS = 1024
"""The answer's length bound (model tokens) when a call names none."""
TRANSFORM_MAX_TOKENS = 2048
"""The length bound of a transform's reply (its items) when a run names none: longer than an
answer, since a table or a quiz holds many cited items."""
MIN_MAX_TOKENS = 16
"""Below this a model cannot write one cited sentence."""
MAX_MAX_TOKENS = 32_000
"""The largest answer any configured model is asked for (cost and time)."""

CAPTURE_MAX_CHARS = 24_000
"""A captured page's Markdown bound (characters) unless a caller asks for another."""

LIST_LIMIT = 100
"""One page of a listing (sources, jobs, chat events) when none is asked for."""
MAX_LIST_LIMIT = 1000
"""The largest page a message may ask for (a reply stays a few frames)."""
MAX_CLI_LIST_LIMIT = 10_000
"""The largest page `laika sources list` or `logs list` prints (a terminal has no frame bound)."""

RUNS_LIMIT = 20
"""LLM runs `laika logs list` shows when no limit is asked for (the latest few)."""

SEARCH_LIMIT = 20
"""Search hits returned when no limit is asked for."""
MAX_SEARCH_LIMIT = 200
"""The most search hits one query returns (ranking cost is bounded by it)."""

MAX_JOBS_PER_RUN = 1000
"""The most capture jobs one `jobs.run` message may ask for."""
