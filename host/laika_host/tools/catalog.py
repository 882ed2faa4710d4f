"""The registry as `laika tools list` shows it: each tool with the gate's default decision
for a call from the user with no untrusted content in context (arguments can change it:
`artifact.share` to a file asks; a non-http(s) URL or a password field is denied)."""

from __future__ import annotations

from typing import Any

from .policy import GateContext, Proposal, decide
from .registry import REGISTRY, SCHEMA_VERSION


def default_decision(name: str) -> str:
    """The shipped rules' decision for `name` called with no arguments by the user."""
    return decide(Proposal(name=name), GateContext(origin="user")).decision


def tool_listing() -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tools": [tool.to_json(default_decision(name)) for name, tool in REGISTRY.items()],
    }
