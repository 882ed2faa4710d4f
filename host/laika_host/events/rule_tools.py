"""Settings tools that manage event rules (`rules.create`, `rules.delete`, `rules.list`)."""

from __future__ import annotations

from ..settings.tool import SettingsTool

TOOLS: tuple[SettingsTool, ...] = ()
