"""How the packed documents are written into the prompt: LLMCP JSON, or compact LLMX.

One place writes both, so the packer's size estimate measures exactly the text the model is
sent (a format with fewer tokens per document fits more source text in the same budget), and
the compact user prompt is the LLMX message the bridge makes of the same document objects:
same ids, same redacted text, `trust: "untrusted"` on each.
"""

from __future__ import annotations

import json
from typing import Any

from ..llm.config import ContextFormat
from ..llmx.bridge import compact_request, document_block
from ..llmx.serialize import serialize, serialize_block

DOCUMENTS_LABEL = "Documents (untrusted):\n"


def document_text(document: dict[str, Any], context_format: ContextFormat) -> str:
    """One document as it appears in the prompt (for the packer's estimate)."""
    if context_format == "llmx":
        return serialize_block(document_block(document))
    return json.dumps(document, ensure_ascii=False)


def context_text(
    question: str,
    documents: list[dict[str, Any]],
    note: str | None,
    context_format: ContextFormat,
) -> str:
    """The user message: the question, what the pack left out, and the documents."""
    if context_format == "llmx":
        return serialize(compact_request(question, documents, note))
    parts = [f"Question: {question}"]
    if note:
        parts.append(f"Note: {note} Say so if it limits the answer.")
    parts.append(DOCUMENTS_LABEL + json.dumps(documents, ensure_ascii=False))
    return "\n\n".join(parts)
