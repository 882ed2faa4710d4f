"""The user's own gate rules, read before every decision: `policy.rules` of the settings
registry (`laika config get policy.rules`), migrated once from `policy.json` in the data
directory, whose format they keep:

    {"rules": [{"id": "news-ok", "decision": "allow",
                "when": {"tool": "browser.navigate", "url_domain": ["example.org"]}}]}

They come after the guards and before remembered decisions and the defaults (`policy`). The
rules are optional; a file (or a registry) that is not valid is refused as a whole with its
name, the first problem and the fix, never half applied.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import UnreadableError
from ..paths import data_dir
from ..strict_json import NotJsonError, loads_strict
from .policy import Rule

POLICY_FILE = "policy.json"
MAX_POLICY_BYTES = 1_000_000
RESERVED_PREFIXES = ("guard.", "default.", "remembered.", "boundary.")
"""Rule ids the shipped rules and remembered decisions use: a user rule with one would be
mistaken for them in the audit trail."""


class PolicyFileError(UnreadableError):
    """`policy.json` cannot be used; the message names the file, the problem and the fix."""


class PolicyFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rules: list[Rule] = Field(default_factory=list, max_length=1000)

    @field_validator("rules")
    @classmethod
    def _ids(cls, rules: list[Rule]) -> list[Rule]:
        seen: set[str] = set()
        for rule in rules:
            if rule.id.startswith(RESERVED_PREFIXES):
                raise ValueError(f"rule id {rule.id!r} starts with a reserved prefix")
            if rule.id in seen:
                raise ValueError(f"rule id {rule.id!r} is given twice")
            seen.add(rule.id)
        return rules


def policy_path() -> Path:
    return data_dir() / POLICY_FILE


def load_user_rules(path: Path | None = None) -> list[Rule]:
    """The rules of the `policy.json` at `path`, none if absent; without `path`, those of
    the settings registry (a registry that cannot be read is a PolicyFileError too)."""
    if path is None:
        return _registry_rules()
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_POLICY_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as error:
        raise _refused(path, f"cannot be read ({error.strerror})") from None
    if len(raw) > MAX_POLICY_BYTES:
        raise _refused(path, f"is larger than {MAX_POLICY_BYTES:,} bytes")
    try:
        return list(PolicyFile.model_validate(loads_strict(raw)).rules)
    except NotJsonError as error:
        raise _refused(path, f"is not JSON ({error})") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the document"
        raise _refused(path, f"{where}: {first['msg']}") from None


def _registry_rules() -> list[Rule]:
    from ..config.registry import RegistryFileError, load

    try:
        return list(load().policy.rules)
    except RegistryFileError as error:
        raise PolicyFileError(f"{error}; no tool call runs until then") from None


def _refused(path: Path, problem: str) -> PolicyFileError:
    return PolicyFileError(
        f"gate rules file {path} {problem}: fix it (docs/CLI.md, `laika tools`) or remove "
        "it to use the default rules; no tool call runs until then"
    )
