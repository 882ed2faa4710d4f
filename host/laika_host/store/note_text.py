"""A note typed as plain text, written as Markdown that shows exactly that text.

The extension's "add a note" box is plain text: `*`, `#`, `<b>` or `[x](y)` typed there are
characters, not markup, so each line is escaped (`capture/markdown_escape`, the rules captured
pages follow) and line breaks stay line breaks (a backslash before the newline, CommonMark's hard
break). Blank lines separate paragraphs; leading spaces go (four would start a code block).
"""

from __future__ import annotations

import re

from ..capture.markdown_escape import escape_text

_PARAGRAPHS = re.compile(r"\n[ \t]*\n\s*")


def text_to_markdown(text: str) -> str:
    """Markdown that renders as `text`, its paragraphs and line breaks kept."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    paragraphs = (_paragraph(block) for block in _PARAGRAPHS.split(text.strip()))
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph) + "\n"


def _paragraph(block: str) -> str:
    lines = [escape_text(line.strip()) for line in block.split("\n")]
    return "\\\n".join(line for line in lines if line)
