"""LLMCP v1: the JSON protocol between the host and a model runtime (spec 000).

Import from here; the submodules are an implementation detail:

    from laika_host.protocol import check_packet, RequestPacket, ResponsePacket
"""

from ..issues import Issue
from ..strict_json import NotJsonError
from ._base import LlmcpModel, format_timestamp
from .citations import Citation, Locator
from .documents import (
    CHUNK_KIND,
    CONTENT_MODELS,
    DOCUMENT_KINDS,
    INDEX_KIND,
    SOURCE_KIND,
    SUMMARY_KIND,
    WEB_DERIVED_KINDS,
    ChunkDocument,
    CollectionIndex,
    CollectionIndexEntry,
    CollectionSource,
    ContextDocument,
    DocumentSource,
    ExtractedLink,
    IndexDocument,
    SourceDocument,
    SummaryDocument,
    WebObservationChunk,
    WebObservationSummary,
)
from .envelope import (
    PROTOCOL_NAME,
    PROTOCOL_VERSION,
    Conversation,
    Envelope,
    ProtocolInfo,
    Sender,
    SenderRole,
)
from .render_tree import Document
from .request import TASK_NAMES, Context, Input, Output, RequestPacket, Task, UserMessage
from .response import Assistant, ContentPath, InReplyTo, ResponsePacket
from .tools import (
    BROWSER_TOOLS,
    TOOL_ARGUMENTS,
    TOOL_CALL_MODELS,
    TOOLS_SCHEMA_VERSION,
    ToolArguments,
    ToolCall,
    ToolCallBase,
)
from .validate import (
    OBJECT_KINDS,
    Check,
    Packet,
    check_object,
    check_packet,
    check_packet_text,
    detect_kind,
    parse_json,
)

__all__ = [
    "BROWSER_TOOLS",
    "CHUNK_KIND",
    "CONTENT_MODELS",
    "DOCUMENT_KINDS",
    "INDEX_KIND",
    "OBJECT_KINDS",
    "PROTOCOL_NAME",
    "PROTOCOL_VERSION",
    "SOURCE_KIND",
    "SUMMARY_KIND",
    "TASK_NAMES",
    "TOOLS_SCHEMA_VERSION",
    "TOOL_ARGUMENTS",
    "TOOL_CALL_MODELS",
    "WEB_DERIVED_KINDS",
    "Assistant",
    "Check",
    "ChunkDocument",
    "Citation",
    "CollectionIndex",
    "CollectionIndexEntry",
    "CollectionSource",
    "ContentPath",
    "Context",
    "ContextDocument",
    "Conversation",
    "Document",
    "DocumentSource",
    "Envelope",
    "ExtractedLink",
    "InReplyTo",
    "IndexDocument",
    "Input",
    "Issue",
    "LlmcpModel",
    "Locator",
    "NotJsonError",
    "Output",
    "Packet",
    "ProtocolInfo",
    "RequestPacket",
    "ResponsePacket",
    "Sender",
    "SenderRole",
    "SourceDocument",
    "SummaryDocument",
    "Task",
    "ToolArguments",
    "ToolCall",
    "ToolCallBase",
    "UserMessage",
    "WebObservationChunk",
    "WebObservationSummary",
    "check_object",
    "check_packet",
    "check_packet_text",
    "detect_kind",
    "format_timestamp",
    "parse_json",
]
