"""Sanitized HTML elements -> Markdown, in one walk over the lxml tree.

The output is what markdownify 1.2.3 gave us (ATX headings, `-` bullets, backslash line
breaks, GFM tables with an inferred header row, fenced code, whitespace collapsed but not
re-wrapped); tests/test_capture_convert.py checks that on hand-written fragments and on
capture-dev. We walk lxml directly because building a BeautifulSoup tree and markdownify's
per-tag ancestor searches cost more than the rest of the conversion.

Each element is written from its children's Markdown (`_children`) by a per-tag writer
(`_WRITERS`); what the ancestors imply (inside `<pre>`, inside code, inside a heading or
table cell, inside a list item) travels down as bit flags.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .dom import Element

# What the ancestors of a node imply, as bits of one int (cheap to pass down and combine).
PRE = 1  # inside <pre>: whitespace kept verbatim, newlines between children kept
LITERAL = 2  # inside pre/code/kbd/samp: no escapes, no inline markup
INLINE = 4  # inside a heading or table cell: blocks and images become inline text
ITEM = 8  # inside <li>: a nested list hugs its item

_FLAGS = {
    "pre": PRE | LITERAL,
    "code": LITERAL,
    "kbd": LITERAL,
    "samp": LITERAL,
    "td": INLINE,
    "th": INLINE,
    "li": ITEM,
    **{f"h{level}": INLINE for level in range(1, 7)},
}
# Whitespace at the inner edges of these (and next to them) is layout, not text.
_BLOCKS = frozenset(
    {"p", "blockquote", "article", "div", "section", "ol", "ul", "li", "dl", "dt", "dd"}
    | {"table", "thead", "tbody", "tfoot", "tr", "td", "th"}
    | {f"h{level}" for level in range(1, 7)}
)
_BLOCKS_OR_PRE = _BLOCKS | {"pre"}
_ASCII_SPACE = " \t\n\r\f"
_SPACE_RUN = re.compile(r"[\t \r\n]+")
_BACKTICKS = re.compile(r"`+")
_LANGUAGE_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight|brush:?)-?([A-Za-z0-9_+#.-]+)")
_PRE_LEADING = re.compile(r"^[ \n]*\n")
_PRE_TRAILING = re.compile(r"(?<![ \n])[ \n]*$")  # from a run's start: linear
_ESCAPE_STAR = re.compile(r"(?<=\S)\*|\*(?=\S)")
_ESCAPE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_LEADING_NUMBER = re.compile(r"^(\s*\d{1,9})([.)])(?=\s)")
_LEADING_MARK = re.compile(r"^(\s*)([#>+-])(?=\s|$)")
_MAX_COLSPAN = 1000

Writer = Callable[[Element, str, int], str]


def escape_text(text: str) -> str:
    """Escape page text only where Markdown would otherwise read it as syntax.

    A snippet like `Liebe_r`, `[1]` or `C#` stays as written; each check runs only when its
    character is present, because most text nodes need no escape at all.
    """
    if not text:
        return ""
    if "\\" in text or "`" in text:
        text = text.replace("\\", "\\\\").replace("`", "\\`")
    if "*" in text:
        text = _ESCAPE_STAR.sub(r"\\*", text)
    if "_" in text:
        text = _ESCAPE_UNDERSCORE.sub(r"\\_", text)
    head = text.lstrip()[:1]
    if head and (head in "#>+-" or head.isdecimal()):
        # text that would start a list, heading or quote if it opened a line
        text = _LEADING_NUMBER.sub(r"\1\\\2", text)
        text = _LEADING_MARK.sub(r"\1\\\2", text)
    return text


def write_markdown(root: Element) -> str:
    """Markdown for the children of `root`, a transparent container like `<body>`."""
    return _children(root, 0).strip("\n")


# --- the walk ---------------------------------------------------------------------------


def _element(element: Element, flags: int) -> str:
    tag = element.tag
    if not isinstance(tag, str):  # comments and processing instructions (nh3 drops them)
        return ""
    text = _children(element, flags | _FLAGS.get(tag, 0))
    writer = _WRITERS.get(tag)
    return writer(element, text, flags) if writer else text


def _children(element: Element, flags: int) -> str:
    """The Markdown of an element's text and child elements, before its own writer runs."""
    block = element.tag in _BLOCKS
    kids = list(element)
    parts: list[str] = []
    if element.text:
        parts.append(_text(element.text, flags, None, kids[0] if kids else None, block))
    last = len(kids) - 1
    for index, kid in enumerate(kids):
        parts.append(_element(kid, flags))
        if kid.tail:
            following = kids[index + 1] if index < last else None
            parts.append(_text(kid.tail, flags, kid, following, block))
    parts = [part for part in parts if part]
    if len(parts) < 2 or flags & PRE:
        return "".join(parts)
    return _join_blocks(parts)


def _text(text: str, flags: int, before: Element | None, after: Element | None, block: bool) -> str:
    """One text node: whitespace collapsed (outside `<pre>`), escaped (outside code), and
    trimmed where it touches a block's edge or a neighbouring block."""
    trim_start = _is_block(before) or (block and before is None)
    trim_end = _is_block(after) or (block and after is None)
    if text.isspace() and (trim_start or trim_end):
        return ""  # layout whitespace between or inside blocks
    if not flags & PRE:
        text = _collapse_spaces(text)
    if not flags & LITERAL:
        text = escape_text(text)
    if trim_start:
        text = text.lstrip(" \t\r\n")
    if trim_end:
        text = text.rstrip()
    return text


def _collapse_spaces(text: str) -> str:
    """Runs of spaces, tabs and line breaks as one space (the regex only when one is there)."""
    if not text.strip(_ASCII_SPACE):
        return " "
    if "\n" in text or "  " in text or "\t" in text or "\r" in text:
        return _SPACE_RUN.sub(" ", text)
    return text


def _is_block(element: Element | None) -> bool:
    return element is not None and element.tag in _BLOCKS_OR_PRE


def _join_blocks(parts: list[str]) -> str:
    """Join child Markdown; where one part's trailing newlines meet the next part's leading
    ones, keep the longer run, at most two (one blank line between blocks)."""
    out: list[str] = []
    pending = ""  # the previous part's trailing newlines, not yet written
    for part in parts:
        body = part.strip("\n")
        leading = part[: len(part) - len(part.lstrip("\n"))]
        trailing = part[len(leading) + len(body) :]
        if pending and leading:
            leading = "\n" * min(2, max(len(pending), len(leading)))
        else:
            out.append(pending)
        out += (leading, body)
        pending = trailing
    out.append(pending)
    return "".join(out)


# --- inline writers ---------------------------------------------------------------------


def _chomp(text: str) -> tuple[str, str, str]:
    """Move edge spaces outside the markup: `<b> x </b>` is ` **x** `, not `** x **`."""
    before = " " if text[:1] == " " else ""
    after = " " if text[-1:] == " " else ""
    return before, text.strip(), after


def _wrapped_in(mark: str) -> Writer:
    def write(element: Element, text: str, flags: int) -> str:
        if flags & LITERAL:
            return text
        before, body, after = _chomp(text)
        return f"{before}{mark}{body}{mark}{after}" if body else ""

    return write


def _link(element: Element, text: str, flags: int) -> str:
    if flags & LITERAL:
        return text
    before, body, after = _chomp(text)
    href = element.get("href")
    if not body or not href:
        return body
    title = element.get("title")
    title_part = f' "{_quoted(title)}"' if title else ""
    return f"{before}[{body}]({href}{title_part}){after}"


def _image(element: Element, text: str, flags: int) -> str:
    alt = element.get("alt") or ""
    if flags & INLINE:
        return alt
    title = element.get("title")
    title_part = f' "{_quoted(title)}"' if title else ""
    return f"![{alt}]({element.get('src') or ''}{title_part})"


def _quoted(title: str) -> str:
    return title.replace('"', '\\"')


def _code(element: Element, text: str, flags: int) -> str:
    if flags & LITERAL:
        return text
    before, body, after = _chomp(text)
    if not body:
        return ""
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * (longest + 1)
    if longest:
        body = f" {body} "  # so the code's own backticks do not end the span
    return f"{before}{fence}{body}{fence}{after}"


def _line_break(element: Element, text: str, flags: int) -> str:
    return " " if flags & INLINE else "\\\n"


def _quote(element: Element, text: str, flags: int) -> str:
    return f'"{text}"'


# --- block writers ----------------------------------------------------------------------


def _paragraph(element: Element, text: str, flags: int) -> str:
    text = text.strip(" \t\r\n")
    if flags & INLINE:
        return f" {text} "
    return f"\n\n{text}\n\n" if text else ""


def _division(element: Element, text: str, flags: int) -> str:
    text = text.strip()
    if flags & INLINE:
        return f" {text} "
    return f"\n\n{text}\n\n" if text else ""


def _heading(element: Element, text: str, flags: int) -> str:
    if flags & INLINE:
        return text
    level = int(element.tag[1])
    return f"\n\n{'#' * level} {_SPACE_RUN.sub(' ', text.strip())}\n\n"


def _blockquote(element: Element, text: str, flags: int) -> str:
    text = text.strip(" \t\r\n")
    if flags & INLINE:
        return f" {text} "
    if not text:
        return "\n"
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    return f"\n{quoted}\n\n"


def _rule(element: Element, text: str, flags: int) -> str:
    return "\n\n---\n\n"


def _pre(element: Element, text: str, flags: int) -> str:
    if not text:
        return ""
    code = _PRE_TRAILING.sub("", _PRE_LEADING.sub("", text))
    return f"\n\n```{_language(element)}\n{code}\n```\n\n"


def _language(pre: Element) -> str:
    """The language named by a `language-*` / `lang-*` class on the `<pre>` or its `<code>`."""
    for node in (pre, pre.find(".//code")):
        if node is None:
            continue
        match = _LANGUAGE_CLASS.search(node.get("class") or "")
        if match:
            return match.group(1).lower()
    return ""


def _caption(element: Element, text: str, flags: int) -> str:
    return f"{text.strip()}\n\n"


def _figcaption(element: Element, text: str, flags: int) -> str:
    return f"\n\n{text.strip()}\n\n"


# --- lists ------------------------------------------------------------------------------


def _list(element: Element, text: str, flags: int) -> str:
    if flags & ITEM:
        return "\n" + text.rstrip()
    return "\n\n" + text + ("\n" if _paragraph_follows(element) else "")


def _paragraph_follows(element: Element) -> bool:
    """Whether text or an element other than another list comes after this list."""
    if element.tail and not element.tail.isspace():
        return True
    following = element.getnext()
    return following is not None and following.tag not in ("ul", "ol")


def _list_item(element: Element, text: str, flags: int) -> str:
    text = text.strip()
    if not text:
        return "\n"
    marker = f"{_item_number(element)}. " if _in_ordered_list(element) else "- "
    indent = " " * len(marker)
    first, *rest = text.split("\n")
    lines = [marker + first] + [indent + line if line else "" for line in rest]
    return "\n".join(lines) + "\n"


def _in_ordered_list(item: Element) -> bool:
    parent = item.getparent()
    return parent is not None and parent.tag == "ol"


def _item_number(item: Element) -> int:
    parent = item.getparent()
    start = parent.get("start") if parent is not None else None
    first = int(start) if start and start.isdecimal() else 1
    return first + sum(1 for _ in item.itersiblings("li", preceding=True))


def _term(element: Element, text: str, flags: int) -> str:
    text = _SPACE_RUN.sub(" ", text.strip())
    if flags & INLINE:
        return f" {text} "
    return f"\n\n{text}\n" if text else "\n"


def _definition(element: Element, text: str, flags: int) -> str:
    text = text.strip()
    if flags & INLINE:
        return f" {text} "
    if not text:
        return "\n"
    first, *rest = text.split("\n")
    lines = [":   " + first] + ["    " + line if line else "" for line in rest]
    return "\n".join(lines) + "\n"


# --- tables -----------------------------------------------------------------------------


def _table(element: Element, text: str, flags: int) -> str:
    return f"\n\n{text.strip()}\n\n"


def _cell(element: Element, text: str, flags: int) -> str:
    return f" {text.strip().replace(chr(10), ' ')}" + " |" * _colspan(element)


def _colspan(cell: Element) -> int:
    span = cell.get("colspan") or ""
    return max(1, min(_MAX_COLSPAN, int(span))) if span.isdecimal() else 1


def _row(element: Element, text: str, flags: int) -> str:
    """A table row; the first row gets the `| --- |` separator under it (a GFM table needs
    a header row: without `<th>` cells, the first row is taken as the header)."""
    line = f"|{text}\n"
    if element.getprevious() is not None:
        return line
    cells = list(element.iter("td", "th"))
    width = sum(_colspan(cell) for cell in cells)
    separator = "| " + " | ".join(["---"] * width) + " |\n"
    parent = element.getparent()
    section = parent.tag if parent is not None else ""
    if all(cell.tag == "th" for cell in cells) or section != "tbody" or _lacks_thead(parent):
        return line + separator
    if parent is not None and parent.getprevious() is None:
        return "| " + " | ".join([""] * width) + " |\n" + separator + line
    return line


def _lacks_thead(body: Element | None) -> bool:
    table = body.getparent() if body is not None else None
    return table is None or table.find(".//thead") is None


_WRITERS: dict[str, Writer] = {
    "a": _link,
    "b": _wrapped_in("**"),
    "strong": _wrapped_in("**"),
    "em": _wrapped_in("*"),
    "i": _wrapped_in("*"),
    "del": _wrapped_in("~~"),
    "s": _wrapped_in("~~"),
    "sub": _wrapped_in(""),
    "sup": _wrapped_in(""),
    "code": _code,
    "kbd": _code,
    "samp": _code,
    "img": _image,
    "br": _line_break,
    "q": _quote,
    "p": _paragraph,
    "div": _division,
    "article": _division,
    "section": _division,
    "dl": _division,
    "blockquote": _blockquote,
    "hr": _rule,
    "pre": _pre,
    "caption": _caption,
    "figcaption": _figcaption,
    "ul": _list,
    "ol": _list,
    "li": _list_item,
    "dt": _term,
    "dd": _definition,
    "table": _table,
    "td": _cell,
    "th": _cell,
    "tr": _row,
    **{f"h{level}": _heading for level in range(1, 7)},
}
