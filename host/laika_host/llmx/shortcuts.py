"""Section 4's shortcuts, expanded without changing the text that carries them.

A value keeps its original text (`"p:src/auth.ts#L42"`), so a message round-trips exactly;
these functions say what the text means. Paths: `p:PATH`, `p:PATH#L42`, `p:PATH#L10-25`,
`^/src` (the parent directory). In targets also `@ref` (a reference) and `*` (all). Operations:
a run of `+ - ~ ? ! * @` optionally followed by an operation name (`+`, `~`, `!edit`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPERATIONS = ("read", "write", "edit", "shell", "search", "spawn")
"""Section 3.5's operations."""
OP_SHORTCUTS = {
    "+": "add",
    "-": "remove",
    "~": "modify",
    "?": "query",
    "!": "force",
    "*": "all",
    "@": "reference",
}
"""Section 4.2: shortcut -> meaning."""
IMPLIED_OPERATION = {"+": "write", "~": "edit", "?": "read"}
"""The operation a lone shortcut stands for, where section 3.5 has one."""

_LINES = re.compile(r"L([1-9][0-9]{0,8})(?:-([1-9][0-9]{0,8}))?")


@dataclass(frozen=True)
class PathRef:
    """What a target or path text means; `problem` says why it is malformed (else None)."""

    text: str
    kind: str = "text"
    """path | parent | reference | all | text (no shortcut)."""
    path: str | None = None
    lines: tuple[int, int] | None = None
    problem: str | None = None

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {"text": self.text, "kind": self.kind}
        if self.path is not None:
            found["path"] = self.path
        if self.lines is not None:
            found["lines"] = list(self.lines)
        return found


@dataclass(frozen=True)
class OpShortcut:
    """An operation as written: its shortcut meanings and the operation it names or implies."""

    text: str
    meanings: tuple[str, ...] = ()
    operation: str | None = None
    problem: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "meanings": list(self.meanings), "operation": self.operation}


def expand_target(text: str) -> PathRef:
    """Expand `p:`, `#L`, `#L-L`, `^`, `@` and `*`; any other text is a plain target."""
    if text.startswith("p:"):
        return _path(text, text[2:], "path")
    if text.startswith("^"):
        return (
            _path(text, "..", "parent") if text == "^" else _path(text, ".." + text[1:], "parent")
        )
    if text.startswith("@") and len(text) > 1:
        return PathRef(text, "reference", path=text[1:])
    if text == "*":
        return PathRef(text, "all")
    return PathRef(text)


def _path(text: str, rest: str, kind: str) -> PathRef:
    path, hash_sign, anchor = rest.partition("#L")
    if not path:
        return PathRef(text, kind, problem=f"{text!r}: a path shortcut needs a path after p:")
    if not hash_sign:
        return PathRef(text, kind, path=path)
    found = _LINES.fullmatch("L" + anchor)
    if not found:
        return PathRef(
            text, kind, problem=f"{text!r}: a line anchor is #L42 or #L10-25 (lines from 1)"
        )
    first = int(found.group(1))
    last = int(found.group(2)) if found.group(2) else first
    if last < first:
        return PathRef(text, kind, problem=f"{text!r}: line range ends before it starts")
    return PathRef(text, kind, path=path, lines=(first, last))


def expand_op(text: str) -> OpShortcut:
    """`edit` -> edit; `+` -> add (write); `!edit` -> force + edit; unknown names refused."""
    index = 0
    while index < len(text) and text[index] in OP_SHORTCUTS:
        index += 1
    symbols, name = text[:index], text[index:]
    meanings = tuple(OP_SHORTCUTS[char] for char in symbols)
    if name and name not in OPERATIONS:
        return OpShortcut(text, meanings, problem=_op_problem(text))
    if not name and not symbols:
        return OpShortcut(text, problem=_op_problem(text))
    operation = name or next(
        (IMPLIED_OPERATION[c] for c in symbols if c in IMPLIED_OPERATION), None
    )
    return OpShortcut(text, meanings, operation)


def _op_problem(text: str) -> str:
    return (
        f"unknown operation {text!r}: use {'|'.join(OPERATIONS)}, optionally after "
        f"shortcuts {' '.join(OP_SHORTCUTS)} (e.g. +, ~, !edit)"
    )
