"""LLMX messages as data: a HEADER block, typed blocks, and the warnings parsing raised.

Values are plain JSON without null (LLMX has none): str, int, float, bool, list, dict. The
form a value was written in (bare word or quoted string, tuple or object) is not kept: the
serializer writes one canonical form (`serialize`), the one the spec's examples use. Typed
views (`Header`, `Act`, `Obs`) read blocks that `blocks.check_block` already checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

Value: TypeAlias = "str | int | float | bool | list[Value] | dict[str, Value]"
Fields = dict[str, Value]

HEADER = "HEADER"


@dataclass(frozen=True, eq=True)
class Block:
    """One `TYPE:{...}` or `TYPE:[...]` line: PLAN holds a list, every other block an object."""

    type: str
    value: Fields | list[Value]

    @property
    def fields(self) -> Fields:
        """The block's object (empty for a list-valued block such as PLAN)."""
        return self.value if isinstance(self.value, dict) else {}

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "value": self.value}


@dataclass(frozen=True, eq=True)
class Message:
    """A HEADER and the blocks after it; `warnings` say what was kept or ignored and why."""

    blocks: tuple[Block, ...]
    warnings: tuple[str, ...] = ()

    @property
    def header(self) -> Header:
        return Header.of(self.blocks[0])

    @property
    def body(self) -> tuple[Block, ...]:
        return self.blocks[1:]

    def of_type(self, kind: str) -> list[Block]:
        return [block for block in self.blocks if block.type == kind]

    def warning_lines(self) -> list[str]:
        """The spec's (7.3) form of each warning: `RES:{o:"WARN",msg:"..."}`."""
        from .serialize import serialize_block

        return [serialize_block(Block("RES", {"o": "WARN", "msg": text})) for text in self.warnings]

    def __eq__(self, other: object) -> bool:
        # Two messages are the same message when their blocks are; warnings follow from them.
        return isinstance(other, Message) and self.blocks == other.blocks

    def __hash__(self) -> int:
        return hash(len(self.blocks))


@dataclass(frozen=True)
class Header:
    """`HEADER:{f,t,s,b?}`: sender, target (or ALL), sequence number, batch id."""

    f: str
    t: str
    s: int
    b: str | None

    @classmethod
    def of(cls, block: Block) -> Header:
        fields = block.fields
        batch = fields.get("b")
        sequence = fields["s"]
        assert isinstance(sequence, int)  # checked by blocks.check_block
        return cls(str(fields["f"]), str(fields["t"]), sequence, _text(batch))


@dataclass(frozen=True)
class Act:
    """`ACT:{i?,op,tgt,args?}`: an action to run."""

    i: str | None
    op: str
    tgt: str
    args: Fields

    @classmethod
    def of(cls, block: Block) -> Act:
        fields = block.fields
        args = fields.get("args")
        return cls(
            _text(fields.get("i")),
            str(fields["op"]),
            str(fields["tgt"]),
            args if isinstance(args, dict) else {},
        )


@dataclass(frozen=True)
class Obs:
    """`OBS:{ai?,s,c,e?}`: what an action produced (`s` is OK or ERR)."""

    ai: str | None
    ok: bool
    c: Fields | None
    e: str | None

    @classmethod
    def of(cls, block: Block) -> Obs:
        fields = block.fields
        content = fields.get("c")
        return cls(
            _text(fields.get("ai")),
            fields["s"] == "OK",
            content if isinstance(content, dict) else None,
            _text(fields.get("e")),
        )


def _text(value: Value | None) -> str | None:
    return value if isinstance(value, str) else None
