"""Markdown -> plain text: the same content without Markdown syntax, for search and scoring.

Links keep their words, images disappear (their alt text is not page text), emphasis markers,
heading hashes, bullets, quote markers, table pipes and backslash escapes go; an autolink
(`<https://...>`) is its address and a character reference (`&amp;`, `&#xFEFF;`) the character
it stands for, as a reader shows them. Code (fenced or inline) is kept exactly as written, and
ordered-list numbers stay: a reader sees them. Reference-style links (`[text][ref]`) stay as
written: the capture writer never writes them (a note may; its words are still its words).

The same reading serves both sides of a citation (`agent/verify`): a source's stored text is
its Markdown read so, and a quote a model copied from the Markdown the pack showed it is read
so too (`excerpt=True`: it may start or end inside a link, whose address is never its text).
"""

from __future__ import annotations

import re
from html import unescape

from .bounds import PAGE_MARKER

# Linear time on any text (tests/test_regex_linear.py): a fence or code span opens only where
# its run of backticks starts, an unclosed fence is one match, a link's text never reaches
# past a bracket and its address (destination and title, one level of parentheses) never past
# the `](` that starts the next link's address, so that no scan passes over the same text twice.
_FENCED = re.compile(  # unclosed, a fence runs to the end (as in CommonMark)
    r"^(`{3,}+|~{3,}+)[^\n]*+\n(.*?)(?:\n\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL
)
_CODE_SPAN = re.compile(r"(?<![\\`])(`++)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_ADDRESS = r"\((?:[^()\]]|\](?!\()|\((?:[^()\]]|\](?!\())*+\))*+\)"
_IMAGE = re.compile(r"(?<!\\)!\[(?:[^\[\]\\]|\\.)*+\]" + _ADDRESS, re.DOTALL)
_LINK = re.compile(r"(?<!\\)\[((?:[^\[\]\\]|\\.)*+)\]" + _ADDRESS, re.DOTALL)
_LINK_TAIL = re.compile(
    rf"\A((?:[^\[\]\\]|\\.)*+)\](?:{_ADDRESS}|\((?:[^()\]]|\](?!\())*+\Z)", re.DOTALL
)
"""An excerpt that starts inside a link's text: `words](https://...) and more`, or even ends
in its address: `words](https://ex`."""
_LINK_HEAD = re.compile(r"(?<!\\)!?\[((?:[^\[\]\\]|\\[^\[\]])*+)(?:\]\([^()\[\]]*+)?\Z", re.DOTALL)
"""An excerpt that ends inside a link: `and [some words` or `and [words](https://ex`; not
`note[2\\].`, a bracket the page wrote (its closing one escaped)."""
_AUTOLINK = re.compile(r"(?<!\\)<((?:https?|mailto):[^\s<>]*+)>", re.IGNORECASE)
_REFERENCE = re.compile(
    r"(?<!\\)&(#[0-9]{1,7}+|#[xX][0-9A-Fa-f]{1,6}+|[A-Za-z][A-Za-z0-9]{1,31}+);"
)
_HEADING = re.compile(r"^#{1,6}[ \t]+", re.MULTILINE)
_KEPT_LINE = re.compile(rf"#{{1,6}}[ \t]|{PAGE_MARKER.pattern}|\[Truncated: ")
_MARKUP = re.compile(r"[\\`*_~&<>|\[\]]")
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


def markdown_to_text(markdown: str, *, excerpt: bool = False) -> str:
    """`markdown` without its syntax. Each pattern runs only when the text holds a character
    it needs (most pages have no code, quotes or tables), and the line-bound ones (pipes,
    emphasis) only on the lines that hold one: same result, a fraction of the scanning.
    `excerpt`: a piece cut out of Markdown (a quote), which may start or end inside a link."""
    kept: list[str] = []

    def protect(code: str) -> str:
        kept.append(code)
        return _PLACEHOLDER.format(len(kept) - 1)

    text = markdown
    if "```" in text or "~~~" in text:
        text = _FENCED.sub(lambda m: protect(m.group(2)), text)
    if "`" in text:  # in an excerpt a backtick may pair with the wrong one: spaces stay
        edge = " " if excerpt else ""
        text = _CODE_SPAN.sub(lambda m: protect(_code(m.group(2), edge)), text)
    if "[Page " in text:  # before unescaping: page text that reads `[Page 3\]` stays
        text = PAGE_MARKER.sub("", text)
    text = links_as_text(text, excerpt=excerpt)
    if "<" in text:
        text = _AUTOLINK.sub(r"\1", text)
    if "&" in text:
        text = _REFERENCE.sub(_character, text)
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


def links_as_text(markdown: str, *, excerpt: bool = False) -> str:
    """`markdown` with each link as its text and each image left out, nothing else read.
    `excerpt`: as in `markdown_to_text`."""
    if excerpt and "]" in markdown:
        markdown = _LINK_TAIL.sub(r"\1", markdown, count=1)
    if "](" in markdown:
        markdown = _IMAGE.sub("", markdown)
        markdown = _LINK.sub(r"\1", markdown)
    if excerpt and "[" in markdown:
        markdown = _LINK_HEAD.sub(r"\1", markdown, count=1)
    return markdown


def lines_as_text(markdown: str) -> str:
    """`markdown` with each line but headings and markers read as text (`markdown_to_text`)
    and padded to its own length: a word found in the result lies on the same line of
    `markdown`, below the same headings and page markers (to find which heading or page a
    quote's words are under, across links, emphasis and escapes between them)."""
    if not _MARKUP.search(markdown):
        return markdown
    lines = markdown.split("\n")
    for at, line in enumerate(lines):
        if _MARKUP.search(line) and not _KEPT_LINE.match(line):
            read = markdown_to_text(line)
            if len(read) <= len(line):
                lines[at] = read.ljust(len(line))
    return "\n".join(lines)


def _code(span: str, edge: str) -> str:
    """A code span's text: without its edge spaces, or with `edge` where it had some."""
    code = span.strip()
    before = edge if span[:1].isspace() else ""
    return before + code + (edge if code and span[-1:].isspace() else "")


def _character(reference: re.Match[str]) -> str:
    """The character a reference stands for (`&amp;` is `&`); an unknown name stays as written."""
    return unescape(reference.group())


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
