"""Model providers: which one answers a call, and managing the configured ones.

Keys stay in environment variables: a provider records only the variable's NAME, and what
is reported is whether this process sees it set, never a value (`llm.manage`). Managing
errors are `ProviderSettingsError` (`not_found` when the id names none); choosing one that
does not exist is an `LlmError` naming the fix.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm import manage
from ..llm.config import ProviderConfig, ProviderKind, select_provider
from ..llm.manage import ProviderCheck, ProviderSettingsError

if TYPE_CHECKING:
    from ..config.registry import Who

__all__ = [
    "ProviderChoice",
    "ProviderSettingsError",
    "ProviderSpec",
    "add_provider",
    "list_providers",
    "probe_providers",
    "remove_provider",
    "resolve",
    "set_default",
    "test_provider",
]


@dataclass(frozen=True)
class ProviderChoice:
    """Who answers one call: a configured id or `offline` (None: the configured default,
    else offline), and overrides for this call only (an unconfigured `base_url` makes an
    ad-hoc provider of `kind`)."""

    provider_id: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    kind: str | None = None
    context_format: str | None = None
    """`json` or `llmx`: how this call packs its sources (the provider's setting otherwise)."""

    @property
    def by_default(self) -> bool:
        """Nobody was named: the user did not pick this provider, so when it does not answer
        the offline runtime may stand in (`AskOptions.fallback`)."""
        return self.provider_id is None and self.base_url is None


def resolve(choice: ProviderChoice) -> ProviderConfig | None:
    """The provider for the call, None for the built-in offline runtime; LlmError names the
    fix (an unknown id lists the configured ones)."""
    return select_provider(
        choice.provider_id,
        model=choice.model,
        base_url=choice.base_url,
        api_key_env=choice.api_key_env,
        kind=choice.kind,
        context_format=choice.context_format,
    )


def list_providers() -> dict[str, Any]:
    """The configured providers (no network) with the default, and the offline row."""
    return manage.list_providers()


def probe_providers(*, contact: bool) -> list[dict[str, Any]]:
    """Each configured provider and each detected local server, probed unless not
    `contact`, then the built-in runtime (which always answers)."""
    rows = [item.to_json() for item in manage.probe_providers(contact=contact)]
    return [*rows, {**manage.OFFLINE_ROW, "id": "builtin", "source": "built-in"}]


@dataclass(frozen=True)
class ProviderSpec:
    """A provider to add: where it is and which model; its key stays in `api_key_env`."""

    id: str
    kind: ProviderKind
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    markdown_mode: bool = False
    """For a model that cannot keep to JSON: ask for Markdown with quoted lines instead."""
    extra: dict[str, Any] | None = None
    """Per-kind settings (`title`, `referer`, `context_window`, `think`) and
    `context_format`; None ones unset."""


@dataclass(frozen=True)
class ProviderAdded:
    provider: ProviderConfig
    path: Path
    row: dict[str, Any]
    """The provider as listed (`list_providers`), whether its key is set, default or not."""


def add_provider(spec: ProviderSpec, *, who: Who = "cli") -> ProviderAdded:
    """Add or replace a provider (ProviderSettingsError says what is wrong with it)."""
    extra = {key: value for key, value in (spec.extra or {}).items() if value is not None}
    provider, path = manage.add_provider(
        spec.id,
        spec.kind,
        spec.model,
        base_url=spec.base_url,
        api_key_env=spec.api_key_env,
        markdown_mode=spec.markdown_mode,
        who=who,
        **extra,
    )
    default = manage.list_providers()["default"]
    return ProviderAdded(provider, path, manage.provider_row(provider, default))


def remove_provider(provider_id: str, *, who: Who = "cli") -> ProviderConfig:
    return manage.remove_provider(provider_id, who=who)


def set_default(provider_id: str, *, who: Who = "cli") -> str | None:
    """Make a configured provider (or `offline`) the default; the new default id, None for
    offline."""
    return manage.set_default(provider_id, who=who)


async def test_provider(provider_id: str) -> ProviderCheck:
    """Whether the provider answers: one bounded probe, in a thread so that the caller's
    event loop keeps serving meanwhile."""
    return await asyncio.to_thread(manage.test_provider, provider_id)
