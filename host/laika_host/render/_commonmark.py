"""CommonMark + GFM tables -> HTML through cmark-gfm, with raw HTML shown as text.

Why cmark-gfm and not markdown-it-py: markdown-it-py takes 35-41 ms for 50 KB here and this
module about 2 ms (`bench/render_bench.py`). cmark-gfm is GitHub's own GFM parser, and what PyPI
renders untrusted READMEs with. markdown-it-py stays the reference: `tests/test_render_engine.py`
checks that both give the same sanitized HTML and names the few inputs where they differ.

cmark-gfm has no "html off" switch like markdown-it's `html=False`: its safe mode *drops* raw
HTML, so a model explaining `<div>` would lose the word. Every `<` that could open raw HTML is
therefore swapped for a sentinel before parsing and turned back into `&lt;` afterwards: the
text survives and no tag is ever parsed. A `<` stays itself only after a backslash, opening an
autolink, or opening a `](<destination>)`; should such a link fail, so that cmark reads raw HTML
there after all, the input is parsed again with that `<` swapped too. The sentinel is a
punctuation character, as `<` is, so emphasis next to it parses the same; it is chosen among
rare scripts so that it does not occur in the input (checked, including its escapes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from html import escape
from itertools import accumulate

from cmarkgfm import cmark

_SENTINELS = "\U00010a50\U0001039f\U000103d0\U0001091f\U00010857\U00010100\ua95f\ua8ce\uaa5c"
"""Unicode punctuation (cmark counts each as such) from nine rare scripts, none with an HTML
entity name: Kharoshthi, Ugaritic, Old Persian, Phoenician, Imperial Aramaic, Aegean, Rejang,
Saurashtra, Cham."""

_AUTOLINK = (
    r"[A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\x00-\x20]*>"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>"
)
_UNSAFE_AUTOLINK = r"(?i:javascript|vbscript|file|data):"
"""Schemes markdown-it refuses to link; such an autolink is shown as text, as it shows it."""

_NOT_AUTOLINK = rf"<(?!(?!{_UNSAFE_AUTOLINK})(?:{_AUTOLINK}))"
_NOT_DESTINATION = r"(?!(?<=\]\(<)(?:[^<>\n\\]|\\.)*>[ \t]*(?:\)|\n|[ \t][\"'(]))"
_ANGLES = (
    re.compile(_NOT_AUTOLINK + _NOT_DESTINATION),
    re.compile(_NOT_AUTOLINK),
)
"""Which `<` to swap: first every one that opens neither an autolink nor a `](<destination>)`;
if cmark still found raw HTML (a destination whose link failed), every one but autolinks.
Both start with the literal `<`, so the scan runs at C speed; escapes are checked per hit."""
_RAW_HTML_DROPPED = "<!-- raw HTML omitted -->"
_CONTAINER_TAG = re.compile(r"<(/?)(?:blockquote|ul|ol|li)\b[^<>]*>")  # [^<>]: linear
MAX_NESTING = 32
"""Containers (quotes, lists, items) deeper than this are flattened into their parent. cmark
nests without limit, and the sanitizer's time grows with the square of the depth: 8,000 nested
`>` took 0.2 s and 95,000 took 38 s. markdown-it stops at 20 and drops the rest; we keep it."""
_IMAGE = re.compile(r'<img src="[^"]*" alt="([^"]*)"(?: title="[^"]*")? />')
"""cmark's own image markup (raw HTML never reaches its output); alt is already escaped."""


@dataclass(frozen=True)
class _Sentinel:
    char: str
    in_url: str  # how cmark writes it inside an href: percent-encoded UTF-8
    reference: re.Pattern[str]  # a numeric character reference that decodes to it

    def occurs_in(self, markdown: str) -> bool:
        return (
            self.char in markdown
            or self.in_url in markdown
            or ("&#" in markdown and self.reference.search(markdown) is not None)
        )


def _sentinel(char: str) -> _Sentinel:
    code = ord(char)
    return _Sentinel(
        char=char,
        in_url="".join(f"%{byte:02X}" for byte in char.encode()),
        reference=re.compile(rf"&#(?:[xX]0*{code:x}|0*{code});", re.IGNORECASE),
    )


_SENTINEL_POOL = tuple(_sentinel(char) for char in _SENTINELS)


@cache
def _table_extension() -> object:
    cmark.core_extensions_ensure_registered()
    return cmark.find_syntax_extension("table")


def _cmark_html(markdown: str) -> str:
    """cmark-gfm in its safe mode (unsafe URLs emptied, any raw HTML left dropped) plus tables."""
    parser = cmark.parser_new(cmark.Options.CMARK_OPT_DEFAULT)
    try:
        cmark.parser_attach_syntax_extension(parser, _table_extension())
        cmark.parser_feed(parser, _encodable(markdown))
        root = cmark.parser_finish(parser)
        extensions = cmark.parser_get_syntax_extensions(parser)
        html: str = cmark.render_html(root, cmark.Options.CMARK_OPT_DEFAULT, extensions)
        return html
    finally:
        cmark.parser_free(parser)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _encodable(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD: cmark takes UTF-8, which cannot hold them."""
    return _SURROGATE.sub("\ufffd", text)


def _plain_text_html(markdown: str) -> str:
    """The whole input as preformatted text: the last resort when every sentinel occurs in it."""
    return f"<pre><code>{escape(markdown, quote=False)}</code></pre>\n"


def _cap_nesting(html: str) -> str:
    """Drop container tags past MAX_NESTING, keeping their content; a dropped item opens with
    a line break so that items do not run together."""
    if html.count("<blockquote>") + html.count("<li>") <= MAX_NESTING:
        return html  # too few containers to nest that deep: no scan
    steps = [-1 if slash else 1 for slash in _CONTAINER_TAG.findall(html)]
    if max(accumulate(steps), default=0) <= MAX_NESTING:
        return html  # many containers, none too deep (most lists): no rewrite
    depth = 0

    def keep_or_drop(match: re.Match[str]) -> str:
        nonlocal depth
        closing = match.group(1) == "/"
        depth -= closing
        level, depth = depth, depth + (not closing)
        if level < MAX_NESTING:
            return match.group(0)
        return "<br />" if match.group(0).startswith("<li") else ""

    return _CONTAINER_TAG.sub(keep_or_drop, html)


def _swap(match: re.Match[str], sentinel: str) -> str:
    """The sentinel for a `<`, unless an odd run of backslashes before it escapes it."""
    text, backslashes = match.string, 0
    while match.start() - backslashes > 0 and text[match.start() - backslashes - 1] == "\\":
        backslashes += 1
    return "<" if backslashes % 2 else sentinel


def markdown_to_html(markdown: str, *, images: bool) -> str:
    """HTML for `markdown` with no raw HTML passed through; images become their alt text
    unless `images`. The result still needs the sanitizer: this is one of two layers."""
    sentinel = next((s for s in _SENTINEL_POOL if not s.occurs_in(markdown)), None)
    if sentinel is None:
        return _plain_text_html(markdown)
    for angles in _ANGLES:
        if "\\<" in markdown:
            source = angles.sub(lambda match: _swap(match, sentinel.char), markdown)
        else:  # no `<` is escaped: a plain replacement, with no Python call per `<`
            source = angles.sub(sentinel.char, markdown)
        html = _cmark_html(source)
        if _RAW_HTML_DROPPED not in html:
            break
    html = _cap_nesting(html)
    if not images:
        html = _IMAGE.sub(lambda match: match.group(1), html)
    return html.replace(sentinel.char, "&lt;").replace(sentinel.in_url, "%3C")
