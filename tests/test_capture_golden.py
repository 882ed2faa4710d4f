"""Capture golden tests: HTML in, exact Markdown (or fields) out."""

from __future__ import annotations

import codecs
from collections.abc import Callable

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.capture import (
    TRUNCATION_MARKER,
    CaptureError,
    CaptureOptions,
    capture_html,
    normalize_url,
    strip_credentials,
)
from laika_host.capture.bounds import blocks
from laika_host.capture.links import outbound_links

SELECTION = CaptureOptions(mode="selection")
URL = "https://example.org/news/story.html"


def md(html: str, url: str | None = URL, **options: object) -> str:
    return capture_html(html, url, options=CaptureOptions(mode="selection", **options)).markdown  # type: ignore[arg-type]


def article(body: str, *, title: str = "A story", head: str = "") -> str:
    paragraphs = "".join(
        f"<p>Paragraph {i} of the story, long enough to look like real prose that readers want "
        f"to keep, with a few details about the topic at hand and its history.</p>"
        for i in range(6)
    )
    return (
        f"<html><head><title>{title}</title>{head}</head><body>"
        f"<nav><a href='/'>Home</a><a href='/news'>News</a></nav>"
        f"<main><article><h1>{title}</h1>{paragraphs}{body}</article></main>"
        f"<footer>Impressum and contact</footer></body></html>"
    )


# --- conversion -------------------------------------------------------------------------


def test_table_keeps_its_separator_row() -> None:
    html = (
        "<table><thead><tr><th>Name</th><th>Score</th></tr></thead>"
        "<tbody><tr><td>Ada</td><td>10</td></tr><tr><td>Linus</td><td>9</td></tr></tbody></table>"
    )
    assert md(html) == "| Name | Score |\n| --- | --- |\n| Ada | 10 |\n| Linus | 9 |"


def test_table_without_header_cells_still_gets_a_separator_row() -> None:
    html = "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"
    assert md(html) == "| a | b |\n| --- | --- |\n| c | d |"


@pytest.mark.parametrize(
    ("html", "language"),
    [
        ('<pre><code class="language-python">print("hi")</code></pre>', "python"),
        ('<pre class="lang-js"><code>let x = 1;</code></pre>', "js"),
        ("<pre><code>plain</code></pre>", ""),
    ],
)
def test_code_blocks_are_fenced_with_their_language(html: str, language: str) -> None:
    code = html.split("<code", 1)[1].split(">", 1)[1].split("</code>", maxsplit=1)[0]
    assert md(html) == f"```{language}\n{code}\n```"


def test_nested_lists() -> None:
    html = "<ul><li>one<ul><li>one.a</li><li>one.b</li></ul></li><li>two</li></ul><ol><li>first</li><li>second</li></ol>"
    assert md(html) == "- one\n  - one.a\n  - one.b\n- two\n\n1. first\n2. second"


def test_links_and_images_are_made_absolute() -> None:
    html = (
        '<p>See <a href="../docs/a.html">the docs</a> and <img src="/img/cat.png" alt="a cat"></p>'
    )
    assert md(html) == (
        "See [the docs](https://example.org/docs/a.html) and "
        "![a cat](https://example.org/img/cat.png)"
    )


def test_base_href_wins_over_the_page_url() -> None:
    html = '<html><head><base href="https://cdn.example.net/site/"></head><body><p><a href="page">x</a></p></body></html>'
    result = capture_html(html, URL, options=CaptureOptions(mode="full"))
    assert "[x](https://cdn.example.net/site/page)" in result.markdown


def test_images_can_be_dropped() -> None:
    assert md('<p>Text <img src="a.png" alt="pic"></p>', include_images=False) == "Text"


def test_unsafe_links_lose_their_target_but_keep_their_words() -> None:
    html = '<p><a href="javascript:alert(1)">click</a> <a href="#top">top</a> <a href="mailto:a@b.org">mail</a></p>'
    assert md(html) == "click top [mail](mailto:a@b.org)"


def test_no_raw_html_reaches_the_markdown() -> None:
    html = "<p>Hi <script>alert(1)</script><b onclick='x()'>bold</b> <span style='x'>span</span> <iframe src='x'></iframe></p>"
    out = md(html)
    assert out == "Hi **bold** span"
    assert "<" not in out


def test_escapes_only_where_markdown_needs_them() -> None:
    assert md("<p>Liebe_r Besucher_in, see [1] and C# or 2*3</p>") == (
        "Liebe_r Besucher_in, see [1] and C# or 2\\*3"
    )
    assert md("<p>1. Ich glaube</p>") == "1\\. Ich glaube"
    assert md("<p># not a heading</p>") == "\\# not a heading"


def test_headings_blockquotes_and_whitespace() -> None:
    html = "<h2>  Part   two </h2><blockquote><p>Quoted\n   text</p></blockquote><p>\n\n\nend</p>"
    assert md(html) == "## Part two\n\n> Quoted text\n\nend"


def test_credential_parameters_are_stripped_from_links_and_images() -> None:
    html = (
        '<p><a href="https://x.org/p?id=3&amp;token=SECRET&amp;utm_source=n">x</a>'
        '<img src="https://x.org/i.png?sig=abc&amp;w=3" alt="i"></p>'
    )
    out = md(html)
    assert "SECRET" not in out
    assert "sig=" not in out
    assert "https://x.org/p?id=3&utm_source=n" in out
    assert "https://x.org/i.png?w=3" in out


# --- article mode ---------------------------------------------------------------------


def test_article_mode_drops_navigation_and_footer_and_keeps_the_title() -> None:
    result = capture_html(article(""), URL)
    assert result.markdown.startswith("# A story\n\nParagraph 0 of the story")
    assert "Home" not in result.text
    assert "Impressum" not in result.text
    assert result.extractor in ("trafilatura", "readability")


def test_title_is_prepended_when_the_body_lacks_it() -> None:
    html = (
        "<html><head><title>Only in the head</title></head><body><article>"
        + "".join(
            f"<p>Body paragraph number {i} with enough words to be kept as content.</p>"
            for i in range(8)
        )
        + "</article></body></html>"
    )
    assert capture_html(html, URL).markdown.startswith("# Only in the head\n\n")


@pytest.mark.parametrize(
    ("noise", "words", "kept"),
    [
        ('<div class="header-ad">BUY NOW cheap</div>', "BUY NOW cheap", False),
        ('<div id="shareBar">Share on Facebook</div>', "Share on Facebook", False),
        ('<div class="newsletter-box">Join the newsletter</div>', "Join the newsletter", False),
        ('<div class="related-posts"><a href="/a">Other story</a></div>', "Other story", False),
        ('<div role="dialog" aria-modal="true">Sign up now</div>', "Sign up now", False),
        ('<div class="download">Get the full report here</div>', "Get the full report", True),
    ],
)
def test_noise_is_removed_by_name_tokens(noise: str, words: str, kept: bool) -> None:
    result = capture_html(article(noise), URL, options=CaptureOptions(mode="full"))
    assert (words in result.text) is kept


def test_a_content_block_named_like_noise_is_kept() -> None:
    prose = "".join(
        f"<p>{f'Important finding number {i} explained at length. ' * 4}</p>" for i in range(3)
    )
    html = f'<html><body><div class="content sharing">{prose}</div></body></html>'
    assert (
        "Important finding number 2"
        in capture_html(html, URL, options=CaptureOptions(mode="full")).text
    )


# --- bounds and chunks ----------------------------------------------------------------


def test_truncation_keeps_head_middle_and_tail_with_a_marker() -> None:
    html = "".join(f"<p>Paragraph {i}: {'words ' * 60}</p>" for i in range(120))
    result = capture_html(html, URL, options=CaptureOptions(mode="selection", max_chars=6000))
    assert result.truncated
    assert "truncated" in result.signals
    assert len(result.markdown) <= 6000
    assert result.markdown.startswith("Paragraph 0:")
    assert result.markdown.rstrip().split("\n\n")[-1].startswith("Paragraph 119:")
    assert result.markdown.count(TRUNCATION_MARKER) >= 2
    assert TRUNCATION_MARKER not in result.text


def test_truncation_never_cuts_inside_a_code_fence_or_table() -> None:
    code = "\n".join(f"line_{i} = {i}" for i in range(400))
    table = (
        "<table><tr><th>a</th></tr>"
        + "".join(f"<tr><td>{i}</td></tr>" for i in range(300))
        + "</table>"
    )
    html = f"<p>{'intro ' * 100}</p><pre><code>{code}</code></pre>{table}<p>{'outro ' * 100}</p>"
    result = capture_html(html, URL, options=CaptureOptions(mode="selection", max_chars=3000))
    assert len(result.markdown) <= 3000
    for block in blocks(result.markdown):
        if block.startswith("```"):
            assert block.rstrip().endswith("```")
        if block.startswith("|"):
            assert all(line.startswith("|") for line in block.split("\n"))


def test_chunks_split_on_headings_and_never_inside_a_fence() -> None:
    sections = "".join(
        f"<h2>Section {s}</h2>"
        + "".join(f"<p>{'text ' * 80}</p>" for _ in range(5))
        + f"<pre><code>{'x = 1' + chr(10) * 1}{'y = 2' * 50}</code></pre>"
        for s in range(6)
    )
    result = capture_html(
        sections, URL, options=CaptureOptions(mode="selection", chunk_size=3000, max_chars=24000)
    )
    assert [c.index for c in result.chunks] == list(range(1, len(result.chunks) + 1))
    assert all(c.count == len(result.chunks) for c in result.chunks)
    assert all(len(c.markdown) <= 3000 for c in result.chunks)
    for c in result.chunks:
        assert c.markdown.count("```") % 2 == 0
    assert sum(c.markdown.startswith("## Section") for c in result.chunks) >= 3


@pytest.mark.slow  # > 3 s with the cores busy
def test_a_ten_megabyte_page_is_captured_within_bounds() -> None:
    paragraph = "<p>" + "A long page keeps going with more and more words. " * 20 + "</p>"
    html = (
        "<html><body><article><h1>Huge</h1>"
        + paragraph * (10_000_000 // len(paragraph))
        + "</article></body></html>"
    )
    assert len(html) > 9_900_000
    result = capture_html(html.encode(), URL)
    assert len(result.markdown) <= 24_000
    assert result.truncated


# --- links ------------------------------------------------------------------------------


def test_outbound_links_are_absolute_deduplicated_and_filtered() -> None:
    html = (
        '<p>Read <a href="/a?utm_source=x">the report</a> and <a href="/a">again</a>, '
        'the <a href="https://other.org/study#part">study</a>, <a href="/login">log in</a>, '
        '<a href="/privacy">privacy</a>, <a href="https://www.facebook.com/sharer/sharer.php?u=x">share</a>, '
        '<a href="mailto:a@b.c">mail</a>, <a href="#top">top</a>, <a href="story.html#c">self</a>.</p>'
    )
    result = capture_html(html, URL, options=SELECTION)
    links = [(link.url, link.text) for link in result.extracted_links]
    assert links == [
        ("https://example.org/a?utm_source=x", "the report"),
        ("https://other.org/study#part", "study"),
    ]
    assert all(len(link.context) <= 200 for link in result.extracted_links)
    assert "Read the report and again" in result.extracted_links[0].context


def test_a_block_of_many_links_gives_each_its_context_in_linear_time() -> None:
    """A link's context is its block's text, read once per block: read again for each link,
    a long paragraph of links cost links x paragraph (quadratic, up to `MAX_LINKS` links)."""

    def prepare(count: int) -> Callable[[], object]:
        words = "a long stretch of plain words around the links of this one paragraph " * 60
        html = (
            "<div><p>"
            + "".join(
                f"<a href='https://example.org/{n}'>link {n}</a> {words}" for n in range(count)
            )
            + "</p></div>"
        )
        root = lxml.html.fragment_fromstring(html)
        return lambda: outbound_links(root, URL, URL)

    assert_linear(prepare, 60, 240, bound=8)  # linear 4, quadratic 16
    found = prepare(3)()
    assert [link.text for link in found] == ["link 0", "link 1", "link 2"]  # type: ignore[attr-defined]
    assert all("link 1" in link.context or "words" in link.context for link in found)  # type: ignore[attr-defined]


# --- URLs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("HTTPS://Example.ORG:443/Path/?b=2&a=1#frag", "https://example.org/Path?a=1&b=2"),
        (
            "https://example.org/p/?utm_source=x&fbclid=y&gclid=z&mc_cid=1&id=7",
            "https://example.org/p?id=7",
        ),
        ("http://example.org:80/", "http://example.org/"),
        ("https://example.org/p?token=abc&session=1&sig=2&id=7", "https://example.org/p?id=7"),
    ],
)
def test_url_normalization(a: str, b: str) -> None:
    assert normalize_url(a) == normalize_url(b) == b


def test_credentials_are_stripped_from_stored_urls() -> None:
    assert (
        strip_credentials("https://user:pw@example.org/p?access_token=x&q=1")
        == "https://example.org/p?q=1"
    )
    result = capture_html("<p>x</p>", "https://example.org/p?api_key=K&q=1", options=SELECTION)
    assert result.url == "https://example.org/p?q=1"
    assert result.normalized_url == "https://example.org/p?q=1"


# --- encodings ------------------------------------------------------------------------

TEXT = "Café naïve – Größe"


@pytest.mark.parametrize(
    "raw",
    [
        codecs.BOM_UTF8 + f"<p>{TEXT}</p>".encode(),
        f"<html><head><meta charset='iso-8859-1'></head><body><p>{TEXT.replace('–', '-')}</p></body></html>".encode(
            "cp1252"
        ),
        f"<html><head><meta http-equiv='Content-Type' content='text/html; charset=windows-1252'></head><body><p>{TEXT}</p></body></html>".encode(
            "cp1252"
        ),
        f"<html><body><p>{TEXT} ist ein längerer Text über Straßen und Größen im Süden.</p></body></html>".encode(
            "cp1252"
        ),
        f"<html><head><meta charset='iso-8859-1'></head><body><p>{TEXT}</p></body></html>".encode(),
        codecs.BOM_UTF16_LE + f"<p>{TEXT}</p>".encode("utf-16-le"),
    ],
    ids=[
        "utf8-bom",
        "declared-latin1",
        "declared-cp1252",
        "undeclared-cp1252",
        "declared-latin1-really-utf8",
        "utf16-bom",
    ],
)
def test_encodings(raw: bytes) -> None:
    result = capture_html(raw, URL, options=CaptureOptions(mode="full"))
    assert "Café naïve" in result.text
    assert "Größe" in result.text


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"", "empty"),
        (b"   \n ", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", "binary"),
        (b"just some words", "not_html"),
    ],
)
def test_bad_input_gets_a_clear_error(raw: bytes, kind: str) -> None:
    with pytest.raises(CaptureError) as caught:
        capture_html(raw, URL)
    assert caught.value.kind == kind
    assert str(caught.value)


# --- signals --------------------------------------------------------------------------

LONG = "".join(
    f"<p>Plenty of real text in paragraph {i}, enough to count as content here.</p>"
    for i in range(12)
)


@pytest.mark.parametrize(
    ("signal", "html"),
    [
        (
            "paywall_or_login",
            f"<html><body>{LONG}<div class='paywall'>Subscribe to continue reading</div></body></html>",
        ),
        (
            "overlay_blocking",
            f"<html><body>{LONG}<div role='dialog' aria-modal='true' style='display: block'>"
            "Wait!</div></body></html>",
        ),
        (
            "consent_overlay",
            f"<html><body>{LONG}<div id='cookie-banner'>We use cookies. Accept all cookies</div></body></html>",
        ),
        ("sparse_text", "<html><body><p>Tiny.</p></body></html>"),
        (
            "script_required",
            "<html><head><script src='app.js'></script></head><body><div id='root'></div><noscript>Please enable JavaScript</noscript></body></html>",
        ),
        (
            "captcha",
            f"<html><body>{LONG}<div class='g-recaptcha' data-sitekey='x'></div></body></html>",
        ),
        (
            "age_gate",
            f"<html><body>{LONG}<div class='age-gate'>Are you over 18?</div></body></html>",
        ),
        (
            "thread_page",
            f'<html><body>{LONG}<script type=\'application/ld+json\'>{{"@type": "DiscussionForumPosting"}}</script></body></html>',
        ),
    ],
)
def test_each_signal_fires(signal: str, html: str) -> None:
    assert signal in capture_html(html, URL).signals


def test_list_page_signal_from_list_mode() -> None:
    items = "".join(f"<li><a href='/item/{i}'>Item {i}</a></li>" for i in range(30))
    assert (
        "list_page"
        in capture_html(
            f"<html><body><ul>{items}</ul></body></html>", URL, options=CaptureOptions(mode="list")
        ).signals
    )


def test_a_plain_article_has_no_signals() -> None:
    assert capture_html(article(""), URL).signals == []


def test_capture_fields() -> None:
    head = (
        "<meta name='author' content='Ada Lovelace'><meta property='article:published_time' content='2026-01-28T10:00:00Z'>"
        "<link rel='canonical' href='/news/story.html?utm_source=x'>"
    )
    result = capture_html(article("", head=head).replace("<html>", "<html lang='en-GB'>"), URL)
    assert (result.title, result.byline, result.published, result.language) == (
        "A story",
        "Ada Lovelace",
        "2026-01-28",
        "en",
    )
    assert result.canonical_url == "https://example.org/news/story.html?utm_source=x"
    assert len(result.content_hash) == 64
    assert result.capture_version == 1
    assert set(result.timings) >= {"parse", "extract", "convert"}


_WORDS = ("spring", "neap", "storm", "calm", "flood", "ebb", "north", "south", "pier", "quay")


@settings(max_examples=25, deadline=None)
@given(
    opening=st.sampled_from(
        [
            "According to the harbour office report of this season, ",
            "In the second week of the survey the team noted that the ",
            "Readers asked us again this month, and the answer is that ",
        ]
    ),
    count=st.integers(min_value=4, max_value=8),
    data=st.data(),
)
def test_an_image_keeps_its_place_when_paragraphs_open_alike(
    opening: str, count: int, data: st.DataObject
) -> None:
    """Images are re-attached by finding paragraphs from their opening words; a page whose
    paragraphs all open with the same phrase once lost every image."""
    after = data.draw(st.integers(min_value=1, max_value=count - 1), label="image after")
    paragraphs = [
        f"<p>{opening}{_WORDS[i]} tides were measured at the pier on {i + 2} mornings in a "
        f"row, and every figure was written down in the log kept at the office.</p>"
        for i in range(count)
    ]
    figure = '<figure><img src="/img/pier.jpg" alt="the pier" width="800" height="400"></figure>'
    body = "".join(paragraphs[:after]) + figure + "".join(paragraphs[after:])
    html = (
        "<html><head><title>Tides</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<article><h1>Tides</h1>{body}</article><footer>Harbour office</footer></body></html>"
    )
    parts = blocks(capture_html(html, URL, options=CaptureOptions()).markdown)
    at = parts.index("![the pier](https://example.org/img/pier.jpg)")
    assert f"{_WORDS[after]} tides were measured" in parts[at + 1]
