"""LLMX v1.0 (spec 002): a compact text format for messages between models.

Import from here; the submodules are an implementation detail:

    from laika_host.llmx import parse, serialize, LlmxError
"""

from .batches import BatchMatch, match_batch
from .errors import LlmxError
from .model import Act, Block, Header, Message, Obs
from .parser import parse, parse_blocks
from .serialize import serialize, serialize_block
from .shortcuts import OpShortcut, PathRef, expand_op, expand_target

__all__ = [
    "Act",
    "BatchMatch",
    "Block",
    "Header",
    "LlmxError",
    "Message",
    "Obs",
    "OpShortcut",
    "PathRef",
    "expand_op",
    "expand_target",
    "match_batch",
    "parse",
    "parse_blocks",
    "serialize",
    "serialize_block",
]
