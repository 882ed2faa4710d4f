"""The one error LLMX parsing and checking raise: a NACK that names block, field and place.

Spec 002 (7.2) answers a malformed message with `RES:{o:"NACK",msg:"parse error: ..."}`, so
the error carries exactly what that line needs. It is a `RefusedError`: the input is text we
could read but will not accept as given (the CLI exits 1, the native layer says bad_request).
"""

from __future__ import annotations

from ..errors import RefusedError


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of `offset` in `text` (one linear pass, on error only)."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


class LlmxError(RefusedError):
    """An LLMX message refused: `str()` is the NACK's `msg`, `nack()` the whole line."""

    def __init__(
        self,
        problem: str,
        *,
        block: str | None = None,
        field: str | None = None,
        at: tuple[int, int] | None = None,
    ) -> None:
        self.problem = problem
        self.block = block
        self.field = field
        self.at = at
        super().__init__(self._message())

    def _message(self) -> str:
        where = []
        if self.block is not None:
            where.append(self.block)
        if self.field is not None:
            where.append(f"field {self.field!r}")
        if self.at is not None:
            where.append(f"line {self.at[0]} column {self.at[1]}")
        prefix = f"{', '.join(where)}: " if where else ""
        return f"parse error: {prefix}{self.problem}"

    def located(self, text: str, offset: int) -> LlmxError:
        """This error with its place in `text` (kept when already known)."""
        if self.at is not None:
            return self
        return LlmxError(
            self.problem, block=self.block, field=self.field, at=position(text, offset)
        )

    def in_block(self, block: str, field: str | None = None) -> LlmxError:
        """This error naming `block` (e.g. `block 2 (REQ)`) and `field`, unless already named."""
        if self.block is not None:
            return self
        named = self.field if self.field is not None else field
        return LlmxError(self.problem, block=block, field=named, at=self.at)

    def nack(self) -> str:
        """The spec's reply to a malformed message: `RES:{o:"NACK",msg:"parse error: ..."}`."""
        from .serialize import quote

        return f'RES:{{o:"NACK",msg:{quote(str(self))}}}'
