"""Managing model providers: list, add, remove, test, set the default. One place that both
`laika models` and the native `models.*` messages call, so the two cannot drift.

Keys stay in environment variables: a provider records only the variable's NAME (`key_env`),
and what is reported is whether this process sees it set (`key_set`), never a value.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import ValidationError

from ..errors import MissingError, RefusedError
from .config import (
    OFFLINE,
    ProviderConfig,
    ProviderKind,
    default_provider,
    save_providers,
    validation_reasons,
)
from .config import load_providers as _load_file
from .contract import ProviderCapabilities
from .errors import ProviderConfigError
from .probe import Probe, detected, probe

if TYPE_CHECKING:
    from ..config.registry import Who

OFFLINE_ROW: dict[str, Any] = {
    "id": OFFLINE,
    "kind": "offline",
    "model": "extractive",
    "answers": True,
    "detail": "always available: quotes the best-matching sentences of your sources",
}


class ProviderSettingsError(RefusedError):
    """A provider change that cannot be made; the message names the reason."""

    @property
    def not_found(self) -> bool:
        """Whether the id names no provider (`ProviderNotFoundError`); kept for callers
        written before the category said so."""
        return isinstance(self, MissingError)


class ProviderNotFoundError(MissingError, ProviderSettingsError):
    """The id names no configured provider."""


def key_set(provider: ProviderConfig) -> bool:
    """Whether this process sees the provider's key variable set (never its value)."""
    name = provider.key_env
    return bool(name and os.environ.get(name))


def provider_row(provider: ProviderConfig, default_id: str | None) -> dict[str, Any]:
    try:
        base_url: str | None = provider.url
    except ProviderConfigError:
        base_url = None
    return {
        "id": provider.id,
        "kind": provider.kind,
        "model": provider.model,
        "base_url": base_url,
        "key_env": provider.key_env,
        "key_set": key_set(provider),
        "default": provider.id == default_id,
    }


def list_providers() -> dict[str, Any]:
    """The configured providers (no network), which one is the default (None: offline)."""
    configured = load_providers()
    chosen = default_provider(configured)
    default_id = chosen.id if chosen else None
    return {
        "providers": [provider_row(p, default_id) for p in configured],
        "default": default_id,
        "offline": {**OFFLINE_ROW, "default": default_id is None},
    }


def probe_providers(*, contact: bool) -> list[Probe]:
    """Each configured provider probed (or not, without `contact`), then detected ones."""
    configured = load_providers()
    if not contact:
        return [Probe(p, False, "not probed", "configured") for p in configured]
    with httpx.Client() as client:
        return [probe(p, client) for p in configured] + detected(configured, client)


def add_provider(
    provider_id: str,
    kind: str,
    model: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    markdown_mode: bool = False,
    who: Who = "cli",
    **extra: Any,
) -> tuple[ProviderConfig, Path]:
    """Add or replace a provider; raises ProviderSettingsError with the reason."""
    try:
        provider = ProviderConfig(
            id=provider_id,
            kind=kind,  # type: ignore[arg-type]
            model=model,
            base_url=base_url,
            api_key_env=api_key_env,
            capabilities=ProviderCapabilities(supports_json_mode=False) if markdown_mode else None,
            **extra,
        )
        provider.url  # noqa: B018 - fails early when a base URL is needed
    except ValidationError as error:
        raise ProviderSettingsError(validation_reasons(error)) from None
    except ProviderConfigError as error:
        raise ProviderSettingsError(error.message) from None
    others = [p for p in load_providers() if p.id != provider_id]
    return provider, save_providers([*others, provider], who=who)


def remove_provider(provider_id: str, *, who: Who = "cli") -> ProviderConfig:
    providers = load_providers()
    found = _find(providers, provider_id)
    save_providers([p for p in providers if p.id != provider_id], who=who)
    return found


def set_default(provider_id: str, *, who: Who = "cli") -> str | None:
    """Make a configured provider (or `offline`) the default; returns the new default id
    (None for offline)."""
    providers = load_providers()
    if provider_id != OFFLINE:
        _find(providers, provider_id)
    save_providers(providers, default=provider_id, who=who)
    return None if provider_id == OFFLINE else provider_id


@dataclass(frozen=True)
class ProviderCheck:
    answers: bool
    detail: str
    latency_ms: int

    def to_json(self) -> dict[str, Any]:
        return {"answers": self.answers, "detail": self.detail, "latency_ms": self.latency_ms}


def test_provider(provider_id: str) -> ProviderCheck:
    """One probe (the provider's model list) within `probe.PROBE_TIMEOUT`; `offline` always
    answers. Blocking: call it off the event loop."""
    if provider_id == OFFLINE:
        return ProviderCheck(True, OFFLINE_ROW["detail"], 0)
    provider = _find(load_providers(), provider_id)
    start = time.perf_counter()
    with httpx.Client() as client:
        found = probe(provider, client)
    return ProviderCheck(found.answers, found.detail, round((time.perf_counter() - start) * 1000))


def load_providers() -> list[ProviderConfig]:
    """The configured providers; a file these rules refuse is a ProviderSettingsError that
    names the file, the provider and the fix (never an internal error)."""
    try:
        return _load_file()
    except ProviderConfigError as error:
        raise ProviderSettingsError(error.message) from None


def _find(providers: list[ProviderConfig], provider_id: str) -> ProviderConfig:
    found = next((p for p in providers if p.id == provider_id), None)
    if found is None:
        raise ProviderNotFoundError(f"no provider {provider_id!r}; `laika models list` shows them")
    return found


__all__ = [
    "OFFLINE_ROW",
    "ProviderKind",
    "ProviderNotFoundError",
    "ProviderSettingsError",
    "add_provider",
    "list_providers",
    "probe_providers",
    "remove_provider",
    "set_default",
    "test_provider",
]
