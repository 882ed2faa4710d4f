"""What a value looks like: generated (a key, a token) or ordinary (a word, a year, a count).

Only a prefix is read (`WINDOW`), so judging a value costs the same however long it is;
the value itself is still redacted whole.
"""

from __future__ import annotations

import re

WINDOW = 64
MAX_SMALL_NUMBER = 5  # digits: "Secrets: 3", "max_session=30", "session=1 week"
MAX_LITERAL = 9
# Adjacent characters that change class, except a capital followed by lower case (the
# start of a word): random keys change class often, words and "Fall2024" once or never.
_TRANSITION = re.compile(r"[a-z](?=[A-Z0-9])|[A-Z](?=[0-9])|[0-9](?=[A-Za-z])")
_LITERALS = frozenset(
    {"true", "false", "yes", "no", "on", "off", "null", "none", "nil", "undefined"}
)


def transitions(value: str) -> int:
    return len(_TRANSITION.findall(value, 0, WINDOW))


def two_classes(value: str) -> bool:
    """Two of lower case, upper case (past the first character) and digits: what generated
    keys and most passwords look like, not words."""
    head = value[:WINDOW]
    kinds = (
        any(c.islower() for c in head),
        any(c.isupper() for c in head[1:]),
        any(c.isdigit() for c in head),
    )
    return sum(kinds) >= 2


def generated(value: str) -> bool:
    """A value that looks random, not like a word with a number (`Fall2024`, `ERC20`):
    eight or more characters changing class at least twice (`Hunter10Pass`, `a1b2c3d4`)."""
    return len(value) >= 8 and transitions(value) >= 2


def bearer_token(value: str) -> bool:
    """A token after "Bearer": 16 or more characters of two classes, 32 or more of any, or
    one that keeps changing class (the RFC 6750 example `mF_9.B5f-4.1JqM`)."""
    return (len(value) >= 16 and two_classes(value)) or len(value) >= 32 or transitions(value) >= 4


def ordinary(value: str, *, weak: bool) -> bool:
    """A literal (`true`, `none`, `null`) under any name, or a small number (`3`, `4096`)
    under a weak one: never a secret."""
    if weak and len(value) <= MAX_SMALL_NUMBER and value.isascii() and value.isdigit():
        return True
    lower = value.lower()  # `null`, `None`, `FALSE`; not `UnDeFiNeD`
    written = (lower, lower.title(), lower.upper())
    return len(value) <= MAX_LITERAL and lower in _LITERALS and value in written
