"""One valid call of every v1 tool, with the gate's default decision for it and, where the
schema bounds a value, one value outside the bound: the table the registry, schema and gate
tests share (a new tool adds its row here)."""

from __future__ import annotations

from typing import Any

URL = "https://example.com/page"

VALID: dict[str, dict[str, Any]] = {
    "browser.observe_dom": {"maxChars": 100, "maxElements": 10, "rootHandleId": "h1"},
    "browser.get_selection_links": {"maxLinks": 5},
    "browser.click": {"handleId": "h1"},
    "browser.type": {"handleId": "h1", "text": "hello"},
    "browser.select": {"handleId": "h1", "value": "v"},
    "browser.scroll": {"deltaY": 120},
    "browser.open_tab": {"url": URL},
    "browser.navigate": {"url": URL},
    "browser.back": {},
    "browser.forward": {},
    "browser.refresh": {},
    "search": {"query": "solar", "newTab": False},
    "artifact.save": {"title": "Notes", "markdown": "# Notes", "tags": ["a"]},
    "artifact.share": {"artifactId": "art_1", "format": "markdown", "target": "clipboard"},
    "artifact.open": {"artifactId": "art_1", "target": "workspace", "newTab": True},
    "integration.invoke": {"integration": "notes", "operation": "append", "payload": {}},
    "app.calculate": {"expression": "2+2", "precision": 2},
    "collection.create": {"title": "Reading", "tags": ["t"]},
    "collection.add_sources": {
        "collectionId": "Reading",
        "sources": [{"type": "note", "text": "a note"}, {"type": "url", "url": URL}],
    },
    "collection.list_sources": {"collectionId": "Reading"},
    "source.capture": {"collectionId": "Reading", "url": URL, "mode": "article", "maxChars": 500},
    "source.refresh": {"sourceId": "src_1"},
    "transform.list_types": {},
    "transform.run": {"collectionId": "Reading", "type": "timeline", "config": {}},
}

OUT_OF_RANGE: dict[str, tuple[str, Any]] = {
    "browser.observe_dom": ("maxChars", 0),
    "browser.get_selection_links": ("maxLinks", 0),
    "browser.click": ("handleId", ""),
    "browser.type": ("handleId", ""),
    "browser.select": ("handleId", ""),
    "browser.open_tab": ("url", "ftp://example.com/"),
    "browser.navigate": ("url", "javascript:alert(1)"),
    "search": ("query", ""),
    "artifact.save": ("redaction", "some"),
    "artifact.share": ("format", "docx"),
    "artifact.open": ("target", "desktop"),
    "integration.invoke": ("integration", ""),
    "app.calculate": ("precision", 101),
    "collection.create": ("title", ""),
    "collection.add_sources": ("sources", []),
    "collection.list_sources": ("collectionId", ""),
    "source.capture": ("maxChars", 0),
    "source.refresh": ("sourceId", ""),
    "transform.run": ("type", ""),
}
"""Tools whose schema bounds a value (the no-argument tools and `browser.scroll` bound none)."""

DEFAULT_DECISIONS: dict[str, str] = {
    "browser.observe_dom": "allow",
    "browser.get_selection_links": "allow",
    "browser.click": "ask",
    "browser.type": "ask",
    "browser.select": "ask",
    "browser.scroll": "ask",
    "browser.open_tab": "ask",
    "browser.navigate": "ask",
    "browser.back": "ask",
    "browser.forward": "ask",
    "browser.refresh": "ask",
    "search": "allow",
    "artifact.save": "ask",
    "artifact.share": "allow",
    "artifact.open": "allow",
    "integration.invoke": "deny",
    "app.calculate": "allow",
    "collection.create": "ask",
    "collection.add_sources": "ask",
    "collection.list_sources": "allow",
    "source.capture": "ask",
    "source.refresh": "ask",
    "transform.list_types": "allow",
    "transform.run": "ask",
}
"""Issue #16's defaults for the VALID call of each tool, from the user, nothing untrusted."""
