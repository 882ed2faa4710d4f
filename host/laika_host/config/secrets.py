"""Keys never enter the registry: a value the one redaction module (`laika_host.redact`) would
hide is refused, naming the environment-variable alternative."""

from __future__ import annotations

from typing import Any

from ..errors import RefusedError
from ..redact import redact_value


class SecretValueError(RefusedError):
    """A setting's value looks like a key, token or password."""


def refuse_secrets(path: str, value: Any) -> None:
    """Raise SecretValueError when `value` (under the path's last name) would be redacted."""
    name = path.rsplit(".", 1)[-1]
    if redact_value({name: value}) != {name: value}:
        raise SecretValueError(
            f"the value for {path!r} looks like a key, token or password, and Laika never "
            "stores those: put it in an environment variable (e.g. `export MY_API_KEY=...`) "
            "and store only the variable's name (a provider's `api_key_env`)"
        )
