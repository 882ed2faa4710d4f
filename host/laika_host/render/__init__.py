"""Rendering: the render Document tree to Markdown, and Markdown to safe HTML."""

from .html import document_to_safe_html, markdown_to_safe_html
from .tree_markdown import document_to_markdown, escape_text

__all__ = ["document_to_markdown", "document_to_safe_html", "escape_text", "markdown_to_safe_html"]
