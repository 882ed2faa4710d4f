"""Invalid LLMCP packets are rejected, each naming the JSON path and the rule it breaks.

Each case starts from a valid spec example and applies one edit. Where JSON Schema can state the
rule, the committed schema must reject the packet too (schema and models must not disagree).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

import pytest

from laika_host.protocol import check_packet

from support import load_fixture, run_laika, schema_validator

Op = tuple[Any, ...]
_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _segments(path: str) -> list[str | int]:
    return [int(i) if i else key for key, i in _SEGMENT.findall(path)]


def apply(data: Any, ops: list[Op]) -> Any:
    """Edit a copy: ("set", path, value), ("del", path), ("append", path, value)."""
    data = copy.deepcopy(data)
    for op, path, *value in ops:
        *parents, last = _segments(path)
        node = data
        for segment in parents:
            node = node[segment]
        if op == "set":
            node[last] = value[0]
        elif op == "del":
            del node[last]
        elif op == "append":
            node[last].append(value[0])
    return data


@dataclass(frozen=True)
class Case:
    id: str
    base: str
    ops: list[Op]
    path: str
    says: str
    schema_rejects: bool | None = True
    """True: the committed JSON Schema rejects it too; False: only the models can state the
    rule; None: not checked (jsonschema evaluates every oneOf branch, exponential in depth)."""


DOC = "context.documents[0]"
CONTENT = f"{DOC}.content"
CITE = "assistant.citations[0]"
CHUNK_DOC = {
    "doc_id": "doc:web:chunk:1",
    "kind": "web.observation.chunk.v1",
    "trust": "untrusted",
    "content": {
        "doc_type": "web.observation.chunk.v1",
        "url": "https://example.com",
        "title": "Example",
        "chunk_index": 1,
        "chunk_count": 3,
        "markdown": "...",
    },
}
INDEX_DOC = {
    "doc_id": "doc:collection:index",
    "kind": "collection.index.v1",
    "trust": "untrusted",
    "content": load_fixture("collection.index.v1"),
}
SOURCE_DOC = {
    "doc_id": "doc:collection:src:1",
    "kind": "collection.source.v1",
    "trust": "untrusted",
    "content": load_fixture("collection.source.v1"),
}
REQ = "summarize_request"
FULL_REQ = "request_schema"
RES = "response_schema"
RES_MD = "summarize_response"
CALL = "tool_calls[0]"


def _nested_blockquotes(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "paragraph", "children": [{"type": "text", "text": "deep"}]}
    for _ in range(levels):
        node = {"type": "blockquote", "children": [node]}
    return node


CASES = [
    # --- envelope -------------------------------------------------------------------------
    Case(
        "protocol-name-wrong",
        REQ,
        [("set", "protocol.name", "laika.mcp")],
        "protocol.name",
        "laika.llmcp",
    ),
    Case("protocol-name-missing", REQ, [("del", "protocol.name")], "protocol.name", "required"),
    Case(
        "protocol-version-2", REQ, [("set", "protocol.version", 2)], "protocol.version", "must be 1"
    ),
    Case(
        "protocol-version-string",
        RES,
        [("set", "protocol.version", "1")],
        "protocol.version",
        "integer",
    ),
    Case(
        "protocol-version-float",
        REQ,
        [("set", "protocol.version", 1.0)],
        "protocol.version",
        "integer",
        schema_rejects=False,
    ),
    Case(
        "protocol-version-bool",
        REQ,
        [("set", "protocol.version", True)],
        "protocol.version",
        "integer",
    ),
    Case(
        "protocol-extra-key", REQ, [("set", "protocol.minor", 1)], "protocol.minor", "unknown key"
    ),
    Case("protocol-not-object", RES, [("set", "protocol", "laika.llmcp")], "protocol", "object"),
    Case("id-missing", REQ, [("del", "id")], "id", "required"),
    Case("id-empty", REQ, [("set", "id", "")], "id", "empty"),
    Case("id-number", RES, [("set", "id", 7)], "id", "string"),
    Case("type-unknown", REQ, [("set", "type", "notification")], "type", "'request' or 'response'"),
    Case("type-missing", RES, [("del", "type")], "type", "required"),
    Case(
        "created-at-no-timezone",
        REQ,
        [("set", "created_at", "2026-01-28T12:34:56.789")],
        "created_at",
        "timezone",
    ),
    Case(
        "created-at-not-utc",
        RES,
        [("set", "created_at", "2026-01-28T12:34:56+02:00")],
        "created_at",
        "UTC",
        schema_rejects=False,
    ),
    Case(
        "created-at-date-only", REQ, [("set", "created_at", "2026-01-28")], "created_at", "ISO-8601"
    ),
    Case("created-at-epoch", REQ, [("set", "created_at", 1769603696789)], "created_at", "ISO-8601"),
    Case(
        "created-at-impossible-date",
        REQ,
        [("set", "created_at", "2026-02-30T12:00:00Z")],
        "created_at",
        "real date",
        schema_rejects=False,
    ),
    Case(
        "created-at-space-separator",
        RES,
        [("set", "created_at", "2026-01-28 12:34:56Z")],
        "created_at",
        "ISO-8601",
    ),
    Case(
        "conversation-turn-0", REQ, [("set", "conversation.turn", 0)], "conversation.turn", ">= 1"
    ),
    Case(
        "conversation-turn-negative",
        RES,
        [("set", "conversation.turn", -3)],
        "conversation.turn",
        ">= 1",
    ),
    Case(
        "conversation-turn-string",
        REQ,
        [("set", "conversation.turn", "1")],
        "conversation.turn",
        "integer",
    ),
    Case(
        "conversation-turn-float",
        REQ,
        [("set", "conversation.turn", 1.5)],
        "conversation.turn",
        "integer",
    ),
    Case(
        "conversation-id-missing", RES, [("del", "conversation.id")], "conversation.id", "required"
    ),
    Case("conversation-missing", REQ, [("del", "conversation")], "conversation", "required"),
    Case(
        "sender-role-unknown",
        REQ,
        [("set", "sender.role", "system")],
        "sender.role",
        "'user', 'agent', 'assistant' or 'tool'",
    ),
    Case("sender-role-missing", RES, [("set", "sender", {})], "sender.role", "required"),
    Case("top-level-extra-key", REQ, [("set", "debug", True)], "debug", "unknown key"),
    # --- request --------------------------------------------------------------------------
    Case("input-missing", REQ, [("del", "input")], "input", "required"),
    Case(
        "input-empty", REQ, [("set", "input", {})], "input.user_message", "user_message, input.task"
    ),
    Case(
        "user-message-no-text",
        REQ,
        [("del", "input.user_message.text")],
        "input.user_message.text",
        "required",
    ),
    Case(
        "user-message-no-id",
        REQ,
        [("del", "input.user_message.id")],
        "input.user_message.id",
        "required",
    ),
    Case(
        "user-message-extra",
        REQ,
        [("set", "input.user_message.lang", "en")],
        "input.user_message.lang",
        "unknown key",
    ),
    Case("task-name-missing", REQ, [("del", "input.task.name")], "input.task.name", "required"),
    Case(
        "task-name-malformed",
        REQ,
        [("set", "input.task.name", "Summarize Page")],
        "input.task.name",
        "must match",
    ),
    Case(
        "task-args-not-object",
        REQ,
        [("set", "input.task.args", ["concise"])],
        "input.task.args",
        "object",
    ),
    Case(
        "output-format-html",
        REQ,
        [("set", "output.format", "html")],
        "output.format",
        "'json' or 'markdown'",
    ),
    Case("output-extra-key", REQ, [("set", "output.schema", {})], "output.schema", "unknown key"),
    Case(
        "context-documents-not-array",
        REQ,
        [("set", "context.documents", {})],
        "context.documents",
        "array",
    ),
    Case(
        "request-with-in-reply-to",
        REQ,
        [("set", "in_reply_to", {"request_id": "x"})],
        "in_reply_to",
        "unknown key",
    ),
    Case("request-with-tool-calls", REQ, [("set", "tool_calls", [])], "tool_calls", "unknown key"),
    Case(
        "request-verbatim-placeholder-content",
        REQ,
        [("set", f"{CONTENT}", {"...": "typed content object"})],
        f"{CONTENT}.doc_type",
        "required",
    ),
    # --- context documents ----------------------------------------------------------------
    Case(
        "trust-trusted-summary",
        REQ,
        [("set", f"{DOC}.trust", "trusted")],
        f"{DOC}.trust",
        "untrusted",
    ),
    Case("trust-missing", FULL_REQ, [("del", f"{DOC}.trust")], f"{DOC}.trust", "required"),
    Case(
        "trust-trusted-chunk",
        REQ,
        [("set", DOC, {**CHUNK_DOC, "trust": "trusted"})],
        f"{DOC}.trust",
        "untrusted",
    ),
    Case(
        "trust-trusted-index",
        REQ,
        [("set", DOC, {**INDEX_DOC, "trust": "trusted"})],
        f"{DOC}.trust",
        "untrusted",
    ),
    Case(
        "trust-trusted-source",
        REQ,
        [("set", DOC, {**SOURCE_DOC, "trust": "system"})],
        f"{DOC}.trust",
        "untrusted",
    ),
    Case(
        "kind-unknown",
        REQ,
        [("set", f"{DOC}.kind", "web.observation.page.v2")],
        f"{DOC}.kind",
        "unknown document kind",
    ),
    Case("kind-missing", REQ, [("del", f"{DOC}.kind")], f"{DOC}.kind", "required"),
    Case(
        "kind-doc-type-disagree",
        REQ,
        [("set", f"{CONTENT}.doc_type", "collection.source.v1")],
        f"{CONTENT}.doc_type",
        "document's kind",
    ),
    Case(
        "doc-type-missing",
        FULL_REQ,
        [("del", f"{CONTENT}.doc_type")],
        f"{CONTENT}.doc_type",
        "required",
    ),
    Case("doc-id-missing", REQ, [("del", f"{DOC}.doc_id")], f"{DOC}.doc_id", "required"),
    Case(
        "doc-id-duplicate",
        REQ,
        [("append", "context.documents", {**CHUNK_DOC, "doc_id": "doc:web:summary"})],
        "context.documents[1].doc_id",
        "duplicate",
        schema_rejects=False,
    ),
    Case(
        "document-extra-key",
        REQ,
        [("set", f"{DOC}.cookies", "sid=1")],
        f"{DOC}.cookies",
        "unknown key",
    ),
    Case("content-missing", REQ, [("del", f"{DOC}.content")], f"{DOC}.content", "required"),
    Case("summary-url-missing", REQ, [("del", f"{CONTENT}.url")], f"{CONTENT}.url", "required"),
    Case(
        "summary-url-javascript",
        REQ,
        [("set", f"{CONTENT}.url", "javascript:alert(1)")],
        f"{CONTENT}.url",
        "http(s) URL",
    ),
    Case(
        "summary-url-relative",
        REQ,
        [("set", f"{CONTENT}.url", "/story")],
        f"{CONTENT}.url",
        "absolute",
    ),
    Case(
        "summary-markdown-missing",
        REQ,
        [("del", f"{CONTENT}.markdown")],
        f"{CONTENT}.markdown",
        "required",
    ),
    Case(
        "summary-markdown-not-string",
        REQ,
        [("set", f"{CONTENT}.markdown", ["# Example"])],
        f"{CONTENT}.markdown",
        "string",
    ),
    Case(
        "summary-title-missing", REQ, [("del", f"{CONTENT}.title")], f"{CONTENT}.title", "required"
    ),
    Case(
        "summary-captured-at-no-tz",
        FULL_REQ,
        [("set", f"{CONTENT}.captured_at", "2026-01-28T12:34:56")],
        f"{CONTENT}.captured_at",
        "timezone",
    ),
    Case(
        "summary-signals-not-strings",
        FULL_REQ,
        [("set", f"{CONTENT}.signals", [1])],
        f"{CONTENT}.signals[0]",
        "string",
    ),
    Case(
        "summary-signal-malformed",
        FULL_REQ,
        [("set", f"{CONTENT}.signals", ["Paywall Or Login"])],
        f"{CONTENT}.signals[0]",
        "must match",
    ),
    Case(
        "summary-extra-key",
        REQ,
        [("set", f"{CONTENT}.html", "<p>x</p>")],
        f"{CONTENT}.html",
        "unknown key",
    ),
    Case(
        "link-url-missing",
        FULL_REQ,
        [("del", f"{CONTENT}.extracted_links[0].url")],
        f"{CONTENT}.extracted_links[0].url",
        "required",
    ),
    Case(
        "link-url-data",
        FULL_REQ,
        [("set", f"{CONTENT}.extracted_links[0].url", "data:text/html,x")],
        f"{CONTENT}.extracted_links[0].url",
        "http(s)",
    ),
    Case(
        "link-extra-key",
        FULL_REQ,
        [("set", f"{CONTENT}.extracted_links[0].rel", "nofollow")],
        f"{CONTENT}.extracted_links[0].rel",
        "unknown key",
    ),
    Case(
        "chunk-index-0",
        REQ,
        [("set", DOC, CHUNK_DOC), ("set", f"{CONTENT}.chunk_index", 0)],
        f"{CONTENT}.chunk_index",
        ">= 1",
    ),
    Case(
        "chunk-index-over-count",
        REQ,
        [("set", DOC, CHUNK_DOC), ("set", f"{CONTENT}.chunk_index", 4)],
        f"{CONTENT}.chunk_index",
        "<= chunk_count",
        schema_rejects=False,
    ),
    Case(
        "chunk-count-0",
        REQ,
        [("set", DOC, CHUNK_DOC), ("set", f"{CONTENT}.chunk_count", 0)],
        f"{CONTENT}.chunk_count",
        ">= 1",
    ),
    Case(
        "chunk-index-missing",
        REQ,
        [("set", DOC, CHUNK_DOC), ("del", f"{CONTENT}.chunk_index")],
        f"{CONTENT}.chunk_index",
        "required",
    ),
    Case(
        "chunk-index-string",
        REQ,
        [("set", DOC, CHUNK_DOC), ("set", f"{CONTENT}.chunk_index", "1")],
        f"{CONTENT}.chunk_index",
        "integer",
    ),
    Case(
        "index-collection-id-missing",
        REQ,
        [("set", DOC, INDEX_DOC), ("del", f"{CONTENT}.collection_id")],
        f"{CONTENT}.collection_id",
        "required",
    ),
    Case(
        "index-entry-source-id-missing",
        REQ,
        [("set", DOC, INDEX_DOC), ("del", f"{CONTENT}.sources[0].source_id")],
        f"{CONTENT}.sources[0].source_id",
        "required",
    ),
    Case(
        "index-entry-extra-key",
        REQ,
        [("set", DOC, INDEX_DOC), ("set", f"{CONTENT}.sources[0].score", 1)],
        f"{CONTENT}.sources[0].score",
        "unknown key",
    ),
    Case(
        "source-markdown-missing",
        REQ,
        [("set", DOC, SOURCE_DOC), ("del", f"{CONTENT}.markdown")],
        f"{CONTENT}.markdown",
        "required",
    ),
    Case(
        "source-source-id-missing",
        REQ,
        [("set", DOC, SOURCE_DOC), ("del", f"{CONTENT}.source_id")],
        f"{CONTENT}.source_id",
        "required",
    ),
    Case(
        "source-url-ftp",
        REQ,
        [("set", DOC, SOURCE_DOC), ("set", f"{CONTENT}.url", "ftp://example.com/x")],
        f"{CONTENT}.url",
        "http(s)",
    ),
    # --- response -------------------------------------------------------------------------
    Case("in-reply-to-missing", RES, [("del", "in_reply_to")], "in_reply_to", "required"),
    Case(
        "in-reply-to-request-id-missing",
        RES,
        [("set", "in_reply_to", {})],
        "in_reply_to.request_id",
        "required",
    ),
    Case("in-reply-to-string", RES_MD, [("set", "in_reply_to", "req-1")], "in_reply_to", "object"),
    Case("assistant-missing", RES, [("del", "assistant")], "assistant", "required"),
    Case(
        "assistant-no-render-no-markdown",
        RES,
        [("del", "assistant.render")],
        "assistant.render",
        "required in JSON mode",
    ),
    Case(
        "assistant-extra-key",
        RES,
        [("set", "assistant.html", "<b>hi</b>")],
        "assistant.html",
        "unknown key",
    ),
    Case(
        "assistant-markdown-not-string",
        RES_MD,
        [("set", "assistant.markdown", {"text": "x"})],
        "assistant.markdown",
        "string",
    ),
    Case(
        "render-string",
        RES,
        [("set", "assistant.render", "Markdown content...")],
        "assistant.render",
        "object",
    ),
    Case("render-array", RES, [("set", "assistant.render", [])], "assistant.render", "object"),
    Case(
        "render-root-paragraph",
        RES,
        [("set", "assistant.render.type", "paragraph")],
        "assistant.render.type",
        "'doc'",
    ),
    Case(
        "render-root-type-missing",
        RES,
        [("del", "assistant.render.type")],
        "assistant.render.type",
        "required",
    ),
    Case(
        "render-unknown-block",
        RES,
        [("set", "assistant.render.children[0].type", "html")],
        "assistant.render.children[0].type",
        "unknown type",
    ),
    Case(
        "render-text-missing-text",
        RES,
        [("del", "assistant.render.children[0].children[0].text")],
        "assistant.render.children[0].children[0].text",
        "required",
    ),
    Case(
        "render-text-extra-key",
        RES,
        [("set", "assistant.render.children[0].children[0].html", "<i>")],
        "assistant.render.children[0].children[0].html",
        "unknown key",
    ),
    Case(
        "render-heading-level-7",
        RES,
        [("set", "assistant.render.children[0]", {"type": "heading", "level": 7, "children": []})],
        "assistant.render.children[0].level",
        "<= 6",
    ),
    Case(
        "render-heading-level-0",
        RES,
        [("set", "assistant.render.children[0]", {"type": "heading", "level": 0})],
        "assistant.render.children[0].level",
        ">= 1",
    ),
    Case(
        "render-link-javascript",
        RES,
        [
            (
                "set",
                "assistant.render.children[0].children[0]",
                {"type": "link", "href": "javascript:alert(1)", "children": []},
            )
        ],
        "assistant.render.children[0].children[0].href",
        "http, https or mailto",
    ),
    Case(
        "render-list-item-wrong-type",
        RES,
        [
            (
                "set",
                "assistant.render.children[0]",
                {"type": "list", "ordered": True, "items": [{"type": "paragraph"}]},
            )
        ],
        "assistant.render.children[0].items[0].type",
        "list_item",
    ),
    Case(
        "render-list-ordered-not-bool",
        RES,
        [("set", "assistant.render.children[0]", {"type": "list", "ordered": "yes", "items": []})],
        "assistant.render.children[0].ordered",
        "true or false",
    ),
    Case(
        "render-code-block-no-text",
        RES,
        [("set", "assistant.render.children[0]", {"type": "code_block", "language": "py"})],
        "assistant.render.children[0].text",
        "required",
    ),
    Case(
        "render-block-as-inline",
        RES,
        [
            (
                "set",
                "assistant.render.children[0].children[0]",
                {"type": "paragraph", "children": []},
            )
        ],
        "assistant.render.children[0].children[0].type",
        "unknown type",
    ),
    Case(
        "render-nested-too-deep",
        RES,
        [("set", "assistant.render.children[0]", _nested_blockquotes(40))],
        "assistant.render.children",
        "deeper than 32",
        schema_rejects=None,
    ),
    Case(
        "citations-not-array",
        RES,
        [("set", "assistant.citations", {"source_id": "src:1"})],
        "assistant.citations",
        "array",
    ),
    Case("citation-no-ids", RES, [("del", f"{CITE}.source_id")], f"{CITE}.source_id", "source_id"),
    Case("citation-quote-missing", RES, [("del", f"{CITE}.quote")], f"{CITE}.quote", "required"),
    Case("citation-quote-empty", RES, [("set", f"{CITE}.quote", "")], f"{CITE}.quote", "empty"),
    Case("citation-url-missing", RES_MD, [("del", f"{CITE}.url")], f"{CITE}.url", "required"),
    Case(
        "citation-url-javascript",
        RES,
        [("set", f"{CITE}.url", "javascript:void(0)")],
        f"{CITE}.url",
        "http(s)",
    ),
    Case(
        "citation-confidence-1.5",
        RES,
        [("set", f"{CITE}.confidence", 1.5)],
        f"{CITE}.confidence",
        "<= 1",
    ),
    Case(
        "citation-confidence-negative",
        RES,
        [("set", f"{CITE}.confidence", -0.1)],
        f"{CITE}.confidence",
        ">= 0",
    ),
    Case(
        "citation-confidence-string",
        RES,
        [("set", f"{CITE}.confidence", "0.7")],
        f"{CITE}.confidence",
        "number",
    ),
    Case(
        "citation-locator-type",
        RES,
        [("set", f"{CITE}.locator", {"type": "xpath", "value": "//p"})],
        f"{CITE}.locator.type",
        "text_fragment",
    ),
    Case(
        "citation-locator-value-missing",
        RES,
        [("set", f"{CITE}.locator", {"type": "text_fragment"})],
        f"{CITE}.locator.value",
        "required",
    ),
    Case(
        "citation-extra-key",
        RES,
        [("set", f"{CITE}.verified", True)],
        f"{CITE}.verified",
        "unknown key",
    ),
    # --- tool calls -----------------------------------------------------------------------
    Case(
        "tool-calls-not-array",
        RES,
        [("set", "tool_calls", {"name": "browser.back"})],
        "tool_calls",
        "array",
    ),
    Case(
        "tool-call-extra-key",
        RES,
        [
            (
                "set",
                "tool_calls",
                [{"name": "browser.click", "arguments": {"handleId": "laika-1"}, "reason": "x"}],
            )
        ],
        f"{CALL}.reason",
        "unknown key",
    ),
    Case(
        "tool-call-extra-argument",
        RES,
        [
            (
                "set",
                "tool_calls",
                [{"name": "browser.click", "arguments": {"handleId": "laika-1", "force": True}}],
            )
        ],
        f"{CALL}.arguments.force",
        "unknown key",
    ),
    Case(
        "tool-call-unknown-tool",
        RES,
        [("set", "tool_calls", [{"name": "shell.exec", "arguments": {}}])],
        f"{CALL}.name",
        "unknown tool",
    ),
    Case(
        "tool-call-name-missing",
        RES,
        [("set", "tool_calls", [{"arguments": {}}])],
        f"{CALL}.name",
        "required",
    ),
    Case(
        "tool-call-required-argument-missing",
        RES,
        [("set", "tool_calls", [{"name": "browser.click", "arguments": {}}])],
        f"{CALL}.arguments.handleId",
        "required",
    ),
    Case(
        "tool-call-snake-case-argument",
        RES,
        [("set", "tool_calls", [{"name": "browser.click", "arguments": {"handle_id": "laika-1"}}])],
        f"{CALL}.arguments.handle_id",
        "unknown key",
    ),
    Case(
        "tool-call-arguments-not-object",
        RES,
        [("set", "tool_calls", [{"name": "browser.back", "arguments": []}])],
        f"{CALL}.arguments",
        "object",
    ),
    Case(
        "tool-call-argument-wrong-type",
        RES,
        [("set", "tool_calls", [{"name": "browser.scroll", "arguments": {"deltaY": "down"}}])],
        f"{CALL}.arguments.deltaY",
        "number",
    ),
    Case(
        "tool-call-no-arguments-tool-given-one",
        RES,
        [("set", "tool_calls", [{"name": "browser.back", "arguments": {"steps": 2}}])],
        f"{CALL}.arguments.steps",
        "unknown key",
    ),
    Case(
        "tool-call-open-tab-javascript",
        RES,
        [
            (
                "set",
                "tool_calls",
                [{"name": "browser.open_tab", "arguments": {"url": "javascript:alert(1)"}}],
            )
        ],
        f"{CALL}.arguments.url",
        "http(s)",
    ),
    Case(
        "tool-call-share-format",
        RES,
        [
            (
                "set",
                "tool_calls",
                [
                    {
                        "name": "artifact.share",
                        "arguments": {"artifactId": "art_1", "format": "docx"},
                    }
                ],
            )
        ],
        f"{CALL}.arguments.format",
        "'markdown'",
    ),
    Case(
        "tool-call-add-sources-type",
        RES,
        [
            (
                "set",
                "tool_calls",
                [
                    {
                        "name": "collection.add_sources",
                        "arguments": {
                            "collectionId": "col_1",
                            "sources": [{"type": "pdf", "url": "https://e.com"}],
                        },
                    }
                ],
            )
        ],
        f"{CALL}.arguments.sources[0].type",
        "unknown type",
    ),
    Case(
        "tool-call-add-sources-empty",
        RES,
        [
            (
                "set",
                "tool_calls",
                [
                    {
                        "name": "collection.add_sources",
                        "arguments": {"collectionId": "col_1", "sources": []},
                    }
                ],
            )
        ],
        f"{CALL}.arguments.sources",
        "at least 1",
    ),
    Case(
        "tool-call-observe-dom-zero",
        RES,
        [("set", "tool_calls", [{"name": "browser.observe_dom", "arguments": {"maxChars": 0}}])],
        f"{CALL}.arguments.maxChars",
        ">= 1",
    ),
    Case(
        "tool-call-second-item-bad",
        RES,
        [
            (
                "set",
                "tool_calls",
                [
                    {"name": "browser.back"},
                    {"name": "browser.type", "arguments": {"handleId": "h"}},
                ],
            )
        ],
        "tool_calls[1].arguments.text",
        "required",
    ),
]


def _ids_are_unique() -> None:
    seen = [case.id for case in CASES]
    duplicates = {name for name in seen if seen.count(name) > 1}
    assert not duplicates, duplicates


_ids_are_unique()


def test_there_are_enough_invalid_cases() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_invalid_packet_is_rejected_at_its_path(case: Case) -> None:
    base = load_fixture(case.base)
    assert check_packet(base).ok, "the base example must be valid"
    data = apply(base, case.ops)
    result = check_packet(data)
    assert not result.ok
    paths = [issue.path for issue in result.issues]
    assert case.path in paths, f"expected an issue at {case.path}, got {result.issues}"
    message = next(issue.message for issue in result.issues if issue.path == case.path)
    assert case.says in message, f"{case.path}: {message!r} does not say {case.says!r}"
    if case.schema_rejects is not None:
        schema = schema_validator(f"llmcp/{base['type']}.schema.json")
        assert schema.is_valid(data) is not case.schema_rejects


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("case", CASES[::9], ids=[case.id for case in CASES[::9]])
def test_laika_validate_prints_path_and_rule(case: Case, tmp_path) -> None:
    packet = tmp_path / "packet.json"
    packet.write_text(json.dumps(apply(load_fixture(case.base), case.ops)))
    done = run_laika("validate", str(packet))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"{case.path}: ") and case.says in line for line in lines), (
        done.stdout
    )


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b'{"type": "request", "n": ' + b"9" * 5000 + b"}", b"more than 4300 digits"),
        (b'{"type": "request", "n": 1e400}', b"too large for a 64-bit float"),
        (b'{"type": "request", "id": "\\ud800"}', b"lone UTF-16 surrogate"),
        (b'{"type": "request", "\\udfff": 1}', b"lone UTF-16 surrogate"),
    ],
    ids=["long-integer", "float-overflow", "lone-surrogate-value", "lone-surrogate-key"],
)
def test_laika_validate_exits_2_on_numbers_and_strings_json_cannot_carry(
    body: bytes, named: bytes
) -> None:
    done = run_laika("validate", "-", stdin=body)
    assert done.returncode == 2, done.stderr
    assert named.decode() in done.stderr
    assert "Traceback" not in done.stderr
