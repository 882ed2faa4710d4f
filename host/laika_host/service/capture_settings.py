"""The capture defaults the user set (`capture.max_chars`, `capture.default_collection`,
`capture.allow_private_addresses` in the settings registry, e.g. `laika settings "limit
captures to 50000 characters"`), read on use: one `stat` while the settings file is
unchanged, and another process's change applies at the next capture. The shipped defaults
hold when there are no settings yet, or when they cannot be read: a page is never lost to a
damaged settings file (the problem is logged, and `laika config get` names it and the
fix)."""

from __future__ import annotations

import logging
from typing import Any

from ..capture import CaptureMode, CaptureOptions
from ..config.registry import RegistryFileError, peek
from ..config.schema import Capture

log = logging.getLogger("laika.capture")


def _settings() -> Capture:
    try:
        registry = peek()
    except RegistryFileError as error:
        log.warning("capture defaults: %s; using the shipped ones", error)
        return Capture()
    return Capture() if registry is None else registry.capture


def capture_limit() -> int:
    """A captured page's Markdown bound (characters) when the caller names none."""
    return _settings().max_chars


def private_addresses_allowed(asked: bool = False) -> bool:
    """Whether a fetch the user started may reach their own machine or network: asked now
    (`--allow-private-address`) or always (the setting `capture.allow_private_addresses`).
    Never consulted for a model's tools."""
    return asked or _settings().allow_private_addresses


def default_collection(named: str | None = None) -> str:
    """`named`, else the collection captures go to by default."""
    return named if named is not None else _settings().default_collection


def capture_options(
    *, mode: CaptureMode = "auto", max_chars: int | None = None, **rest: Any
) -> CaptureOptions:
    """Capture options with the user's bound unless the caller names one."""
    limit = capture_limit() if max_chars is None else max_chars
    return CaptureOptions(max_chars=limit, mode=mode, **rest)
