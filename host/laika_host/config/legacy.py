"""The files the registry replaces, read once: `providers.json` and `policy.json`.

They are read when the registry is first created (under the lock, so once however many
processes start together) and left in place untouched: nothing saved is lost, and an older
Laika still finds them. A file that cannot be used stops the migration with its own error
(naming the file and the fix) and no registry is written, so the next run tries again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..llm.config import (
    OFFLINE,
    PROVIDERS_FILE,
    ProviderConfig,
    read_default_file,
    read_providers_file,
)
from ..tools.policy_file import POLICY_FILE, load_user_rules


def legacy_sections(data: Path) -> tuple[dict[str, Any], list[str]]:
    """The registry sections the old files hold, and the names of the files found."""
    sections: dict[str, Any] = {}
    found: list[str] = []
    providers_file = data / PROVIDERS_FILE
    if providers_file.exists():
        providers = read_providers_file(providers_file)
        sections["providers"] = {
            "items": providers,
            "default": _usable_default(read_default_file(providers_file), providers),
        }
        found.append(PROVIDERS_FILE)
    policy_file = data / POLICY_FILE
    if policy_file.exists():
        rules = load_user_rules(policy_file)
        sections["policy"] = {
            "rules": [
                r.model_dump(mode="json", by_alias=True, exclude_defaults=True) for r in rules
            ]
        }
        found.append(POLICY_FILE)
    return sections, found


def _usable_default(default: str | None, providers: list[ProviderConfig]) -> str | None:
    if default == OFFLINE or any(p.id == default for p in providers):
        return default
    return None
