"""What a CommonMark reader makes of captured Markdown: its text, links, images and raw HTML.

Two parsers read it: markdown-it-py (CommonMark with GFM tables and strikethrough) and cmark-gfm
with the same two extensions (what `laika render` uses). Raw HTML is parsed, not escaped, and
every link destination is accepted, so that nothing the Markdown carries is hidden from the
checks by a parser's own safety rules (markdown-it drops `javascript:` links by default).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import lxml.html
from cmarkgfm import cmark
from markdown_it import MarkdownIt
from markdown_it.token import Token

_MARKDOWN_IT = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_MARKDOWN_IT.validateLink = lambda url: True  # type: ignore[method-assign]
_BLOCK_BREAKS = {
    "paragraph_open", "paragraph_close", "heading_open", "heading_close", "th_open",
    "th_close", "td_open", "td_close", "list_item_open", "list_item_close",
    "blockquote_open", "blockquote_close",
}  # fmt: skip


@dataclass
class View:
    """The parts of a rendered document the capture promises about."""

    text: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)  # (href, text)
    images: list[str] = field(default_factory=list)
    html: list[str] = field(default_factory=list)
    fences: list[tuple[str, str]] = field(default_factory=list)  # (info, content)


def squash(text: str) -> str:
    return " ".join(text.split())


def view(markdown: str) -> View:
    """markdown-it-py's reading of `markdown`."""
    seen = View()
    parts: list[str] = []
    for token in _MARKDOWN_IT.parse(markdown):
        if token.type in _BLOCK_BREAKS:
            parts.append(" ")
        elif token.type == "inline":
            parts.append(_inline(token.children or [], seen))
        elif token.type in ("fence", "code_block"):
            seen.fences.append((token.info, token.content))
            parts.append(f" {token.content} ")
        elif token.type == "html_block":
            seen.html.append(token.content)
    seen.text = squash("".join(parts))
    return seen


def _inline(children: list[Token], seen: View) -> str:
    out: list[str] = []
    link: list[str] | None = None
    href = ""
    for child in children:
        piece = ""
        if child.type in ("text", "text_special", "code_inline"):
            piece = child.content
        elif child.type in ("softbreak", "hardbreak"):
            piece = " "
        elif child.type == "html_inline":
            seen.html.append(child.content)
        elif child.type == "image":
            seen.images.append(str(child.attrs.get("src", "")))
        elif child.type == "link_open":
            link, href = [], str(child.attrs.get("href", ""))
        elif child.type == "link_close" and link is not None:
            seen.links.append((href, squash("".join(link))))
            link = None
        out.append(piece)
        if link is not None:
            link.append(piece)
    return "".join(out)


def cmark_view(markdown: str) -> View:
    """cmark-gfm's reading (tables and strikethrough on, raw HTML kept): links, images, HTML
    and text, read back from its HTML."""
    cmark.core_extensions_ensure_registered()
    options = cmark.Options.CMARK_OPT_UNSAFE
    parser = cmark.parser_new(options)
    try:
        for name in ("table", "strikethrough"):
            cmark.parser_attach_syntax_extension(parser, cmark.find_syntax_extension(name))
        cmark.parser_feed(parser, markdown)
        root = cmark.parser_finish(parser)
        html = cmark.render_html(root, options, cmark.parser_get_syntax_extensions(parser))
    finally:
        cmark.parser_free(parser)
    seen = View()
    tree = lxml.html.fragment_fromstring(html or "<p></p>", create_parent="div")
    allowed = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "del", "code", "pre",
               "a", "img", "ul", "ol", "li", "blockquote", "table", "thead", "tbody", "tr",
               "th", "td", "br", "hr", "div"}  # fmt: skip
    for element in tree.iter():
        if not isinstance(element.tag, str):
            seen.html.append("<!---->")
        elif element.tag not in allowed:
            seen.html.append(element.tag)
        elif element.tag == "a":
            seen.links.append((element.get("href", ""), squash(element.text_content())))
        elif element.tag == "img":
            seen.images.append(element.get("src", ""))
    for block in tree.iter("p", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "li"):
        block.tail = " " + (block.tail or "")
        block.text = " " + (block.text or "")
    seen.text = squash(tree.text_content())
    return seen
