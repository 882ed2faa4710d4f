"""Configured providers: where each is, which model, and the NAME of the environment variable
that holds its key. The key itself is read from the environment when a call is made and is
never written anywhere by us."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..paths import data_dir
from ..pydantic_errors import error_message
from .contract import ProviderCapabilities
from .errors import ProviderConfigError
from .key_policy import KeyPolicyError, check_base_url, check_key_destination, check_key_env

if TYPE_CHECKING:
    from ..config.registry import Who
    from ..config.schema import Registry

ProviderKind = Literal[
    "openai", "openrouter", "anthropic", "ollama", "ollama_cloud", "openai_compatible"
]
"""The kinds of provider (one wire format each); the CLI's choices and the native schema."""
PROVIDER_KINDS: tuple[ProviderKind, ...] = get_args(ProviderKind)
ContextFormat = Literal["json", "llmx"]
"""How grounded chat packs its sources and asks for the reply: LLMCP JSON, or compact LLMX
(spec 002; `agent.context_format`). JSON stays the default: measured, LLMX saved about 1% of
the prompt and the small local model did not keep to its reply format (docs/llmx.md, "Compact
mode, measured")."""
CONTEXT_FORMATS: tuple[ContextFormat, ...] = get_args(ContextFormat)
DEFAULT_CONTEXT_WINDOW: dict[ProviderKind, int] = {
    "openai": 64_000,
    "openrouter": 64_000,
    "anthropic": 64_000,
    "ollama_cloud": 32_000,
    "ollama": 8_192,
    "openai_compatible": 2_048,  # llama-server's -c default in our recipe; set context_window
}
"""The context window assumed for a kind when the provider sets none (`context_window`)."""
DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "anthropic": "https://api.anthropic.com",
    "ollama": "http://127.0.0.1:11434",
    "ollama_cloud": "https://ollama.com",
}
DEFAULT_KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "ollama_cloud": "OLLAMA_API_KEY",
}
PROVIDERS_FILE = "providers.json"


class Timeouts(BaseModel):
    """Spec 001: connect 10 s, read 60 s (slow local models), write 10 s, pool 10 s."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    connect: float = Field(default=10.0, gt=0)
    read: float = Field(default=60.0, gt=0)
    write: float = Field(default=10.0, gt=0)
    pool: float = Field(default=10.0, gt=0)


class ProviderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    kind: ProviderKind
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key_env: str | None = Field(
        default=None, description="Name of the environment variable holding the key."
    )
    title: str | None = Field(default=None, description="OpenRouter: X-Title header.")
    referer: str | None = Field(default=None, description="OpenRouter: HTTP-Referer header.")
    default_max_tokens: int = Field(default=4096, ge=1, description="When a request has none.")
    context_window: int | None = Field(
        default=None, ge=512, description="Ollama: the largest num_ctx we may ask for."
    )
    think: bool | None = Field(default=None, description="Ollama: send `think` only when set.")
    context_format: ContextFormat = Field(
        default="json", description="Sources and reply as LLMCP JSON, or compact LLMX."
    )
    capabilities: ProviderCapabilities | None = None
    timeouts: Timeouts = Field(default_factory=Timeouts)

    @field_validator("base_url")
    @classmethod
    def _usable_url(cls, value: str | None) -> str | None:
        return None if value is None else check_base_url(value)

    @field_validator("api_key_env")
    @classmethod
    def _key_variable(cls, value: str | None) -> str | None:
        return None if value is None else check_key_env(value)

    @model_validator(mode="after")
    def _key_goes_safely(self) -> ProviderConfig:
        base = self.base_url or DEFAULT_BASE_URLS.get(self.kind)
        if base and self.key_env:
            check_key_destination(base, self.key_env)
        return self

    @property
    def url(self) -> str:
        base = self.base_url or DEFAULT_BASE_URLS.get(self.kind)
        if not base:
            raise ProviderConfigError(
                f"provider {self.id!r} ({self.kind}) needs a base_url", provider=self.id
            )
        return base.rstrip("/")

    @property
    def key_env(self) -> str | None:
        return self.api_key_env or DEFAULT_KEY_ENV.get(self.kind)

    def api_key(self) -> str | None:
        """The key from the environment (None when this provider takes none), read only from
        a variable meant as a model key and for a safe destination (`key_policy`): checked
        here again because `model_copy` overrides skip validation."""
        name = self.key_env
        if not name:
            return None
        try:
            check_key_env(name)
            check_key_destination(self.url, name)
        except KeyPolicyError as error:
            raise ProviderConfigError(str(error), provider=self.id) from None
        return os.environ.get(name) or None


def select_provider(
    provider_id: str | None,
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    kind: str | None = None,
    context_format: str | None = None,
) -> ProviderConfig | None:
    """The provider for one call (None: the built-in offline runtime).

    `offline` picks the built-in runtime; an id picks a configured provider; a base URL alone
    makes an ad-hoc one; nothing picks the first configured provider, else offline. The
    other arguments override fields for this call only. Raises ProviderConfigError naming the fix.
    """
    if provider_id == "offline":
        return None
    configured = load_providers()
    chosen = next((p for p in configured if p.id == provider_id), None)
    if provider_id and chosen is None and not base_url:
        known = ", ".join(p.id for p in configured) or "none"
        raise ProviderConfigError(
            f"no provider {provider_id!r} (configured: {known}); `laika models add` adds one"
        )
    if chosen is None and base_url:
        chosen = validated(
            {
                "id": provider_id or "adhoc",
                "kind": kind or "openai_compatible",
                "model": model or "default",
                "base_url": base_url,
            }
        )
    if chosen is None and configured and not provider_id:
        chosen = default_provider(configured)
    if chosen is None:
        return None
    updates = {
        "model": model,
        "base_url": base_url,
        "api_key_env": api_key_env,
        "context_format": context_format,
    }
    return validated({**chosen.model_dump(), **{k: v for k, v in updates.items() if v}})


def validated(fields: dict[str, object], where: str = "") -> ProviderConfig:
    """A ProviderConfig from `fields`, or ProviderConfigError naming what to fix."""
    try:
        return ProviderConfig.model_validate(fields)
    except ValidationError as error:
        raise ProviderConfigError(where + validation_reasons(error)) from None


def validation_reasons(error: ValidationError) -> str:
    """pydantic's errors as one line each: `field: message` (the rule, not a traceback)."""
    lines = []
    for item in error.errors(include_url=False):
        cause = item.get("ctx", {}).get("error")
        if isinstance(cause, KeyPolicyError):  # already names the field and the fix
            lines.append(str(cause))
            continue
        field = ".".join(str(part) for part in item["loc"]) or "provider"
        lines.append(f"{field}: {error_message(item)}")
    return "; ".join(lines)


OFFLINE = "offline"


def default_provider(
    configured: list[ProviderConfig], path: Path | None = None
) -> ProviderConfig | None:
    """The provider used when a call names none: the one set with `set_default`, else the
    first configured; None (the offline runtime) when the default is `offline` or nothing
    is configured."""
    chosen = load_default(path)
    if chosen == OFFLINE:
        return None
    named = next((p for p in configured if p.id == chosen), None)
    return named or (configured[0] if configured else None)


def load_default(path: Path | None = None) -> str | None:
    """The default provider in the settings registry (a provider id or `offline`), if any.

    `path`, here and in `load_providers` / `save_providers`: the `providers.json` of another
    data directory (its registry is used); none: this process's data directory.
    """
    return _registry(path).providers.default


def load_providers(path: Path | None = None) -> list[ProviderConfig]:
    """The providers of the settings registry (`providers.items`)."""
    return list(_registry(path).providers.items)


def save_providers(
    providers: list[ProviderConfig],
    path: Path | None = None,
    *,
    default: str | None = None,
    who: Who = "cli",
) -> Path:
    """Replace the registry's providers as one change (keys are never part of a
    ProviderConfig). The default (`default`, else the one saved) is kept while it names
    `offline` or a provider. Returns the registry file."""
    from ..config import registry

    directory = _config_dir(path)
    chosen = default or load_default(path)
    if not (chosen == OFFLINE or any(p.id == chosen for p in providers)):
        chosen = None
    items = [p.model_dump(mode="json", exclude_defaults=True) for p in providers]
    registry.mutate(
        {"providers.items": items, "providers.default": chosen},
        who=who,
        tool="models",
        directory=directory,
    )
    return registry.registry_file(directory)


def _config_dir(path: Path | None) -> Path | None:
    from ..config.files import CONFIG_DIR

    return None if path is None else path.parent / CONFIG_DIR


def _registry(path: Path | None) -> Registry:
    from ..config import registry

    return registry.load(_config_dir(path))


def providers_path() -> Path:
    """Where providers were kept before the settings registry (migrated once from there)."""
    return data_dir() / PROVIDERS_FILE


def read_providers_file(path: Path) -> list[ProviderConfig]:
    """The providers of a `providers.json` (the file the registry migrates from)."""
    if not path.exists():
        return []
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ProviderConfigError(f"{path} is not valid JSON ({error}); fix it") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("providers", []), list):
        raise ProviderConfigError(f'{path} must be {{"providers": [...]}}; fix it')
    return [
        validated(item, f"{path}, provider {_name(item, index)}: ")
        for index, item in enumerate(raw.get("providers", []))
    ]


def read_default_file(path: Path) -> str | None:
    """The default named in a `providers.json`, if any."""
    if not path.exists():
        return None
    raw = json.loads(path.read_text(encoding="utf-8"))
    value = raw.get("default") if isinstance(raw, dict) else None
    return value if isinstance(value, str) else None


def _name(item: object, index: int) -> str:
    name = item.get("id") if isinstance(item, dict) else None
    return repr(name) if isinstance(name, str) else f"#{index + 1}"
