"""Secrets never enter the registry: a value the one redaction module (`laika_host.redact`)
would hide, a name that is a secret, or text saying it holds one ("my password is ...") is
refused, naming where secrets belong instead. Every write (a preference, an event rule, any
setting, whoever proposes it) passes here, so nothing reaches registry.json or its history."""

from __future__ import annotations

from typing import Any

from ..errors import RefusedError
from ..redact import holds_secret

WHERE_SECRETS_GO = (
    "keep a password in your password manager, and a model's key in an environment "
    "variable (e.g. `export MY_API_KEY=...`) whose name you store (a provider's `api_key_env`)"
)


class SecretValueError(RefusedError):
    """A setting's value looks like a key, token or password."""


def refuse_secrets(path: str, value: Any) -> None:
    """Raise SecretValueError when `value` (under the path's last name), or the path, holds
    or says a secret (`redact.holds_secret`); the message never repeats either."""
    parts = path.split(".")
    if holds_secret(parts[-1], value) or any(holds_secret(part, None) for part in parts[:-1]):
        raise SecretValueError(
            f"the value for {_shown(path)} looks like a password, key or token, and Laika "
            f"never stores secrets in settings: {WHERE_SECRETS_GO}"
        )


def _shown(path: str) -> str:
    """The path as the message names it: a part that is itself a secret is not repeated."""
    parts = [("[redacted]" if holds_secret(part, None) else part) for part in path.split(".")]
    return repr(".".join(parts))
