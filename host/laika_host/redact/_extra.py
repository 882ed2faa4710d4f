"""The user's own secret names (`redaction.extra_secret_names` in the settings registry), on
top of the built-in rules: a value under one of them is always a secret.

Read once per public redaction call (`pinned`), not once per name judged: the registry
loader caches the parsed file on its (mtime, size, inode), so a read costs a `stat`, and a
change made by another process (`laika settings "treat session_ref as a secret"`) applies
to the next call. Reading per name cost 90% of `redact_value` on a 50-key object. No
registry yet, or one that cannot be read, means no extra names: redaction never fails
because of the settings (the built-in rules still apply, and the registry's own error is
reported where it is used).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

log = logging.getLogger("laika.redact")


@dataclass(frozen=True)
class ExtraNames:
    """The names as given, lowercased (for the cheap look at a text), and as their joined
    words (`session_ref`, `sessionRef` and `Session-Ref` are one name)."""

    lowered: frozenset[str] = frozenset()
    joined: frozenset[str] = frozenset()


NONE = ExtraNames()
_PINNED: ContextVar[ExtraNames | None] = ContextVar("laika_extra_secret_names", default=None)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def extra_names() -> ExtraNames:
    """The extra names for the redaction call under way (read now when there is none)."""
    return _PINNED.get() or _read()


def pinned(redact: Callable[_P, _R]) -> Callable[_P, _R]:
    """`redact` reads the extra names once, and every rule it runs sees those same names."""

    @functools.wraps(redact)
    def with_names(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if _PINNED.get() is not None:
            return redact(*args, **kwargs)
        token = _PINNED.set(_read())
        try:
            return redact(*args, **kwargs)
        finally:
            _PINNED.reset(token)

    return with_names


def _read() -> ExtraNames:
    from ..config.registry import peek

    try:
        registry = peek()
    except Exception as error:  # any unreadable registry: the built-in rules alone
        log.debug("extra secret names not read: %s", type(error).__name__)
        return NONE
    return NONE if registry is None else _names(tuple(registry.redaction.extra_secret_names))


@functools.lru_cache(maxsize=16)
def _names(names: tuple[str, ...]) -> ExtraNames:
    from ._names import name_words

    if not names:
        return NONE
    lowered = frozenset(name.lower() for name in names if name)
    joined = frozenset("".join(name_words(name)) for name in names if name_words(name))
    return ExtraNames(lowered | joined, joined)
