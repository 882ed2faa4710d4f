"""Each standard block's fields, as spec 002 section 3 tables them, and the check of one block.

Fields outside the table are refused unless they start with `x_` (section 8.2): those are kept
and reported. String fields take a quoted string or a bare word (the spec writes `f:Claude`).
OBS's `c` is required when `s:OK`; with `s:ERR` the spec's own examples give `e` instead, so
there one of `c` or `e` is required.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .errors import LlmxError
from .model import Fields, Value
from .shortcuts import expand_op, expand_target

Check = Callable[[Value], str | None]
"""Returns why the value is wrong, or None."""


def _kind(value: Value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _string(value: Value) -> str | None:
    return None if isinstance(value, str) else f"must be a string (got {_kind(value)})"


def _strings(value: Value) -> str | None:
    if not isinstance(value, list):
        return f"must be an array of strings (got {_kind(value)})"
    for index, item in enumerate(value):
        if not isinstance(item, str):
            return f"item {index + 1} must be a string (got {_kind(item)})"
    return None


def _object(value: Value) -> str | None:
    return None if isinstance(value, dict) else f"must be an object {{k:v}} (got {_kind(value)})"


def _boolean(value: Value) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false (got {_kind(value)})"


def _whole(value: Value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _sequence(value: Value) -> str | None:
    if _whole(value) and isinstance(value, int) and value >= 0:
        return None
    return f"must be a whole number >= 0, the sequence number (got {value!r})"


def _priority(value: Value) -> str | None:
    if _whole(value) and isinstance(value, int) and 1 <= value <= 5:
        return None
    return f"must be a priority 1..5 (1=critical, 5=low) (got {value!r})"


def _step_id(value: Value) -> str | None:
    if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
        return None
    return f"must be a number or a string (got {_kind(value)})"


def _one_of(*allowed: str) -> Check:
    def check(value: Value) -> str | None:
        if isinstance(value, str) and value in allowed:
            return None
        return f"must be {'|'.join(allowed)} (got {value!r})"

    return check


def _operation(value: Value) -> str | None:
    if not isinstance(value, str):
        return f"must be an operation name (got {_kind(value)})"
    return expand_op(value).problem


def _target(value: Value) -> str | None:
    if not isinstance(value, str):
        return f"must be a string (got {_kind(value)})"
    return expand_target(value).problem


def _paths(value: Value) -> str | None:
    problem = _strings(value)
    if problem is None and isinstance(value, list):
        for index, item in enumerate(value):
            found = expand_target(str(item)).problem
            if found:
                return f"item {index + 1}: {found}"
    return problem


@dataclass(frozen=True)
class Field:
    check: Check
    required: bool = False
    bare: bool = False
    """Written as a bare word when it is one (`f:Claude`, `s:OK`), as the spec's examples do."""


STATUS_OBS = ("OK", "ERR")
STATUS_PLAN = ("P", "I", "C", "X")

BLOCKS: dict[str, dict[str, Field]] = {
    "HEADER": {
        "f": Field(_string, True, bare=True),
        "t": Field(_string, True, bare=True),
        "s": Field(_sequence, True),
        "b": Field(_string, bare=True),
    },
    "CTX": {
        "p": Field(_string, True, bare=True),
        "f": Field(_paths),
        "st": Field(_object),
        "issue": Field(_string),
    },
    "REQ": {
        "o": Field(_string, True),
        "pr": Field(_priority, True),
        "d": Field(_strings),
        "exp": Field(_strings),
    },
    "ACT": {
        "i": Field(_string, bare=True),
        "op": Field(_operation, True, bare=True),
        "tgt": Field(_target, True),
        "args": Field(_object),
    },
    "OBS": {
        "ai": Field(_string, bare=True),
        "s": Field(_one_of(*STATUS_OBS), True, bare=True),
        "c": Field(_object),
        "e": Field(_string),
    },
    "BLK": {"w": Field(_string, True), "a": Field(_strings, True), "esc": Field(_boolean)},
    "ASK": {"q": Field(_string, True), "o": Field(_strings, True), "def": Field(_string)},
    "END": {
        "n": Field(_string, True),
        "t": Field(_strings),
        "r": Field(_strings),
        "del": Field(_paths, True),
    },
    "RES": {"o": Field(_string, True), "msg": Field(_string)},
}
"""Block type -> field -> its check (PLAN, a list of tuples, is `PLAN_STEP`)."""

PLAN = "PLAN"
PLAN_STEP: dict[str, Field] = {
    "i": Field(_step_id, True, bare=True),
    "t": Field(_string, True),
    "s": Field(_one_of(*STATUS_PLAN), True, bare=True),
}
STANDARD = frozenset([*BLOCKS, PLAN])
CUSTOM_BLOCK = "X_"
CUSTOM_FIELD = "x_"


def bare_fields(block_type: str) -> frozenset[str]:
    """Fields of `block_type` (PLAN: of each step) written bare when they can be."""
    table = PLAN_STEP if block_type == PLAN else BLOCKS.get(block_type, {})
    return frozenset(name for name, spec in table.items() if spec.bare)


def check_block(block_type: str, value: Fields | list[Value]) -> list[str]:
    """Check a standard block; returns the custom fields it keeps (for warnings)."""
    if block_type == PLAN:
        return _check_plan(value)
    if not isinstance(value, dict):
        raise LlmxError(f"{block_type} takes an object {{...}}, not an array")
    custom = check_fields(value, BLOCKS[block_type], block_type)
    if block_type == "OBS":
        _check_obs(value)
    return custom


def _check_plan(value: Fields | list[Value]) -> list[str]:
    if not isinstance(value, list):
        raise LlmxError('PLAN takes a list of steps [(i:1,t:"...",s:P),...], not an object')
    custom: list[str] = []
    for index, step in enumerate(value):
        if not isinstance(step, dict):
            raise LlmxError(
                f'step {index + 1} must be a tuple (i:ID,t:"task",s:P|I|C|X) (got {_kind(step)})'
            )
        try:
            custom += check_fields(step, PLAN_STEP, f"PLAN step {index + 1}")
        except LlmxError as error:
            raise LlmxError(f"step {index + 1}: {error.problem}", field=error.field) from None
    return custom


def check_fields(fields: Fields, table: dict[str, Field], where: str) -> list[str]:
    """Every required field present, each field of its type, unknown ones only as `x_`."""
    custom = []
    for name, value in fields.items():
        spec = table.get(name)
        if spec is None:
            if not name.startswith(CUSTOM_FIELD):
                known = ", ".join(table)
                raise LlmxError(
                    f"unknown field in {where} (its fields are {known}; custom fields start "
                    "with x_)",
                    field=name,
                )
            custom.append(name)
            continue
        problem = spec.check(value)
        if problem:
            raise LlmxError(problem, field=name)
    for name, spec in table.items():
        if spec.required and name not in fields:
            raise LlmxError(f"missing required field {name!r} in {where}", field=name)
    return custom


def _check_obs(fields: Fields) -> None:
    if fields["s"] == "OK" and "c" not in fields:
        raise LlmxError("missing required field 'c' in OBS (the result content)", field="c")
    if fields["s"] == "ERR" and "c" not in fields and "e" not in fields:
        raise LlmxError('OBS with s:ERR needs e:"error message" (or c)', field="e")
