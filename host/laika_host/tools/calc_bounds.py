"""The limits that make every `app.calculate` input finish fast, and the one error it raises.

The expression comes from a model, which may be echoing a hostile page: each limit caps one
way an input could cost time or memory (length, tokens, nesting, literal size, the size of
any intermediate value), so no input needs a timer to stop it.
"""

from __future__ import annotations

import math
from typing import Any, Final

from laika_host.errors import RefusedError

MAX_EXPRESSION_CHARS: Final = 1_000
"""Longest expression read; a real calculation is a line, not a page."""
MAX_TOKENS: Final = 400
"""Most numbers, names, operators and brackets in one expression."""
MAX_DEPTH: Final = 64
"""Deepest nesting of brackets, signs and powers: the parser recurses once per level and must
stay far below Python's stack limit."""
MAX_LITERAL_DIGITS: Final = 100
"""Most digits in one written number (a 5,000-digit literal is refused before int() sees it)."""
MAX_LITERAL_EXPONENT: Final = 1_000
"""Largest |n| in a written `...e<n>`."""
MAX_MAGNITUDE_DIGITS: Final = 1_000
"""Every value stays between 10**-1000 and 10**1000 in size (or is zero)."""
MAX_STORED_DIGITS: Final = 1_100
"""Most digits in a value's numerator or denominator; an exact value that needs more is
rounded to WORKING_DIGITS significant digits (and marked inexact) instead."""
MAX_STORED_BITS: Final = math.ceil(MAX_STORED_DIGITS * math.log2(10))
MAX_EXPONENT: Final = 1_000_000
"""Largest |y| in x^y for x other than 0, 1 and -1: beyond it only bases this close to 1
stay in range, where no working precision is honest."""
WORKING_DIGITS: Final = 60
"""Significant digits of irrational results (sqrt(2), ln, sin, pi, ...)."""
SHOWN_DIGITS: Final = 28
"""Significant digits shown of a value whose decimal expansion does not end, or is inexact."""
MAX_INEXACT_DIGITS: Final = 50
"""Most significant digits shown of an inexact value, whatever precision is asked."""
MAX_PRECISION: Final = 100
"""Largest `precision` (digits after the point); the same bound as CalculateArguments."""


class CalculationError(RefusedError):
    """An expression `app.calculate` refuses; the message names the problem, where, and the fix."""

    def __init__(self, problem: str, fix: str, position: int | None = None) -> None:
        where = "" if position is None else f" at character {position + 1}"
        super().__init__(f"{problem}{where}; {fix}")
        self.position = position

    def error_details(self) -> dict[str, Any] | None:
        """The 0-based offset of the problem in the expression, when it has one."""
        return None if self.position is None else {"position": self.position}
