"""Render Document -> Markdown: golden outputs, and text that always renders literally."""

from __future__ import annotations

import re
from typing import Any

import lxml.html
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from laika_host.protocol import Document
from laika_host.render import document_to_markdown, markdown_to_safe_html

from strategies import render_documents

MD = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def doc(*children: dict[str, Any]) -> Document:
    return Document.model_validate({"type": "doc", "children": list(children)})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def para(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": "paragraph", "children": list(children)}


def item(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": "list_item", "children": list(children)}


GOLDEN = [
    ("heading", doc({"type": "heading", "level": 2, "children": [text("Summary")]}), "## Summary"),
    (
        "paragraphs",
        doc(para(text("One.")), para(text("Two."))),
        "One.\n\nTwo.",
    ),
    (
        "inline marks",
        doc(
            para(
                {"type": "strong", "children": [text("bold")]},
                text(" and "),
                {"type": "emphasis", "children": [text("italic")]},
                text(" and "),
                {"type": "inline_code", "text": "x = 1"},
            )
        ),
        "**bold** and *italic* and `x = 1`",
    ),
    (
        "link",
        doc(
            para({"type": "link", "href": "https://example.com/a_(b)", "children": [text("site")]})
        ),
        r"[site](https://example.com/a_\(b\))",
    ),
    (
        "link without label shows its address",
        doc(para({"type": "link", "href": "mailto:a@example.com", "children": []})),
        "[mailto:a@example.com](mailto:a@example.com)",
    ),
    (
        "bullet list",
        doc({"type": "list", "items": [item(text("a")), item(text("b"))]}),
        "- a\n- b",
    ),
    (
        "ordered list with start",
        doc(
            {
                "type": "list",
                "ordered": True,
                "start": 3,
                "items": [item(text("c")), item(text("d"))],
            }
        ),
        "3. c\n4. d",
    ),
    (
        "nested list",
        doc(
            {
                "type": "list",
                "items": [
                    item(
                        para(text("outer")),
                        {"type": "list", "ordered": True, "items": [item(text("inner"))]},
                    )
                ],
            }
        ),
        "- outer\n\n  1. inner",
    ),
    (
        "adjacent lists stay apart",
        doc(
            {"type": "list", "items": [item(text("a"))]},
            {"type": "list", "items": [item(text("b"))]},
        ),
        "- a\n\n* b",
    ),
    (
        "blockquote",
        doc({"type": "blockquote", "children": [para(text("quoted")), para(text("more"))]}),
        "> quoted\n>\n> more",
    ),
    (
        "code block with language",
        doc({"type": "code_block", "language": "python", "text": "print('hi')\n"}),
        "```python\nprint('hi')\n```",
    ),
    (
        "code block containing a fence",
        doc({"type": "code_block", "text": "```\ncode\n```"}),
        "````\n```\ncode\n```\n````",
    ),
    (
        "table with alignment",
        doc(
            {
                "type": "table",
                "align": ["left", "right"],
                "rows": [
                    {
                        "type": "table_row",
                        "cells": [
                            {"type": "table_cell", "children": [text("Name")]},
                            {"type": "table_cell", "children": [text("Score")]},
                        ],
                    },
                    {
                        "type": "table_row",
                        "cells": [
                            {"type": "table_cell", "children": [text("a|b")]},
                            {
                                "type": "table_cell",
                                "children": [{"type": "inline_code", "text": "1|2"}],
                            },
                        ],
                    },
                ],
            }
        ),
        "| Name | Score |\n| :--- | ---: |\n| a\\|b | `1\\|2` |",
    ),
    (
        "thematic break",
        doc(para(text("a")), {"type": "thematic_break"}, para(text("b"))),
        "a\n\n---\n\nb",
    ),
    (
        "markup in text is escaped",
        doc(para(text("# not a heading *nor* [a link](javascript:x) <b>html</b>"))),
        r"\# not a heading \*nor\* \[a link\](javascript:x) \<b>html\</b>",
    ),
    (
        "snake_case stays readable",
        doc(para(text("max_chars and _under_"))),
        r"max_chars and \_under\_",
    ),
    (
        "heading closing hashes",
        doc({"type": "heading", "level": 1, "children": [text("Issue #")]}),
        r"# Issue \#",
    ),
    (
        "list-like text",
        doc(para(text("1. first\n- second\n+ third"))),
        "1\\. first\n\\- second\n\\+ third",
    ),
    ("entity-like text", doc(para(text("&amp; stays &amp;"))), r"\&amp; stays \&amp;"),
    ("hard line break", doc(para(text("a"), {"type": "line_break"}, text("b"))), "a\\\nb"),
    ("empty document", doc(), ""),
]


@pytest.mark.parametrize(("name", "document", "expected"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_markdown(name: str, document: Document, expected: str) -> None:
    assert document_to_markdown(document) == expected


def test_escaped_markup_renders_as_text() -> None:
    html = MD.render(
        document_to_markdown(doc(para(text("<script>alert(1)</script> [x](javascript:y)"))))
    )
    assert "<script>" not in html
    assert "<a " not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def _rendered_text(markdown: str) -> str:
    """The text a reader sees in the first paragraph (soft breaks as newlines)."""
    tokens = MD.parse(markdown)
    blocks = [t for t in tokens if t.type == "inline"]
    assert len(blocks) <= 1, f"text became {len(blocks)} blocks: {markdown!r}"
    if not blocks:
        return ""
    out = []
    for child in blocks[0].children or []:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type == "softbreak":
            out.append("\n")
        else:
            raise AssertionError(f"text produced a {child.type} token: {markdown!r}")
    return "".join(out)


# markdown-it trims a paragraph's two ends like JavaScript's String.prototype.trim
# What markdown-it-py trims from a paragraph (Python's str.strip()): JavaScript's whitespace minus
# U+FEFF, which JavaScript's trim() removes and Python keeps (it is not str.isspace()).
_TRIMMED = " \t\n\v\f\r\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(
    chr(code) for code in range(0x2000, 0x200B)
)


def _expected(value: str) -> str:
    """What a reader should see: lines stripped of spaces/tabs, blank lines dropped."""
    lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    joined = "\n".join(line.strip(" \t") for line in lines if line.strip(" \t"))
    return joined.strip(_TRIMMED)


TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"])
    | st.sampled_from(list("\n\t #>*_`[]()<>!|~&;:-+=.0123456789\\")),
    max_size=60,
)


@settings(max_examples=1500, deadline=None)
@given(TEXT)
def test_any_text_node_renders_literally(value: str) -> None:
    markdown = document_to_markdown(doc(para(text(value))))
    assert _rendered_text(markdown) == _expected(value)


@pytest.mark.slow  # > 5 s here
@settings(max_examples=400, deadline=None)
@given(render_documents)
def test_rendered_documents_only_link_where_the_tree_links(data: dict[str, Any]) -> None:
    html = MD.render(document_to_markdown(Document.model_validate(data)))
    hrefs = re.findall(r'<a href="([^"]*)"', html)
    assert all(href.startswith(("http://", "https://", "mailto:")) for href in hrefs), hrefs
    assert len(hrefs) <= _count_links(data)
    assert "<img" not in html
    assert "<script" not in html


def _count_links(node: Any) -> int:
    if isinstance(node, dict):
        own = 1 if node.get("type") == "link" else 0
        return own + sum(_count_links(value) for value in node.values())
    if isinstance(node, list):
        return sum(_count_links(value) for value in node)
    return 0


def test_text_ending_in_a_bang_before_a_link_does_not_become_an_image() -> None:
    """Found by Hypothesis: "!" then a link rendered as `![..](..)`, an image."""
    from laika_host.protocol import Document
    from laika_host.render import document_to_markdown

    document = Document.model_validate(
        {
            "type": "doc",
            "children": [
                {
                    "type": "paragraph",
                    "children": [
                        {"type": "text", "text": "Wow!"},
                        {"type": "link", "href": "https://x.test/", "children": []},
                    ],
                }
            ],
        }
    )
    assert document_to_markdown(document) == "Wow\\![https://x.test/](https://x.test/)"


@settings(max_examples=1500, deadline=None)
@given(TEXT)
@example("\ufeff")  # found by Hypothesis: CommonMark drops a byte-order mark opening a document
def test_any_text_node_reads_the_same_through_the_product_renderer(value: str) -> None:
    """The same promise through what the UI shows: cmark-gfm, then nh3. CommonMark strips only
    spaces and tabs from a paragraph's two ends, not markdown-it's JavaScript whitespace."""
    html = markdown_to_safe_html(document_to_markdown(doc(para(text(value)))))
    lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    expected = "\n".join(line.strip(" \t") for line in lines if line.strip(" \t"))
    shown = lxml.html.fragment_fromstring(html, create_parent="div").text_content()
    assert shown.strip("\n") == expected
