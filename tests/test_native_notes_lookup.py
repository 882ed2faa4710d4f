"""`sources.add_note` (typed text stays text) and `sources.lookup` (the badge's "already saved")
through a real host, plus the note escaping as a property over any text."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.render import markdown_to_safe_html
from laika_host.store.note_text import text_to_markdown

from native_client import ARTICLE, Client, HostProcess

MARKUP = [
    "*",
    "_",
    "#",
    "<b>",
    "</p>",
    "[x](javascript:y)",
    "`",
    "&amp;",
    ">",
    "1.",
    "-",
    "\\",
    "|",
]
note_texts = st.lists(
    st.one_of(st.sampled_from([*MARKUP, " ", "\n", "\n\n", "word"]), st.text(max_size=8)),
    max_size=30,
).map("".join)


def shown_lines(html: str) -> list[str]:
    """The text a reader sees, one entry per line (paragraphs and `<br>` both break)."""
    root = lxml.html.fragment_fromstring(html.replace("<br />", "\n"), create_parent="div")
    return [line.strip() for line in root.text_content().split("\n") if line.strip()]


@settings(max_examples=400, deadline=None)
@given(note_texts)
def test_a_typed_note_renders_as_its_own_text(text: str) -> None:
    html = markdown_to_safe_html(text_to_markdown(text))
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    assert {element.tag for element in root.iterdescendants()} <= {"p", "br"}, html
    normalized = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    expected = [line.strip() for line in normalized.split("\n") if line.strip()]
    assert shown_lines(html) == expected


@pytest.mark.slow  # > 3 s with the cores busy
def test_add_note_and_lookup_through_a_real_host(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    secret = "ghp_" + "a1B2" * 9
    try:
        note = client.call(
            "sources.add_note",
            {"collection": "Notes", "text": f"**not bold** <script>x</script>\ntoken {secret}"},
        )
        source_id = note["result"]["source"]["id"]
        stored = client.call("sources.get", {"source_id": source_id})
        titled = client.call("sources.add_note", {"text": "body", "title": "My title"})
        empty = client.call("sources.add_note", {"text": ""})
        for collection in ("Inbox", "Work"):
            client.call("collections.create", {"title": collection})
            client.call(
                "sources.save_page",
                {
                    "url": "https://Tides.test/t/?utm_source=x",
                    "html": ARTICLE,
                    "collection": collection,
                },
            )
        found = client.call("sources.lookup", {"url": "https://tides.test/t#section"})
        none = client.call("sources.lookup", {"url": "https://tides.test/other"})
        bad = client.call("sources.lookup", {"url": "javascript:alert(1)"})
    finally:
        host.kill()
    assert note["result"]["source"]["kind"] == "note"
    assert note["result"]["collection"] == "Notes"
    result = stored["result"]
    assert result["provenance"]["origin"] == "note"
    assert secret not in result["markdown"]
    assert "[redacted]" in result["markdown"]
    assert shown_lines(result["html"]) == ["**not bold** <script>x</script>", "token [redacted]"]
    assert titled["result"]["source"]["title"] == "My title"
    assert empty["error"]["code"] == "bad_request"
    matches = found["result"]["matches"]
    assert sorted(m["collection"] for m in matches) == ["Inbox", "Work"]
    assert all(m["title"] and m["source_id"].startswith("src_") for m in matches)
    assert none["result"] == {"matches": []}
    assert bad["error"]["code"] == "bad_request"
