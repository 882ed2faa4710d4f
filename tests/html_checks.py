"""The host's safe HTML (artifact viewer, chat answers) checked as a browser would parse it:
nothing runs, and each citation link is a verified citation's own locator."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any


class Tags(HTMLParser):
    """Every start tag with its attributes, and each citation link with its text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.links: list[tuple[str, str]] = []
        self._open: str | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "a" and found.get("class") == "citation":
            self._open = str(found.get("href"))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self.links.append((self._open, data))
            self._open = None


def assert_inert(html: str) -> None:
    for name, attributes in Tags(html).tags:
        assert name not in ("script", "iframe", "object", "embed", "style", "img"), html
        assert not [key for key in attributes if key.startswith("on")], attributes
        assert not str(attributes.get("href") or "").lower().startswith("javascript:")


def assert_chips_verify(page: dict[str, Any]) -> None:
    """Each linked marker names a verified citation whose locator is the link; every
    citation is numbered in order."""
    citations = page["citations"]
    assert [c["marker"] for c in citations] == list(range(1, len(citations) + 1))
    links = Tags(page["html"]).links
    assert links, page["html"][:500]
    for href, text in links:
        citation = citations[int(text.strip("[]")) - 1]
        assert citation["verified"] is True
        assert citation["state"] == "verified"
        assert href == citation["locator"]
