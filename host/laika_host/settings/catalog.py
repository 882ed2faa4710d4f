"""Every curated settings tool, by name, in the order a decline lists them.

Each family lives in its own module exposing `TOOLS`; this table only joins them, so adding
a family is one line here.
"""

from __future__ import annotations

from ..events.rule_tools import TOOLS as RULE_TOOLS
from .builtin import TOOLS as BUILTIN_TOOLS
from .tool import SettingsTool

SETTINGS_TOOLS: dict[str, SettingsTool] = {
    tool.name: tool for tool in (*BUILTIN_TOOLS, *RULE_TOOLS)
}
