"""The files the registry replaces, read once: `providers.json` and `policy.json`.

They are read when the registry is first created (under the lock, so once however many
processes start together) and left in place untouched: nothing saved is lost, and an older
Laika still finds them. A file that cannot be used stops the migration with its own error
(naming the file and the fix) and no registry is written, so the next run tries again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..llm.config import PROVIDERS_FILE, load_default, load_providers
from ..tools.policy_file import POLICY_FILE, load_user_rules


def legacy_sections(data: Path) -> tuple[dict[str, Any], list[str]]:
    """The registry sections the old files hold, and the names of the files found."""
    sections: dict[str, Any] = {}
    found: list[str] = []
    providers_file = data / PROVIDERS_FILE
    if providers_file.exists():
        providers = load_providers(providers_file)
        sections["providers"] = {
            "items": [p.model_dump(mode="json", exclude_defaults=True) for p in providers],
            "default": _usable_default(load_default(providers_file), providers),
        }
        found.append(PROVIDERS_FILE)
    policy_file = data / POLICY_FILE
    if policy_file.exists():
        rules = load_user_rules(policy_file)
        sections["policy"] = {"rules": [json.loads(rule.model_dump_json()) for rule in rules]}
        found.append(POLICY_FILE)
    return sections, found


def _usable_default(default: str | None, providers: list[Any]) -> str | None:
    from ..llm.config import OFFLINE

    if default == OFFLINE or any(p.id == default for p in providers):
        return default
    return None
