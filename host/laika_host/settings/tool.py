"""The shape of a curated settings tool (spec 004, "Internal Tools").

A tool declares the registry paths it may write (`allowed_paths`); its handler passes them
to `config.registry.mutate`, which refuses any other path. The ACL is therefore enforced in
code, whatever arguments a model proposes, not by the prompt.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..config.registry import Who

if TYPE_CHECKING:
    from ..store import Store


class SettingsArguments(BaseModel):
    """Base of every settings tool's arguments: unknown keys are refused, naming the key."""

    model_config = ConfigDict(extra="forbid", frozen=True)


Handler = Callable[[Any, Who, "Store"], Awaitable[dict[str, Any]]]
"""`(arguments, who, store) -> JSON result`. It writes the registry only through
`mutate(..., tool=name, allowed_paths=...)`; the store is for what lives there (a decision
remembered by the gate)."""


@dataclass(frozen=True)
class SettingsTool:
    name: str
    """`settings.set_default_provider`, `policy.allow_domain`, `rules.create`, ..."""
    description: str
    """One sentence: what the model matches intent against and a decline lists."""
    arguments: type[SettingsArguments]
    allowed_paths: tuple[str, ...]
    """The registry paths (or parents of paths) the handler may write; empty: read-only."""
    run: Handler
    examples: tuple[str, ...] = ()
    """Phrasings the offline intent matcher and the tests use."""

    @property
    def read_only(self) -> bool:
        return not self.allowed_paths
