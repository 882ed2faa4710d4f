"""Whatever text a model puts in an item's fields, the host's Markdown shows it as text: no
raw HTML, no link or image it did not make, every field's words visible as written, in every
layout; and the citations' links are the verified locators only."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.transform.items import CheckedItem
from laika_host.transform.render import LAYOUTS, render
from markdown_view import cmark_view, squash, view

field_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Co", "Cn")), min_size=1, max_size=60
).filter(lambda t: t.strip())
FIELDS: dict[str, dict[str, Any]] = {
    "paragraphs": {"text": field_text},
    "bullets": {"text": field_text},
    "parts": {"heading": field_text, "text": field_text},
    "sections": {"heading": field_text, "body": field_text},
    "qa": {"question": field_text, "answer": field_text},
    "glossary": {"term": field_text, "definition": field_text},
    "timeline": {"date": field_text, "event": field_text},
    "table": {"cells": st.dictionaries(field_text, field_text, min_size=1, max_size=3)},
    "comparison": {
        "subject": field_text,
        "cells": st.dictionaries(field_text, field_text, min_size=1, max_size=3),
    },
    "pros_cons": {"side": st.sampled_from(["pro", "con"]), "text": field_text},
    "actions": {"action": field_text, "owner": field_text, "due": field_text},
    "cards": {"front": field_text, "back": field_text},
    "quiz": {
        "question": field_text,
        "options": st.lists(field_text, min_size=2, max_size=4),
        "explanation": field_text,
    },
    "tree": {"text": field_text, "level": st.integers(1, 6)},
    "slides": {"title": field_text, "bullets": st.lists(field_text, max_size=3)},
    "script": {"speaker": field_text, "line": field_text},
    "email": {"part": st.sampled_from(["subject", "paragraph", "bullet"]), "text": field_text},
    "references": {"text": field_text},
    "notes": {"statement": field_text, "section": field_text},
}
hostile_citation = st.fixed_dictionaries(
    {
        "source_id": field_text,
        "quote": field_text,
        "title": field_text,
        "verified": st.booleans(),
        "locator": st.sampled_from(
            ["javascript:alert(1)", "https://ok.test/a#:~:text=x", "data:text/html,x", "x)(y"]
        ),
        "reason": field_text,
    }
)


@st.composite
def items_for(draw: st.DrawFn, layout: str) -> list[CheckedItem]:
    made = []
    for _ in range(draw(st.integers(1, 3))):
        data = draw(st.fixed_dictionaries(FIELDS[layout]))
        if layout == "quiz":
            data["answer"] = data["options"][0]
        citations = draw(st.lists(hostile_citation, max_size=2))
        verified = bool(citations) and all(c["verified"] for c in citations)
        made.append(
            CheckedItem(kind="x", data=data, citations=citations, verified=verified, flag=None)
        )
    return made


def shown_texts(layout: str, item: CheckedItem) -> list[str]:
    texts = []
    for key, value in item.data.items():
        if key in ("side", "part", "level"):
            continue
        if isinstance(value, dict):
            texts += [*value.keys(), *value.values()]
        elif isinstance(value, list):
            texts += value
        else:
            texts.append(value)
    return [squash(t) for t in texts]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), layout=st.sampled_from(sorted(LAYOUTS)))
def test_any_item_text_renders_as_text_in_every_layout(data: st.DataObject, layout: str) -> None:
    items = data.draw(items_for(layout))
    markdown = render(layout, data.draw(field_text), items)  # type: ignore[arg-type]
    body = markdown.split("\n## Sources\n", 1)[0]
    for read in (view(markdown), cmark_view(markdown)):
        assert read.html == []
        assert read.images == []
        for href, _ in read.links:
            assert href.startswith("https://ok.test/a"), href  # only verified web locators
    read_body = view(body)
    assert read_body.links == []
    for item in items:
        for text in shown_texts(layout, item):
            assert text in read_body.text, (layout, text, body)


def test_layouts_cover_every_type() -> None:
    from laika_host.transform import list_types

    assert {t["layout"] for t in list_types()} <= set(LAYOUTS)
    assert set(FIELDS) == set(LAYOUTS)
