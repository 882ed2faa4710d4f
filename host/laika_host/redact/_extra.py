"""The user's own secret names (`redaction.extra_secret_names` in the settings registry), on
top of the built-in rules: a value under one of them is always a secret.

Read where a name is judged, on every call: the registry loader caches the parsed file on
its (mtime, size, inode), so this costs one `stat`, and a change made by another process
(`laika settings "treat session_ref as a secret"`) applies at once. No registry yet, or one
that cannot be read, means no extra names: redaction never fails because of the settings
(the built-in rules still apply, and the registry's own error is reported where it is used).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

log = logging.getLogger("laika.redact")


@dataclass(frozen=True)
class ExtraNames:
    """The names as given, lowercased (for the cheap look at a text), and as their joined
    words (`session_ref`, `sessionRef` and `Session-Ref` are one name)."""

    lowered: frozenset[str] = frozenset()
    joined: frozenset[str] = frozenset()


NONE = ExtraNames()


def extra_names() -> ExtraNames:
    """The extra names of this process's data directory now."""
    from ..config.registry import peek

    try:
        registry = peek()
    except Exception as error:  # any unreadable registry: the built-in rules alone
        log.debug("extra secret names not read: %s", type(error).__name__)
        return NONE
    return NONE if registry is None else _names(tuple(registry.redaction.extra_secret_names))


def _names(names: tuple[str, ...]) -> ExtraNames:
    from ._names import name_words

    if not names:
        return NONE
    lowered = frozenset(name.lower() for name in names if name)
    joined = frozenset("".join(name_words(name)) for name in names if name_words(name))
    return ExtraNames(lowered | joined, joined)
