"""Settings tools for providers, capture, redaction, the policy and preferences."""

from __future__ import annotations

from .tool import SettingsTool

TOOLS: tuple[SettingsTool, ...] = ()
