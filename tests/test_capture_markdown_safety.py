"""Captured Markdown says what the page says, and nothing more (issue 12, findings 7, 8, 15).

The stored Markdown is exported and read by other tools, so page text must stay text there: a
CommonMark reader (markdown-it-py and cmark-gfm, `markdown_view`) must see the page's words and
only the page's own links, no image, link or raw HTML spelled by its text. Code blocks come out
as one fence holding the code in every capture mode, and relative links resolve against the
page's path (or its `<base>`) in every mode.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.capture import CaptureOptions, capture_html
from laika_host.capture.convert import html_to_markdown, resolve_urls
from laika_host.capture.extract import Candidate, readability_candidate, trafilatura_candidate
from laika_host.store.sources import media_of
from markdown_view import cmark_view, squash, view

MODES = ("auto", "article", "list", "selection", "full")
PAGE_URL = "https://ex.org/dir/page.html"
SAFE_SCHEMES = ("http://", "https://", "mailto:")
PROSE = "".join(
    f"<p>Paragraph {i} of the story, long enough to look like real prose that readers want "
    "to keep, with a few details about the topic at hand and its history.</p>"
    for i in range(6)
)


def page(body: str, *, head: str = "", title: str = "A story") -> str:
    """An article page: trafilatura and readability both take its `<article>` as the content."""
    return (
        f"<html><head><title>{html_lib.escape(title)}</title>{head}</head><body>"
        f"<main><article><h1>{html_lib.escape(title)}</h1>{PROSE}{body}{PROSE}</article></main>"
        "</body></html>"
    )


def capture(body: str, mode: str, *, head: str = "", title: str = "A story") -> str:
    html = body if mode == "selection" else page(body, head=head, title=title)
    options = CaptureOptions(mode=mode)  # type: ignore[arg-type]
    return capture_html(html, PAGE_URL, options=options).markdown


def convert(fragment: str) -> str:
    """The converter alone, as capture runs it on extracted content."""
    root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    resolve_urls(root, PAGE_URL, include_images=True)
    return html_to_markdown(root)


# --- generated pages: text of any content in every inline and block position -------------

SNIPPETS = [
    "[text](https://evil.example/x)", "![t](https://tracker.example/p.gif)", "[1]", "[a]: /x",
    "<img src=x onerror=alert(1)>", "&lt;b&gt;", "&amp;", "&#x41;", "&copy;", "<!-- c -->",
    "<https://auto.example>", "<a@b.example>", "javascript:alert(1)", "# ", "## h", "> ",
    "- ", "+ ", "* ", "1. ", "2) ", "---", "***", "___", "===", "```", "~~~", "~~x~~",
    "**b**", "*i*", "_u_", "__", "`c`", "\\", "\\*", "|", "| a |", "!", "[[wiki]]", "]",
    "[", "(", ")", "](", "&", ";", "\n", "\t", " ", "\xa0", "x", "word", "1", "C#", "2*3",
]  # fmt: skip
PARSER_DROPS = "\ufdd0\ufffe\uffff"
"""Characters `capture.parse` removes before the writer sees a page (XML cannot hold the
last two; the first is `spacing.PIN`): these trees are built without the parser."""
WRITER_CHARACTERS = st.characters(
    codec="utf-8", exclude_categories=["Cs", "Cc"], exclude_characters=PARSER_DROPS
)
CHARACTERS = WRITER_CHARACTERS | st.sampled_from(list("\n\t #>*_`[]()<>!|~&;:-+=.0123456789\\\"'"))
TEXTS = st.lists(st.sampled_from(SNIPPETS) | CHARACTERS, max_size=8).map("".join)
HREFS = st.sampled_from(
    ["https://ex.org/a", "https://ex.org/a_(b)", "mailto:me@ex.org", "b.html", "/c?x=1&y=2"]
)


@dataclass
class Fragment:
    """Generated HTML with what a reader of the page sees: its text and its links."""

    html: str = ""
    text: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # each link's visible text


def _text(value: str) -> Fragment:
    return Fragment(html_lib.escape(value), [value])


def _wrap(tag: str, attributes: str = "") -> object:
    def build(children: list[Fragment]) -> Fragment:
        inner = "".join(child.html for child in children)
        return Fragment(
            f"<{tag}{attributes}>{inner}</{tag}>",
            [t for child in children for t in child.text],
            [link for child in children for link in child.links],
        )

    return build


def _link(href: str, children: list[Fragment]) -> Fragment:
    inner = _wrap("a", f' href="{html_lib.escape(href)}"')(children)  # type: ignore[operator]
    assert isinstance(inner, Fragment)
    words = squash("".join(inner.text))
    return Fragment(inner.html, inner.text, [*inner.links, words] if words else inner.links)


_BREAK = Fragment("<br>", [" "])
_MARK_TAGS = ["em", "strong", "b", "i", "del", "s", "span", "sup", "code"]
_leaves = st.builds(_text, TEXTS) | st.just(_BREAK)
_marked = st.recursive(
    _leaves,
    lambda inner: st.builds(
        lambda tag, children: _wrap(tag)(children),  # type: ignore[operator]
        st.sampled_from(_MARK_TAGS),
        st.lists(inner, max_size=3),
    ),
    max_leaves=6,
)
_inline = _marked | st.builds(_link, HREFS, st.lists(_marked, max_size=3))
_inlines = st.lists(_inline, max_size=5)


def _block(tag: str, children: list[Fragment]) -> Fragment:
    if tag == "table":
        cell = _wrap("td")(children)  # type: ignore[operator]
        assert isinstance(cell, Fragment)
        row = f"<tr><td>head</td><td>{cell.html}</td></tr>"
        return Fragment(f"<table>{row}</table>", ["head", " ", *cell.text, " "], cell.links)
    if tag in ("ul", "ol"):
        item = _wrap("li")(children)  # type: ignore[operator]
        assert isinstance(item, Fragment)
        return Fragment(f"<{tag}>{item.html}</{tag}>", [*item.text, " "], item.links)
    block = _wrap(tag)(children)  # type: ignore[operator]
    assert isinstance(block, Fragment)
    return Fragment(block.html, [*block.text, " "], block.links)


_blocks = st.builds(
    _block, st.sampled_from(["p", "h2", "ul", "ol", "table", "blockquote"]), _inlines
)


def _page_fragment(blocks: list[Fragment]) -> Fragment:
    return Fragment(
        "".join(b.html for b in blocks),
        [" ", *[t for b in blocks for t in (*b.text, " ")]],
        [link for b in blocks for link in b.links],
    )


fragments = st.lists(_blocks, min_size=1, max_size=4).map(_page_fragment)


def _expected_text(fragment: Fragment) -> str:
    return squash("".join(fragment.text))


def assert_reads_as(markdown: str, fragment: Fragment) -> None:
    """Both readers see the page's text and exactly the page's links, nothing else."""
    for seen in (view(markdown), cmark_view(markdown)):
        assert seen.html == [], f"raw HTML {seen.html} in {markdown!r}"
        assert seen.images == [], f"images {seen.images} in {markdown!r}"
        assert [text for _, text in seen.links] == fragment.links, markdown
        assert all(href.startswith(SAFE_SCHEMES) for href, _ in seen.links), seen.links
        assert seen.text == _expected_text(fragment), markdown
    assert media_of(markdown) == [], markdown


@pytest.mark.slow  # > 5 s here
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fragments)
def test_page_text_stays_text_in_every_position(fragment: Fragment) -> None:
    """Text of any content in paragraphs, headings, list items, table cells, quotes, link
    texts and emphasis reads back as the same text, with only the page's links."""
    assert_reads_as(convert(fragment.html), fragment)


@settings(max_examples=400, deadline=None)
@given(
    st.text(max_size=40), st.sampled_from(["", "https://ex.org/", "javascript:", "mailto:"]), TEXTS
)
def test_any_href_gives_a_web_link_or_none(href: str, prefix: str, words: str) -> None:
    """Whatever an href holds (parentheses, spaces, brackets, quotes, `javascript:`), the
    Markdown links only to http(s) or mailto, and at most once per page link."""
    fragment = (
        f'<p>x <a href="{html_lib.escape(prefix + href)}" title="{html_lib.escape(href)}">'
        f"{html_lib.escape(words) or 'w'}</a> y "
        f'<img src="{html_lib.escape(prefix + href)}" alt="{html_lib.escape(words)}"> z</p>'
    )
    markdown = convert(fragment)
    for seen in (view(markdown), cmark_view(markdown)):
        assert seen.html == []
        assert len(seen.links) <= 1, markdown
        assert len(seen.images) <= 1, markdown
        assert all(href.startswith(SAFE_SCHEMES) for href, _ in seen.links), markdown
        assert all(src.startswith(SAFE_SCHEMES[:2]) for src in seen.images), markdown


def test_media_lists_the_page_images_only() -> None:
    """The stored media list reads images as a CommonMark reader does: page text spelling an
    image (even split across elements) is none, an alt text with brackets is one."""
    markdown = convert(
        "<p>!<span>[x](https://tracker.example/p.gif)</span> and "
        "<img src='https://ex.org/i.png' alt='a [b] \\'></p>"
    )
    assert view(markdown).images == ["https://ex.org/i.png"]
    assert media_of(markdown) == [
        {"type": "image", "url": "https://ex.org/i.png", "alt": "a [b] \\"}
    ]


# --- the issue's own examples, through the whole pipeline in every mode --------------------

HOSTILE = (
    "<p>Text [click](https://evil.example/steal) and ![x](https://tracker.example/p.gif) and "
    "&lt;img src=x onerror=alert(1)&gt; end, with [ref]: https://evil.example and more "
    "words so the paragraph reads like prose to every extractor.</p>"
    '<p>See <a href="https://ex.org/a)(javascript:alert(1)">this link</a> and '
    '<a href="https://ex.org/b c<d>">that one</a> for the details of the story.</p>'
)


@pytest.mark.parametrize("mode", MODES)
def test_markdown_shaped_page_text_stays_text_in_every_mode(mode: str) -> None:
    markdown = capture(HOSTILE, mode, title="[Title](https://evil.example) <b>x</b>")
    for seen in (view(markdown), cmark_view(markdown)):
        assert seen.html == [], markdown
        assert seen.images == [], markdown
        assert all(href.startswith("https://ex.org/") for href, _ in seen.links), seen.links
        assert "[click](https://evil.example/steal)" in seen.text
        assert "<img src=x onerror=alert(1)>" in seen.text
    assert media_of(markdown) == []


def test_a_title_from_the_head_stays_text() -> None:
    """The `<title>` written as the heading (the body has no H1) is page text too."""
    title = "[Win](https://evil.example) ![t](https://tracker.example/t.gif) <img src=x> #"
    html = (
        f"<html><head><title>{html_lib.escape(title)}</title></head><body><article>"
        f"{PROSE}</article></body></html>"
    )
    markdown = capture_html(html, PAGE_URL).markdown
    assert markdown.startswith("# ")
    for seen in (view(markdown), cmark_view(markdown)):
        assert (seen.links, seen.images, seen.html) == ([], [], [])
        assert seen.text.startswith(title)


# --- code blocks ----------------------------------------------------------------------------

CODE_SNIPPETS = [
    "# heading", "[link](https://x.org)", "```", "````", "~~~", "<b>bold</b>", "&amp;",
    "    indented", "\t", "\n", "\n\n", "`", "* item", "x = 1", "\\",
]  # fmt: skip
CODES = (
    st.lists(
        st.sampled_from(CODE_SNIPPETS) | WRITER_CHARACTERS | st.just("\n"),
        min_size=1,
        max_size=12,
    )
    .map("".join)
    .filter(lambda code: code.strip() != "")
)
LANGUAGES = st.from_regex(r"[a-z][a-z0-9+#-]{0,8}", fullmatch=True)


def _shown_code(code: str) -> str:
    """The code as a fence shows it: leading blank lines and trailing blanks are layout."""
    return re.sub(r"^[ \n]*\n", "", code).rstrip(" \n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CODES, LANGUAGES)
def test_a_code_block_is_one_fence_in_every_mode(code: str, language: str) -> None:
    block = f'<pre><code class="language-{language}">{html_lib.escape(code)}</code></pre>'
    for mode in MODES:
        markdown = capture(f"<p>Before the code, a sentence or two.</p>{block}", mode)
        for seen in (view(markdown),):
            assert seen.fences == [(language, _shown_code(code) + "\n")], (mode, markdown)
            assert "heading" not in _headings(markdown), (mode, markdown)


def _headings(markdown: str) -> str:
    return " ".join(t.content for t in _tokens(markdown) if t.type == "inline" and t.level == 1)


def _tokens(markdown: str) -> list:  # type: ignore[type-arg]
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(markdown)
    out = []
    for index, token in enumerate(tokens):
        if token.type == "inline" and index and tokens[index - 1].type == "heading_open":
            out.append(token)
    return out


def test_inline_code_stays_inline_in_every_mode() -> None:
    body = "<p>Call <code>make_thing()</code> before you <code>run --fast</code> it.</p>"
    for mode in MODES:
        markdown = capture(body, mode)
        assert "Call `make_thing()` before you `run --fast` it." in markdown, (mode, markdown)


PRE_SHAPES = {
    "plain pre": ("<pre>first line of text\nsecond   line</pre>", ""),
    "language on pre": ("<pre class='lang-js'>let x = 1;\nx += 1;</pre>", "js"),
    "highlighter spans": (
        "<pre><code class='language-py'><span class='k'>def</span> f():\n"
        "    <span>return</span> 1</code></pre>",
        "py",
    ),
    "highlight wrapper": ("<div class='highlight'><pre><span></span>a = 1\nb = 2</pre></div>", ""),
    "two code elements": ("<pre><code>a()</code>\n<code>b()</code></pre>", ""),
}


@pytest.mark.parametrize("shape", PRE_SHAPES)
def test_every_pre_shape_is_one_fence_in_every_mode(shape: str) -> None:
    """trafilatura turns a `<pre>` without code markers into a quote and loses classes:
    the page's own element comes back."""
    block, language = PRE_SHAPES[shape]
    code = lxml.html.fragment_fromstring(block).text_content()
    for mode in MODES:
        markdown = capture(f"<p>Before the code, a sentence or two.</p>{block}", mode)
        assert view(markdown).fences == [(language, code + "\n")], (mode, markdown)


# --- relative links -------------------------------------------------------------------------

LINKS = (
    "<p>Read <a href='b.html'>the next page</a>, <a href='../up.html'>the parent</a>, "
    "<a href='/root.html'>the root</a> and <a href='?q=1'>a query</a> for the story.</p>"
)


@pytest.mark.parametrize("mode", MODES)
def test_relative_links_resolve_against_the_page_path(mode: str) -> None:
    markdown = capture(LINKS, mode)
    for expected in (
        "[the next page](https://ex.org/dir/b.html)",
        "[the parent](https://ex.org/up.html)",
        "[the root](https://ex.org/root.html)",
        "[a query](https://ex.org/dir/page.html?q=1)",
    ):
        assert expected in markdown, (mode, markdown)


@pytest.mark.parametrize("extract", [trafilatura_candidate, readability_candidate])
def test_no_extractor_resolves_links_itself(extract: Callable[..., Candidate | None]) -> None:
    """Links are resolved once, by `resolve_urls`, whichever extractor found the text."""
    tree = lxml.html.document_fromstring(page(LINKS, head="<base href='/site/'>"))
    if extract is trafilatura_candidate:
        candidate = extract(tree, PAGE_URL, include_images=False)
    else:
        candidate = extract(tree, PAGE_URL)
    assert candidate is not None
    resolve_urls(candidate.root, "https://ex.org/site/", include_images=False)
    hrefs = [a.get("href") for a in candidate.root.iter("a")]
    assert "https://ex.org/site/b.html" in hrefs
    assert "https://ex.org/up.html" in hrefs


@pytest.mark.parametrize("mode", [m for m in MODES if m != "selection"])
def test_relative_links_respect_base(mode: str) -> None:
    markdown = capture(LINKS, mode, head="<base href='https://cdn.ex.net/site/'>")
    assert "[the next page](https://cdn.ex.net/site/b.html)" in markdown, (mode, markdown)
    assert "[the parent](https://cdn.ex.net/up.html)" in markdown, (mode, markdown)


@pytest.mark.parametrize("mode", ["auto", "full"])
def test_a_comment_line_in_code_is_no_heading_to_the_pipeline(mode: str) -> None:
    """The title goes on top, and nothing goes inside the fence, when the page opens with code
    whose comment line (after a blank line) looks like a heading."""
    code = "x = 1\n\n# not a heading\n\ny = 2"
    html = (
        "<html><head><title>Code first</title></head><body><article>"
        f"<pre><code>{code}</code></pre>{PROSE}</article></body></html>"
    )
    markdown = capture_html(html, PAGE_URL, options=CaptureOptions(mode=mode)).markdown  # type: ignore[arg-type]
    assert markdown.startswith("# Code first\n\n"), markdown
    assert view(markdown).fences == [("", code + "\n")]
