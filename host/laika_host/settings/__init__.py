"""Curated settings tools: the only way a model, the side panel's settings box or an event
rule changes the settings registry, each tool writing only the paths it declares."""
