"""Sanitized HTML elements -> Markdown, in one walk over the lxml tree.

The output is what markdownify 1.2.3 gave us (ATX headings, `-` bullets, backslash line
breaks, GFM tables with an inferred header row, fenced code, whitespace collapsed but not
re-wrapped); tests/test_capture_convert.py checks that on hand-written fragments and on
capture-dev. We walk lxml directly because building a BeautifulSoup tree and markdownify's
per-tag ancestor searches cost more than the rest of the conversion.

Each element is written from its children's Markdown (`_children`) by a per-tag writer
(`_WRITERS`); what the ancestors imply (inside `<pre>`, inside code, inside a heading or
table cell, inside a list item, inside a link) travels down as bit flags, and so does what
stands next to an element (`emphasis`): an emphasis marker is written only where every
CommonMark reader takes it as one, so no page ever shows stray `*` or `~~`.

Inline markup cannot span a block: every block starts and ends its own lines (an empty one
too), emphasis or a link holding a block is written as its words, and inline code holding a
block is one code span per run of inline text between the blocks (`code_runs`).

Page text is escaped (`markdown_escape`), link and image destinations are http(s)/mailto only
and percent-encoded where Markdown would end them, and a code block is one fence longer than
any backtick run in its code: the Markdown carries no link, image or HTML that the page did
not have.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import emphasis
from .code_runs import code_runs, code_span, holds_block
from .dom import Element
from .emphasis import Code, Deferred, Marked
from .markdown_escape import (
    OTHER,
    PUNCTUATION,
    escape_heading,
    escape_text,
    image,
    is_link_target,
    link_destination,
    link_title,
)

# What the ancestors of a node imply, as bits of one int (cheap to pass down and combine).
PRE = 1  # inside <pre>: whitespace kept verbatim, newlines between children kept
LITERAL = 2  # inside pre/code/kbd/samp: no escapes, no inline markup
INLINE = 4  # inside a heading or table cell: blocks and images become inline text
ITEM = 8  # inside <li>: a nested list hugs its item
LINK = 16  # inside a written link: its text escapes every bracket
STRIKE = 32  # inside <del>/<s>: a nested one adds nothing
CELL = 64  # inside a table cell: `|` in code is escaped too
CODE_RUNS = 128  # inside inline code that holds a block: one code span per inline run
# (bits above emphasis.CONTEXT:)
TERM = 1 << 16  # inside <dt>, one line: <br> is a space
CODE_ROOT = 1 << 17  # the children of such code (not theirs): every run is a span here

_FLAGS = {
    "pre": PRE | LITERAL,
    "code": LITERAL,
    "kbd": LITERAL,
    "samp": LITERAL,
    "td": INLINE | CELL,
    "th": INLINE | CELL,
    "del": STRIKE,
    "s": STRIKE,
    "li": ITEM,
    "dt": TERM,
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
_MAX_COLSPAN = 1000

_LINK_BREAKERS = _BLOCKS_OR_PRE | {"hr", "caption", "figcaption"}
_MARK_TAGS = frozenset({"b", "strong", "em", "i", "del", "s"})
_HARD_BREAK = "\\\n"
_LINE_START, _DIGITS, _OTHER, _UNKNOWN = range(4)
_LIST_DOT = re.compile(r"[.)](?=\s|\Z)")

Writer = Callable[[Element, str, int], "str | Deferred"]

__all__ = ["escape_text", "write_markdown"]


def write_markdown(root: Element) -> str:
    """Markdown for the children of `root`, a transparent container like `<body>`."""
    return _trim(_children(root, 0), "\n")


# --- the walk ---------------------------------------------------------------------------


def _element(element: Element, flags: int, number: int | None = None) -> str | Deferred:
    """An element's Markdown; `number`: an `<li>`'s number in its `<ol>` (None elsewhere)."""
    tag = element.tag
    if not isinstance(tag, str):  # comments and processing instructions (nh3 drops them)
        return ""
    text = _children(element, _inner_flags(element, flags))
    if tag == "li":
        return _list_item(element, text, flags, number)
    writer = _WRITERS.get(tag)
    return writer(element, text, flags) if writer else text


def _inner_flags(element: Element, flags: int) -> int:
    """The flags an element's children are written with: its own, plus what stands at the
    inner edges of its Markdown (a block's edges are line starts and ends)."""
    tag = element.tag
    inner = (flags | _FLAGS.get(tag, 0)) & ~emphasis.CONTEXT
    if tag in _LINK_BREAKERS:
        return inner  # context 0: whitespace on both sides
    if tag == "q":
        return inner | emphasis.context(PUNCTUATION, PUNCTUATION)
    if tag == "a" and _links(element, flags):
        inner |= LINK  # brackets escaped even where the link is left out: harmless
        if _writes_link(element, flags):
            return inner | emphasis.context(PUNCTUATION, PUNCTUATION)
    if tag in _MARK_TAGS:
        return inner | emphasis.inside(flags)
    if tag in _CODE_TAGS and _splits(element, flags):
        return inner | CODE_ROOT | flags & emphasis.CONTEXT
    return inner | flags & emphasis.CONTEXT  # transparent: span, sub, a link left out


def _children(element: Element, flags: int) -> str:
    """The Markdown of an element's text and child elements, before its own writer runs."""
    block = element.tag in _BLOCKS
    kids = list(element)
    parts: list[str | Deferred] = []
    left = emphasis.Side(emphasis.before_of(flags), tick=bool(flags & emphasis.TICK_BEFORE))
    line = _LINE_START if block else _UNKNOWN
    runs, flags = _runs_mode(element, flags)
    breaks: dict[int, bool] = {}
    number = _first_number(element) if element.tag == "ol" else None  # counted here: once
    if element.text:
        text = _text(element.text, flags, None, kids[0] if kids else None, block)
        parts.append(_after_number(text, line, flags))
        left.passed_left(parts[-1])
        line = _line_after(line, parts[-1])
    last = len(kids) - 1
    for index, kid in enumerate(kids):
        following = kids[index + 1] if index < last else None
        tail = _text(kid.tail, flags, kid, following, block) if kid.tail else ""
        parts.append(_element(kid, _kid_flags(kid, flags, left, tail, following), number))
        if number is not None and kid.tag == "li":
            number += 1
        if flags & CODE_RUNS and _breaks_code(kid):
            breaks[len(parts) - 1] = kid.tag in _LINK_BREAKERS
        left.passed_left(parts[-1])
        line = _line_after(line, parts[-1])
        if tail:
            parts.append(_after_number(tail, line, flags))
            left.passed_left(parts[-1])
            line = _line_after(line, parts[-1])
    if runs == _ALL_RUNS or breaks:
        edges = runs == _ALL_RUNS
        parts = code_runs(
            parts, breaks, edges=edges, in_link=bool(flags & LINK), in_cell=bool(flags & CELL)
        )
    written = emphasis.resolve(parts, flags)
    if _HARD_BREAK in written:
        written = _without_stray_breaks(written, at_block_end=block)
    if len(written) < 2 or flags & PRE:
        return "".join(written)
    return _join_blocks(written)


def _after_number(text: str, line: int, flags: int) -> str:
    """`text` with a leading `.` or `)` escaped where the line so far may be a number:
    `<span>1</span>. x` must not start an ordered list (a node alone cannot see that)."""
    if line in (_DIGITS, _UNKNOWN) and _LIST_DOT.match(text) and not flags & LITERAL:
        return "\\" + text
    return text


def _line_after(line: int, part: str | Deferred) -> int:
    """What the current line holds after `part`: nothing yet, only digits (a list number
    may be forming), anything else, or unknown (an inline element's first words)."""
    text = part if isinstance(part, str) else f"{part.before}{part.body}{part.after}"
    newline = text.rfind("\n")
    if newline >= 0:
        line, text = _LINE_START, text[newline + 1 :]
    for char in text:
        if line == _OTHER:
            break
        if char.isdigit() and char.isascii():
            line = _DIGITS if line != _UNKNOWN else _UNKNOWN
        elif char not in " \t" or line == _DIGITS:
            line = _OTHER
    return line


def _kid_flags(
    kid: Element, flags: int, left: emphasis.Side, tail: str, following: Element | None
) -> int:
    """`flags` with an estimate of what stands before and after the kid's Markdown."""
    kid_flags = flags & ~emphasis.CONTEXT
    if kid.tag in _LINK_BREAKERS or not isinstance(kid.tag, str):
        return kid_flags
    ticks = emphasis.TICK_BEFORE if left.tick else 0
    if following is not None:  # text between them stays put; an element is unknown
        after = emphasis.first_class(tail) if tail else OTHER
        if not tail and _may_open_code(following):
            ticks |= emphasis.TICK_AFTER
    else:
        right = emphasis.Side(emphasis.after_of(flags), tick=bool(flags & emphasis.TICK_AFTER))
        right.passed_right(tail)
        after = right.kind
        if right.tick:
            ticks |= emphasis.TICK_AFTER
    return kid_flags | emphasis.context(left.kind, after, ticks=ticks)


_CODE_TAGS = frozenset({"code", "kbd", "samp"})
_OPENING_DEPTH = 32


def _may_open_code(element: Element) -> bool:
    """Whether `element`'s Markdown may open with a code span: it, or its first child, and
    so on down while no text stands first, is code (32 levels looked at; deeper, assume
    so). A span inside a `<span>` touching the next one merged their backtick runs."""
    node: Element | None = element
    for _ in range(_OPENING_DEPTH):
        if node is None or not isinstance(node.tag, str) or node.tag in _BLOCKS_OR_PRE:
            return False
        if node.tag in _CODE_TAGS:
            return True
        if node.text:
            return False
        node = node[0] if len(node) else None
    return True


_NO_RUNS, _INNER_RUNS, _ALL_RUNS = range(3)


def _runs_mode(element: Element, flags: int) -> tuple[int, int]:
    """Which runs of an element's inline content inside split code are code spans, and the
    flags its kids get: in the code itself and in a block, all of them (its edges are line
    ends); in an inline element, those between its blocks (the first and last continue the
    runs around it, raw). A heading or cell in the code writes its blocks inline: its content
    is one run."""
    if flags & PRE or not flags & (CODE_ROOT | CODE_RUNS):
        return _NO_RUNS, flags
    whole = flags & CODE_ROOT or element.tag in _LINK_BREAKERS
    kid_flags = flags & ~(CODE_ROOT | CODE_RUNS) | (0 if flags & INLINE else CODE_RUNS)
    return (_ALL_RUNS if whole else _INNER_RUNS), kid_flags


def _splits(code: Element, flags: int) -> bool:
    """Whether a code element is written as one span per run of inline text between the
    blocks it holds (`code_runs`): outside code and outside headings and cells, which write
    their blocks inline."""
    return not flags & (LITERAL | INLINE) and holds_block(code, _LINK_BREAKERS)


def _breaks_code(kid: Element) -> bool:
    """Whether a kid inside split code is, or holds, a block: it writes its own spans."""
    tag = kid.tag
    return isinstance(tag, str) and (tag in _LINK_BREAKERS or holds_block(kid, _LINK_BREAKERS))


def _without_stray_breaks(parts: list[str], *, at_block_end: bool) -> list[str]:
    """Hard breaks that end up next to a block edge: there they would leave a bare `\\`.
    `at_block_end`: the parts are a block's, so a break with nothing after it ends the block
    (`<ul>a<br></ul>`: a text in a list, outside its items)."""
    last = max((at for at, part in enumerate(parts) if part), default=-1)
    kept: list[str] = []
    for index, part in enumerate(parts):
        if part == _HARD_BREAK:
            following = parts[index + 1] if index + 1 < len(parts) else ""
            after_block = kept and kept[-1].endswith("\n") and not kept[-1].endswith(_HARD_BREAK)
            if following.startswith("\n") or after_block:
                continue
            if at_block_end and index == last:
                kept.append("\n")  # the line ends here all the same
                continue
        kept.append(part)
    return kept


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
        text = escape_text(text, in_link=bool(flags & LINK))
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
    """Move edge spaces and line breaks outside the markup: `<b> x </b>` is ` **x** `, not
    `** x **` (which would not parse), and `<b>x<br></b>` is `**x**\\` + newline."""
    start, end = _edges(text, None)
    return _edge(text[:start]), text[start:end], _edge(text[end:])


def _edge(space: str) -> str:
    """What an edge keeps: a hard break, or the spaces without block newlines."""
    if _HARD_BREAK in space:
        return _HARD_BREAK
    return space.replace("\n", "") if "\n" in space else space


def _blank(before: str, after: str) -> str:
    """An inline element with nothing but spaces or breaks in it still separates words."""
    if _HARD_BREAK in (before, after):
        return _HARD_BREAK
    return " " if before or after else ""


def _trim(text: str, spaces: str | None, flags: int = 0) -> str:
    """`text` without `spaces` and hard breaks at its ends: a block's edges. In code (`flags`
    hold LITERAL) there are no hard breaks: a backslash there is a character."""
    start, end = _edges(text, spaces, breaks=not flags & LITERAL)
    return text[start:end]


def _edges(text: str, spaces: str | None, *, breaks: bool = True) -> tuple[int, int]:
    """Where `text` starts and ends once edge whitespace (`spaces`, or any) and hard breaks
    are left out. A hard break is a backslash no other backslash escapes, then a newline."""
    start, end = 0, len(text)
    while start < end:
        if breaks and text.startswith(_HARD_BREAK, start, end):
            start += 2
        elif text[start].isspace() if spaces is None else text[start] in spaces:
            start += 1
        else:
            break
    while end > start:
        char = text[end - 1]
        if breaks and char == "\n" and end > start + 1 and _odd_backslashes(text, end - 1, start):
            end -= 2
            continue
        if not (char.isspace() if spaces is None else char in spaces):
            break
        end -= 1
    return start, end


def _odd_backslashes(text: str, end: int, start: int) -> bool:
    """Whether an odd run of backslashes ends at `end` (the last one is not escaped)."""
    first = end
    while first > start and text[first - 1] == "\\":
        first -= 1
    return (end - first) % 2 == 1


def _marks(mark: str) -> Writer:
    def write(element: Element, text: str, flags: int) -> str | Marked:
        if flags & LITERAL or not emphasis.one_paragraph(text):
            return text  # markers cannot span a block; its edges stay paragraph breaks
        before, body, after = _chomp(text)
        if not body:
            return _blank(before, after)
        if not mark or (flags & STRIKE and mark == "~~"):
            return f"{before}{body}{after}"
        return Marked(mark, before, body, after)

    return write


def _links(element: Element, flags: int) -> bool:
    """Whether an `<a>` has a web or mailto target and stands outside code and links."""
    return not flags & (LITERAL | LINK) and is_link_target(element.get("href") or "")


def _writes_link(element: Element, flags: int) -> bool:
    """Whether an `<a>` becomes a Markdown link: it links (`_links`) and holds no block (a
    link cannot span paragraphs)."""
    if not _links(element, flags):
        return False
    if flags & INLINE:
        return True
    return not any(node.tag in _LINK_BREAKERS for node in element.iterdescendants())


def _link(element: Element, text: str, flags: int) -> str:
    if flags & LITERAL or not _writes_link(element, flags):
        return text  # only its words: a block's edges in it stay paragraph breaks
    before, body, after = _chomp(text)
    if not body:
        return _blank(before, after)
    destination = link_destination(element.get("href") or "")
    title = element.get("title")
    title_part = f" {link_title(title)}" if title else ""
    return f"{before}[{body}]({destination}{title_part}){after}"


def _image(element: Element, text: str, flags: int) -> str:
    alt = element.get("alt") or ""
    if flags & LITERAL:
        return ""
    label = escape_text(" ".join(alt.split()), in_link=bool(flags & LINK))
    if flags & INLINE:
        return label
    written = image(alt, element.get("src") or "", element.get("title"))
    return label if written is None else written


def _code(element: Element, text: str, flags: int) -> str | Code:
    if flags & LITERAL or _splits(element, flags):
        return text  # inside code, or already written as spans between its blocks
    return code_span(text, in_link=bool(flags & LINK), in_cell=bool(flags & CELL))


def _line_break(element: Element, text: str, flags: int) -> str:
    if flags & PRE:
        return "\n"  # a line of code, not a Markdown hard break
    return " " if flags & (INLINE | LITERAL | TERM) else _HARD_BREAK


def _quote(element: Element, text: str, flags: int) -> str:
    return f'"{text}"'


# --- block writers ----------------------------------------------------------------------


def _paragraph(element: Element, text: str, flags: int) -> str:
    text = _trim(text, " \t\r\n", flags)
    if flags & INLINE:
        return f" {text} "
    return f"\n\n{text}\n\n" if text else _empty_block(flags)


def _division(element: Element, text: str, flags: int) -> str:
    text = _trim(text, None, flags)
    if flags & INLINE:
        return f" {text} "
    return f"\n\n{text}\n\n" if text else _empty_block(flags)


def _empty_block(flags: int) -> str:
    """An empty block still separates the words around it (a browser puts them on lines of
    their own); inside `<pre>` it adds no line."""
    return "" if flags & PRE else "\n\n"


def _heading(element: Element, text: str, flags: int) -> str:
    if flags & INLINE:  # a heading in a cell or heading: still a block, so words stay apart
        return f" {text} "
    level = int(element.tag[1])
    return f"\n\n{'#' * level} {escape_heading(_SPACE_RUN.sub(' ', text.strip()))}\n\n"


def _blockquote(element: Element, text: str, flags: int) -> str:
    text = _trim(text, " \t\r\n", flags)
    if flags & INLINE:
        return f" {text} "
    if not text:
        return "\n"
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    return f"\n{quoted}\n\n"


def _rule(element: Element, text: str, flags: int) -> str:
    return "\n\n---\n\n"


def _pre(element: Element, text: str, flags: int) -> str:
    if flags & PRE:
        return text  # a <pre> inside a <pre> (trafilatura writes code so): one fence
    if not text:
        return _empty_block(flags)
    code = _PRE_LEADING.sub("", text).rstrip(" \n")  # rstrip: a `[ \n]*$` scan is quadratic
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)  # longer than any backtick run in the code
    return f"\n\n{fence}{_language(element)}\n{code}\n{fence}\n\n"


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
    return f"\n\n{_trim(text, None, flags)}\n\n"


def _figcaption(element: Element, text: str, flags: int) -> str:
    return f"\n\n{_trim(text, None, flags)}\n\n"


# --- lists ------------------------------------------------------------------------------


def _list(element: Element, text: str, flags: int) -> str:
    text = text.lstrip("\n")  # the items' own line starts
    if flags & ITEM:  # a block ends its line; text after it is a paragraph of the item
        return "\n" + text.rstrip() + ("\n\n" if _text_follows(element) else "\n")
    return "\n\n" + text + ("\n" if _paragraph_follows(element) else "")


def _paragraph_follows(element: Element) -> bool:
    """Whether text or an element other than another list comes after this list."""
    if element.tail and not element.tail.isspace():
        return True
    following = element.getnext()
    return following is not None and following.tag not in ("ul", "ol")


def _text_follows(element: Element) -> bool:
    """Whether text or an inline element comes after this element in its parent."""
    if element.tail and not element.tail.isspace():
        return True
    following = element.getnext()
    return following is not None and following.tag not in _LINK_BREAKERS


def _list_item(element: Element, text: str, flags: int, number: int | None) -> str:
    """A list item; `number` when it stands in an `<ol>` (its `start`, plus the items before
    it: counted as the list's children are written, since counting each item's preceding
    siblings made a long list quadratic)."""
    text = _trim(text, None, flags)
    if not text:
        return "\n"
    marker = f"{number}. " if number is not None else "- "
    indent = " " * len(marker)
    first, *rest = text.split("\n")
    lines = [marker + first] + [indent + line if line else "" for line in rest]
    return "\n" + "\n".join(lines) + "\n"  # a block starts its own line, in a list or not


def _first_number(ordered: Element) -> int:
    start = ordered.get("start")
    return int(start) if start and start.isdecimal() else 1


def _term(element: Element, text: str, flags: int) -> str:
    text = _SPACE_RUN.sub(" ", _trim(text, None, flags))  # one line; a `<br>` in it wrote a space
    if flags & INLINE:
        return f" {text} "
    return f"\n\n{text}\n" if text else "\n"


def _definition(element: Element, text: str, flags: int) -> str:
    text = _trim(text, None, flags)
    if flags & INLINE:
        return f" {text} "
    if not text:
        return "\n"
    first, *rest = text.split("\n")
    lines = [":   " + first] + ["    " + line if line else "" for line in rest]
    return "\n" + "\n".join(lines) + "\n"


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
    "b": _marks("**"),
    "strong": _marks("**"),
    "em": _marks("*"),
    "i": _marks("*"),
    "del": _marks("~~"),
    "s": _marks("~~"),
    "sub": _marks(""),
    "sup": _marks(""),
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
    "dt": _term,
    "dd": _definition,
    "table": _table,
    "td": _cell,
    "th": _cell,
    "tr": _row,
    **{f"h{level}": _heading for level in range(1, 7)},
}
