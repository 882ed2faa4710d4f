"""Rendering: the render Document tree to Markdown (and, later, Markdown to safe HTML)."""

from .tree_markdown import document_to_markdown, escape_text

__all__ = ["document_to_markdown", "escape_text"]
