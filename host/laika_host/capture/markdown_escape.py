"""Page text and URLs made safe to place in Markdown: text stays text, links stay web links.

The stored Markdown is exported and read by tools other than `laika render` (Obsidian, any
CommonMark reader), so nothing a page writes as text may become a link, an image, raw HTML or
a block marker there. `escape_text` escapes what CommonMark (and GFM tables/strikethrough)
would read as syntax; everything else stays as written, so `Liebe_r`, `[1]`, `C#` or `2 * 3`
read naturally. Each rule holds for a text node on its own: a node cannot know what the
writer puts next to it, so its edges (spaces there included: the writer may move or trim them)
count as "anything may follow" (`[1]` at the very end of a node becomes `[1\\]`).

`can_open`/`can_close` are CommonMark's flanking rules in the strict form the writer needs to
be sure an emphasis marker it writes parses as one.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from urllib.parse import quote

# Whitespace for CommonMark's flanking rules in both readers we check (cmark-gfm, markdown-it):
# ASCII space, tab, line endings, form feed and the Unicode space separators (Zs).
_WHITESPACE = " \t\n\r\f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
_INLINE = re.compile(
    r"[\\`<|]"  # escapes, code spans, HTML and autolinks, table cells
    rf"|(?<![{_WHITESPACE}])[*~]|[*~](?![{_WHITESPACE}])"  # emphasis, strikethrough, fences
    r"|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"  # `_` inside a word cannot open emphasis
    r"|\](?=[(\[\]:]|\Z)|\[(?=\[|\Z)|(?<=!)\[|!(?=\[|\Z)"  # links, images, definitions
    r"|&(?=[#A-Za-z0-9]*(?:;|\Z))"  # entity and character references
)
_LINK_TEXT = re.compile(_INLINE.pattern + r"|[\[\]]")  # inside `[...]` every bracket
_LINE_START = re.compile(
    r"^(\s*)(?:(#{1,6}|[+])(?=\s|\Z)|(-)(?=[-\s]|\Z)|([>=])|(\d{1,9})([.)])(?=\s|\Z))"
)
_HEADING_CLOSER = re.compile(r"(^|[ \t])(#+)[ \t]*\Z")
_ENTITY_LIKE = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_DESTINATION_ESCAPES = {
    code: f"%{code:02X}" for code in (*range(0x21), 0x7F, *b"()<>\\|`")
}  # a str.translate table: one pass in C
_SAFE_SCHEME = re.compile(r"(?:https?|mailto):", re.IGNORECASE)

WHITESPACE, PUNCTUATION, OTHER, AMBIGUOUS = range(4)


def escape_text(text: str, *, in_link: bool = False) -> str:
    """`text` escaped so that a CommonMark reader shows it literally, wherever a node starts.

    `in_link`: the text is (part of) a link text or image description, where every bracket
    counts.
    """
    core = text.strip()
    if not core:
        return text
    if len(core) != len(text):  # edge spaces may move (`<b> x</b>` is ` **x**`): not context
        start = len(text) - len(text.lstrip())
        lead, trail = text[:start], text[start + len(core) :]
        text = lead + (_LINK_TEXT if in_link else _INLINE).sub(r"\\\g<0>", core) + trail
    else:
        text = (_LINK_TEXT if in_link else _INLINE).sub(r"\\\g<0>", text)
    head = text.lstrip()[:1]  # any whitespace: markdown-it counts a no-break space as indent
    if head and (head in "#+->=" or head.isdecimal()):
        text = _LINE_START.sub(_escape_line_start, text, count=1)
    return text


def _escape_line_start(match: re.Match[str]) -> str:
    """A backslash before the one character that would start a block: `\\#`, `1\\.`, `\\>`."""
    indent = match.group(1)
    if match.group(6):
        return f"{indent}{match.group(5)}\\{match.group(6)}"
    return f"{indent}\\{match.group(2) or match.group(3) or match.group(4)}"


def escape_heading(text: str) -> str:
    """A heading's Markdown with a closing `#` run escaped (CommonMark drops `Item #`'s `#`)."""
    return _HEADING_CLOSER.sub(r"\1\\\2", text)


def heading_line(text: str, level: int = 1) -> str:
    """An ATX heading holding `text` (page text, e.g. its `<title>`) literally."""
    return f"{'#' * level} {escape_heading(escape_text(' '.join(text.split())))}"


def is_link_target(url: str) -> bool:
    """Whether `url` may be a link's destination: http, https or mailto."""
    return _SAFE_SCHEME.match(url) is not None


def link_destination(url: str) -> str | None:
    """`url` as a Markdown link destination, or None unless it is http(s) or mailto.

    Characters that could end the destination or start a title (spaces, parentheses, angle
    brackets), the backslash and the table pipe are percent-encoded, so an href like
    `https://x/a)(javascript:...` stays one web link; `&name;` gets a backslash so CommonMark
    does not decode it.
    """
    if not is_link_target(url):
        return None
    encoded = url.translate(_DESTINATION_ESCAPES)
    if not encoded.isascii():
        encoded = "".join(_percent_char(char) for char in encoded)
    if "&" in encoded:
        encoded = _ENTITY_LIKE.sub(r"\\&", encoded)
    return encoded


def _percent_char(char: str) -> str:
    """Invisible and space-like characters percent-encoded; letters of any script kept."""
    if char.isascii() or unicodedata.category(char)[0] not in "CZ":
        return char
    return quote(char, safe="")


def link_title(title: str) -> str:
    """A link or image title as a quoted Markdown title (one line, escapes applied)."""
    title = " ".join(title.split()).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _ENTITY_LIKE.sub(r"\\&", title) + '"'


def image(alt: str, src: str, title: str | None = None) -> str | None:
    """`![alt](src "title")` for a web image, or None when `src` is not http(s)."""
    destination = link_destination(src) if src.lower().startswith("http") else None
    if destination is None:
        return None
    label = escape_text(" ".join(alt.split()), in_link=True)
    if label.startswith("^"):
        label = "\\" + label  # cmark-gfm reads `![^...](...)` as text and a link
    title_part = f" {link_title(title)}" if title else ""
    return f"![{label}]({destination}{title_part})"


@lru_cache(maxsize=4096)
def char_class(char: str) -> int:
    """How CommonMark's flanking rules see `char`; AMBIGUOUS where our two readers (or
    CommonMark versions: 0.31 counts symbols as punctuation) disagree."""
    if char in " \t\n\r\f\u00a0\u1680\u202f\u205f\u3000" or "\u2000" <= char <= "\u200a":
        return WHITESPACE
    if char.isascii():
        if char.isalnum() or not char.isprintable():
            return OTHER if char != "\x0b" else AMBIGUOUS
        return PUNCTUATION
    category = unicodedata.category(char)
    if category[0] == "P":
        return PUNCTUATION
    if category[0] == "S" or char.isspace():
        return AMBIGUOUS
    return OTHER


def can_open(before: int, first: str) -> bool:
    """Whether a marker between a character of class `before` and `first` opens emphasis
    and nothing else (left-flanking, not right-flanking), in every reader."""
    if before == WHITESPACE:
        return True
    return before == PUNCTUATION and char_class(first) == OTHER


def can_close(last: str, after: int) -> bool:
    """Whether a marker between `last` and a character of class `after` only closes."""
    if after == WHITESPACE:
        return True
    return after == PUNCTUATION and char_class(last) == OTHER


def left_flanking(before: int, first: str) -> bool:
    """CommonMark's left-flanking run (it may open), in every reader; `first` is not
    whitespace."""
    return char_class(first) == OTHER or before in (WHITESPACE, PUNCTUATION)


def right_flanking(last: str, after: int) -> bool:
    """CommonMark's right-flanking run (it may close); `last` is not whitespace."""
    return char_class(last) == OTHER or after in (WHITESPACE, PUNCTUATION)
