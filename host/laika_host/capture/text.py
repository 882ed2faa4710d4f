"""Markdown -> plain text: the same content without Markdown syntax, for search and scoring.

Links keep their words, images disappear (their alt text is not page text), emphasis markers,
heading hashes, bullets, quote markers, table pipes and backslash escapes go. Code (fenced or
inline) is kept exactly as written, and ordered-list numbers stay: a reader sees them.
"""

from __future__ import annotations

import re

from .bounds import PAGE_MARKER

# Linear time on any text (tests/test_regex_linear.py): a fence or code span opens only where
# its run of backticks starts, an unclosed fence is one match, and link parts never reach past
# a bracket, so that no scan passes over the same text twice. A link whose address holds a
# bracket stays as written.
_FENCED = re.compile(  # unclosed, a fence runs to the end (as in CommonMark)
    r"^(`{3,}+|~{3,}+)[^\n]*+\n(.*?)(?:\n\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL
)
_CODE_SPAN = re.compile(r"(?<![\\`])(`++)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_ADDRESS = r"\((?:[^()\[\]]|\([^()\[\]]*+\))*+\)"
_IMAGE = re.compile(r"(?<!\\)!\[(?:[^\[\]\\]|\\.)*+\]" + _ADDRESS, re.DOTALL)
_LINK = re.compile(r"(?<!\\)\[((?:[^\[\]\\]|\\.)*+)\]" + _ADDRESS, re.DOTALL)
_HEADING = re.compile(r"^#{1,6}[ \t]+", re.MULTILINE)
_QUOTE = re.compile(r"^(?:>[ \t]?)+", re.MULTILINE)
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+", re.MULTILINE)
_TABLE_RULE = re.compile(
    r"^\|?[ \t]*+:?-{3,}+:?[ \t]*+(?:\|[ \t]*+:?-{3,}+:?[ \t]*+)*+\|?[ \t]*+$", re.MULTILINE
)
_PIPE = re.compile(r"(?<![ \t])[ \t]*+(?<!\\)\|[ \t]*+")
_STAR_EMPHASIS = re.compile(r"(?<!\\)(\*\*|\*|~~)(?=\S)(.+?)(?<=\S)(?<!\\)\1")
_UNDERSCORE_EMPHASIS = re.compile(
    r"(?<![\\A-Za-z0-9])(__|_)(?=\S)(.+?)(?<=\S)(?<!\\)\1(?![A-Za-z0-9])"
)
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<&=^])")
_HARD_BREAK = re.compile(r"\\\n")
_MARKER = re.compile(r"^\[Truncated: captured partial content\]$", re.MULTILINE)
_PLACEHOLDER = "\x00{}\x00"
_RESTORE = re.compile(r"\x00(\d+)\x00")


_BLANK_RUN = re.compile(r"\n{3,}")
_EMPHASIS_PASSES = 3  # nested emphasis: **bold *and italic***


def markdown_to_text(markdown: str) -> str:
    """`markdown` without its syntax. Each pattern runs only when the text holds a character
    it needs (most pages have no code, quotes or tables), and the line-bound ones (pipes,
    emphasis) only on the lines that hold one: same result, a fraction of the scanning."""
    kept: list[str] = []

    def protect(code: str) -> str:
        kept.append(code)
        return _PLACEHOLDER.format(len(kept) - 1)

    text = markdown
    if "```" in text or "~~~" in text:
        text = _FENCED.sub(lambda m: protect(m.group(2)), text)
    if "`" in text:
        text = _CODE_SPAN.sub(lambda m: protect(m.group(2).strip()), text)
    if "[Page " in text:  # before unescaping: page text that reads `[Page 3\]` stays
        text = PAGE_MARKER.sub("", text)
    if "](" in text:
        text = _IMAGE.sub("", text)
        text = _LINK.sub(r"\1", text)
    if "#" in text:
        text = _HEADING.sub("", text)
    if ">" in text:
        text = _QUOTE.sub("", text)
    if "|" in text:
        text = _TABLE_RULE.sub("", text)
    text = _BULLET.sub("", text)
    text = "\n".join(_line_text(line) for line in text.split("\n"))
    if "\\" in text:
        text = _HARD_BREAK.sub("\n", text)
        text = _ESCAPE.sub(r"\1", text)
    if "[Truncated: " in text:
        text = _MARKER.sub("", text)
    if kept:
        text = _RESTORE.sub(lambda m: kept[int(m.group(1))], text)
    return _BLANK_RUN.sub("\n\n", text).strip()


def _line_text(line: str) -> str:
    """One line without table pipes and emphasis markers (neither spans lines)."""
    if "|" in line:
        line = _PIPE.sub(" ", line)
    line = line.strip()
    if "*" in line or "_" in line or "~~" in line:
        line = _without_emphasis(line)
    return line


def _without_emphasis(line: str) -> str:
    for _ in range(_EMPHASIS_PASSES):  # nested emphasis, while any is left
        if "*" in line or "~~" in line:
            line = _STAR_EMPHASIS.sub(r"\2", line)
        if "_" in line:
            line = _UNDERSCORE_EMPHASIS.sub(r"\2", line)
        if not ("*" in line or "_" in line or "~~" in line):
            break
    return line
