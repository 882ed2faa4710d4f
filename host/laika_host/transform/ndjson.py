"""Items from a model's NDJSON reply, line by line as the text streams in (spec 001).

Each complete line is parsed and validated against the item model on its own; a line that is
not JSON, not an object, or not a valid item is logged as `malformed_json_line` (with the
phase, the start of the line and the error) and skipped, and the stream goes on. Fences,
array brackets and trailing commas that models wrap NDJSON in are tolerated. A line longer
than `MAX_LINE` characters is dropped as it streams (its text is not kept), so memory and
time stay linear in the reply's length whatever the model sends.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic import ValidationError

from ..redact import redact_text
from ..strict_json import NotJsonError, loads_strict
from .items import Item

log = logging.getLogger("laika.transform")
T = TypeVar("T", bound=Item)
MAX_LINE = 32_000
MAX_LOGGED = 200
MAX_KEPT_PROBLEMS = 20
_WRAPPERS = frozenset({"[", "]", "```", "```json", "```ndjson", "```jsonl", "~~~"})


@dataclass
class LineProblem:
    line_number: int
    error: str


@dataclass
class NdjsonItems(Generic[T]):
    """Feed text as it arrives; get back the items of the lines it completed."""

    model: type[T]
    phase: str = "items"
    max_line: int = MAX_LINE
    lines: int = 0
    bad: int = 0
    problems: list[LineProblem] = field(default_factory=list)
    _parts: list[str] = field(default_factory=list)
    _length: int = 0
    _overflow: bool = False

    def feed(self, text: str) -> list[T]:
        items: list[T] = []
        pieces = text.split("\n")
        for piece in pieces[:-1]:
            self._add(piece)
            item = self._end_line()
            if item is not None:
                items.append(item)
        self._add(pieces[-1])
        return items

    def take(self, text: str) -> T | None:
        """One complete JSON text (an element of a constrained reply's array), validated and
        counted like a line."""
        self.lines += 1
        return self._parse(text.strip())

    def close(self) -> list[T]:
        """The last line, when the reply did not end with a newline."""
        item = self._end_line()
        return [item] if item is not None else []

    def _add(self, piece: str) -> None:
        if self._overflow or not piece:
            return
        self._length += len(piece)
        if self._length > self.max_line:
            self._overflow, self._parts = True, []  # drop it now: never hold a huge line
            return
        self._parts.append(piece)

    def _end_line(self) -> T | None:
        overflow, line = self._overflow, "".join(self._parts)
        self._parts, self._length, self._overflow = [], 0, False
        if overflow:
            self.lines += 1
            self._reject("", f"the line is longer than {self.max_line} characters")
            return None
        line = line.strip()
        if not line or line in _WRAPPERS:
            return None
        self.lines += 1
        return self._parse(line.removesuffix(","))

    def _parse(self, line: str) -> T | None:
        try:
            value = loads_strict(line)
        except NotJsonError as error:
            self._reject(line, str(error))
            return None
        if not isinstance(value, dict):
            self._reject(line, f"a JSON {type(value).__name__}, not an object")
            return None
        try:
            return self.model.model_validate(value)
        except ValidationError as error:
            self._reject(line, _first_problem(error))
            return None

    def _reject(self, line: str, error: str) -> None:
        self.bad += 1
        if len(self.problems) < MAX_KEPT_PROBLEMS:
            self.problems.append(LineProblem(self.lines, error))
        record = {
            "event": "malformed_json_line",
            "phase": self.phase,
            "line_number": self.lines,
            "line": redact_text(line[: MAX_LOGGED * 4])[:MAX_LOGGED],
            "error": error[:MAX_LOGGED],
        }
        log.warning(json.dumps(record, ensure_ascii=False))

    def summary(self) -> str | None:
        """What the user should know about skipped lines, or None."""
        if not self.bad:
            return None
        first = self.problems[0]
        return (
            f"{self.bad} of {self.lines} line(s) of the model's output were not valid "
            f"{self.model.kind} items and were skipped (line {first.line_number}: {first.error})"
        )


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "item"
    return f"{where}: {problem['msg']}"
