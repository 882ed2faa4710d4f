"""Settings tools for providers, capture, redaction, the policy and preferences."""

from __future__ import annotations

from .app_tools import TOOLS as APP_TOOLS
from .policy_tools import TOOLS as POLICY_TOOLS
from .tool import SettingsTool

TOOLS: tuple[SettingsTool, ...] = (*APP_TOOLS, *POLICY_TOOLS)
