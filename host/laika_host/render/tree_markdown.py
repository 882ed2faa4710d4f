"""Render Document tree -> CommonMark/GFM Markdown.

Text nodes are escaped so that a Markdown renderer shows them literally: a model cannot smuggle
a heading, list, link or HTML through a text node. The output is what we store and export;
turning it into HTML goes through the sanitizing render path, never straight to a UI.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..protocol.render_tree import (
    Blockquote,
    CodeBlock,
    Document,
    Emphasis,
    Heading,
    Inline,
    InlineCode,
    LineBreak,
    Link,
    ListBlock,
    ListItem,
    ListItemChild,
    Paragraph,
    Strong,
    Table,
    Text,
    ThematicBreak,
)

_ALWAYS_ESCAPED = re.compile(r"([\\`*\[\]<|~])")
_LONE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_ENTITY_LIKE = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_LINE_START_SPECIAL = re.compile(r"^([#>+=-])", re.MULTILINE)
_LIST_NUMBER = re.compile(r"^(\d{1,9})([.)])(?=\s|$)", re.MULTILINE)
_HEADING_CLOSER = re.compile(r"(\s)(#+)$")
_HREF_SPECIAL = re.compile(r"([\\()<>])")

_NEWLINES = re.compile(r"\r\n?|\n")
_BACKTICKS = re.compile(r"`+")

_INLINE_TYPES = (Text, InlineCode, LineBreak, Strong, Emphasis, Link)


def document_to_markdown(document: Document) -> str:
    """Markdown for a whole Document; blocks are separated by one blank line."""
    return _blocks(document.children)


def escape_text(text: str) -> str:
    """Escape characters that Markdown would treat as inline syntax."""
    text = _ALWAYS_ESCAPED.sub(r"\\\1", text)
    text = _LONE_UNDERSCORE.sub(r"\\_", text)
    text = _ENTITY_LIKE.sub(r"\\&", text)
    # a byte-order mark opening the document is dropped by CommonMark parsers: as a
    # character reference it reads back as itself anywhere
    return text.replace("\ufeff", "&#xFEFF;")


def _blocks(blocks: Sequence[ListItemChild]) -> str:
    parts: list[str] = []
    previous_list: ListBlock | None = None
    pending_inlines: list[Inline] = []
    for block in blocks:
        if isinstance(block, _INLINE_TYPES):
            pending_inlines.append(block)
            continue
        if pending_inlines:
            parts.append(_paragraph_text(pending_inlines))
            pending_inlines = []
            previous_list = None
        alternate = isinstance(block, ListBlock) and _same_list_kind(previous_list, block)
        parts.append(_block(block, alternate_marker=alternate))
        previous_list = block if isinstance(block, ListBlock) else None
    if pending_inlines:
        parts.append(_paragraph_text(pending_inlines))
    return "\n\n".join(part for part in parts if part)


def _same_list_kind(previous: ListBlock | None, current: ListBlock) -> bool:
    # Two adjacent lists of one kind would merge into one; a different marker keeps them apart.
    return previous is not None and previous.ordered == current.ordered


def _block(block: ListItemChild, *, alternate_marker: bool = False) -> str:
    if isinstance(block, Heading):
        text = _single_line(_inlines(block.children))
        text = _HEADING_CLOSER.sub(r"\1\\\2", text)
        return "#" * block.level + (f" {text}" if text else "")
    if isinstance(block, Paragraph):
        return _paragraph_text(block.children)
    if isinstance(block, ListBlock):
        return _list(block, alternate_marker)
    if isinstance(block, Blockquote):
        inner = _blocks(block.children)
        return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))
    if isinstance(block, CodeBlock):
        return _code_block(block)
    if isinstance(block, ThematicBreak):
        return "---"
    if isinstance(block, Table):
        return _table(block)
    raise TypeError(f"not a block: {type(block).__name__}")  # pragma: no cover


def _paragraph_text(children: Sequence[Inline]) -> str:
    text = _inlines(children)
    lines = [line.strip(" \t") for line in text.split("\n")]  # what Markdown itself strips
    text = "\n".join(line for line in lines if line)
    text = _LINE_START_SPECIAL.sub(r"\\\1", text)
    return _LIST_NUMBER.sub(r"\1\\\2", text)


def _list(block: ListBlock, alternate_marker: bool) -> str:
    start = block.start if block.start is not None else 1
    items = []
    for offset, item in enumerate(block.items):
        if block.ordered:
            marker = f"{start + offset}{')' if alternate_marker else '.'} "
        else:
            marker = "* " if alternate_marker else "- "
        items.append(_list_item(item, marker))
    return "\n".join(items)


def _list_item(item: ListItem, marker: str) -> str:
    body = _blocks(item.children)
    if not body:
        return marker.rstrip()
    indent = " " * len(marker)
    lines = body.split("\n")
    rest = [f"{indent}{line}" if line else "" for line in lines[1:]]
    return "\n".join([marker + lines[0], *rest])


def _code_block(block: CodeBlock) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(block.text)), default=0)
    fence = "`" * max(3, longest + 1)
    text = block.text[:-1] if block.text.endswith("\n") else block.text
    return f"{fence}{block.language or ''}\n{text}\n{fence}"


_ALIGN_MARKERS = {None: "---", "left": ":---", "center": ":---:", "right": "---:"}


def _table(block: Table) -> str:
    width = max(len(row.cells) for row in block.rows) or 1
    align = list(block.align or [])
    align += [None] * (width - len(align))
    rows = []
    for row in block.rows:
        cells = [_single_line(_inlines(cell.children, in_table=True)) for cell in row.cells]
        cells += [""] * (width - len(cells))
        rows.append("| " + " | ".join(cells) + " |")
    separator = "| " + " | ".join(_ALIGN_MARKERS[a] for a in align[:width]) + " |"
    return "\n".join([rows[0], separator, *rows[1:]])


def _single_line(text: str) -> str:
    return " ".join(text.replace("\\\n", " ").split())


def _inlines(children: Sequence[Inline], *, in_table: bool = False) -> str:
    out = ""
    for child in children:
        piece = _inline(child, in_table)
        if piece.startswith("[") and _ends_with_bare_bang(out):
            out = out[:-1] + "\\!"  # text "!" then a link would read as an image
        out += piece
    return out


def _ends_with_bare_bang(text: str) -> bool:
    """True when `text` ends with a `!` that no backslash escapes."""
    if not text.endswith("!"):
        return False
    backslashes = len(text[:-1]) - len(text[:-1].rstrip("\\"))
    return backslashes % 2 == 0


def _inline(node: Inline, in_table: bool) -> str:
    if isinstance(node, Text):
        return escape_text(_NEWLINES.sub("\n", node.text))
    if isinstance(node, InlineCode):
        return _code_span(node.text, in_table)
    if isinstance(node, LineBreak):
        return " " if in_table else "\\\n"
    if isinstance(node, Strong | Emphasis):
        delimiter = "**" if isinstance(node, Strong) else "*"
        return _delimited(_inlines(node.children, in_table=in_table), delimiter)
    if isinstance(node, Link):
        label = _inlines(node.children, in_table=in_table) or escape_text(node.href)
        href = _HREF_SPECIAL.sub(r"\\\1", node.href)
        return f"[{label}]({href})"
    raise TypeError(f"not an inline: {type(node).__name__}")  # pragma: no cover


def _delimited(inner: str, delimiter: str) -> str:
    """Wrap in emphasis delimiters with surrounding spaces moved outside (else it won't parse)."""
    core = inner.strip()
    if not core:
        return inner
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"{lead}{delimiter}{core}{delimiter}{trail}"


def _code_span(text: str, in_table: bool) -> str:
    text = " ".join(text.split("\n"))
    if not text:
        return ""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    if in_table:
        text = text.replace("|", "\\|")
    return f"{ticks}{pad}{text}{pad}{ticks}"
