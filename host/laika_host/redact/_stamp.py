"""Which redaction a stored text has had: the rules' version and the user's extra names.

Rows are redacted as they are written (`store/redact.py`) and stamped with `stamp()`. Text
on its way to a model is redacted again only when its stamp is not the current one: a name
added since, rules that find more after an upgrade, or a row an older Laika wrote unstamped.
An ask over freshly stored sources redacts nothing twice.
"""

from __future__ import annotations

import functools
import hashlib

from ._extra import extra_names

RULES_VERSION = 1
"""Bump when the rules change: rows stamped before are redacted again on their way to a
model. `tests/test_redaction_stamp.py` fails when a rule file changes without a bump."""


def stamp() -> str:
    """The current redaction: `r<rules version>:<digest of the extra names>`."""
    return _stamp_of(extra_names().lowered)


@functools.lru_cache(maxsize=16)
def _stamp_of(names: frozenset[str]) -> str:
    digest = hashlib.sha256("\0".join(sorted(names)).encode("utf-8")).hexdigest()[:16]
    return f"r{RULES_VERSION}:{digest}"
