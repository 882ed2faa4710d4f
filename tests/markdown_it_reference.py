"""markdown-it-py as the reference renderer the product's cmark-gfm path is checked against.

Configured as issue 7 specifies: CommonMark with `html=False` and GFM tables, images shown as
their alt text. `tests/test_render_engine.py` compares the sanitized output of both;
`bench/render_bench.py` times both.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict


def _image_as_alt_text(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return escapeHtml(renderer.renderInlineAsText(tokens[idx].children or [], options, env))


def _parser(*, images: bool) -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    if not images:
        parser.add_render_rule("image", _image_as_alt_text)
    return parser


_PARSERS = {images: _parser(images=images) for images in (False, True)}


def reference_html(markdown: str, *, images: bool = False) -> str:
    """markdown-it-py's HTML for `markdown`, before the sanitizer."""
    return _PARSERS[images].render(markdown)
