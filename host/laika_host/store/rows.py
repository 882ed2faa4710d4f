"""Rows that know their file, and record builders that report an unreadable row as damage.

SQLite checks a file's pages, not what a page's bytes mean to Laika: a damaged page can
still hand back JSON that does not parse, a status no CHECK would have let in, or text where
a time belongs. Every stored value was written by Laika from a valid record, so a builder
that cannot turn a row back into one is reading damage, and says so naming the file (the
row knows it), never as a traceback or a message without the path.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

from pydantic import ValidationError

from .errors import StoreCorruptError
from .sqlite_errors import damaged_error, one_line

P = ParamSpec("P")
R = TypeVar("R")


class DamagedValueError(StoreCorruptError):
    """A stored value Laika cannot read, raised where the file is not at hand (`records`);
    whoever holds the row or the connection reports it with the path (`from_row`, `_db`)."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"a stored value is damaged ({problem})")
        self.problem = problem


class StoredRow(sqlite3.Row):
    """`sqlite3.Row` whose class names the file it was read from (one class per connection)."""

    path: ClassVar[Path | None] = None


def row_type(path: Path) -> type[StoredRow]:
    """The row factory for one connection to `path`."""
    return type("StoredRow", (StoredRow,), {"path": path})


def damaged_value(row: Any, problem: str) -> StoreCorruptError:
    """The error for a value of `row` Laika cannot read: naming the file when the row
    knows it, so a caller that is no `from_row` builder still reports it whole."""
    path = getattr(row, "path", None)
    if path is None:
        return DamagedValueError(problem)
    return damaged_error(path, f"a stored row holds {problem}")


def from_row(build: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """Decorate a row-to-record builder: a value it cannot read is the file's damage."""

    @functools.wraps(build)
    def built(row: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return build(row, *args, **kwargs)
        except (DamagedValueError, ValueError, TypeError, ArithmeticError) as error:
            path = getattr(row, "path", None)
            if path is None:  # not a row read from a file: a bug, not damage
                raise
            raise damaged_error(path, f"a stored row holds {_problem(error)}") from error

    return built


def _problem(error: Exception) -> str:
    """What was wrong, on one printable line, without quoting the whole damaged value."""
    if isinstance(error, DamagedValueError):
        return error.problem
    if isinstance(error, ValidationError) and error.errors():
        first = error.errors()[0]
        text = f"{'.'.join(str(part) for part in first['loc'])}: {first['msg']}"
    else:
        text = f"{type(error).__name__}: {error}"
    return f"a value Laika never writes ({one_line(text)})"
