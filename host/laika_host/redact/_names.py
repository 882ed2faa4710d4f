"""Whether a name (a parameter, field, header, setting) holds a secret, and how surely.

A name is read by its head, its last word once camelCase, `_`, `-`, `.` and spaces are split:
`access_token`, `DB_PASS` and `X-Goog-Signature` end in a secret noun and hold secrets, while
`token_count`, `session_timeout` and `password_min_length` count, time or describe one and do
not. The head decides because that is how such names are built, in every language and config
format: the last word says what the value is.

A secret name is strong or weak. Strong names (`password`, `api key`, `client secret`,
`access_token`, any identifier of several words ending in a secret noun) are never ordinary
prose, so their value is a secret even after a colon. Weak names (`token`, `session`,
`secret`, `cookie`, `auth`, `signature` alone, or after a prose word) are also everyday
words ("Session: Fall2024 keynote"), so prose rules judge their values (`_values.py`).
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Sequence

from ._extra import NONE, ExtraNames, extra_names

MAX_NAME = 64


class Strength(enum.IntEnum):
    WEAK = 1
    STRONG = 2


# Nouns that make a name strong on their own.
STRONG_NOUNS = frozenset(
    {"password", "passwd", "pwd", "passphrase", "passcode", "credential", "credentials"}
    | {"creds", "apikey", "privatekey", "secretkey", "accesskey", "sessionid", "sessid"}
)
# Nouns that are also everyday words: weak alone, strong after a qualifier or in an identifier.
WEAK_NOUNS = frozenset(
    {"token", "secret", "secrets", "session", "sid", "cookie", "auth", "authorization"}
    | {"sig", "signature", "jwt", "bearer", "hmac", "otp", "totp", "csrf", "xsrf"}
)
# Heads that a qualifier word before them makes strong (`access token`, `api key`); `key`
# is a secret only with one (`Key: C#m` is music).
QUALIFIED_NOUNS = frozenset({"token", "secret", "key", "signature", "sig"})
QUALIFIERS = frozenset(
    {"api", "access", "secret", "private", "client", "refresh", "auth", "id", "bearer"}
    | {"session", "signing", "master", "encryption", "app", "consumer", "personal", "oauth"}
    | {"webhook", "deploy", "bot", "service", "account", "admin", "license", "subscription"}
    | {"shared", "root", "ssh", "gpg", "pgp", "server", "functions", "security", "x"}
)
# A single word ending in one of these, with a prefix, is a glued identifier (`accesstoken`,
# `PGPASSWORD`, `phpsessid`): strong.
ENDINGS = ("token", "secret", "password", "passwd", "pwd", "passphrase", "sessionid", "sessid")
# Words after the head that do not change what the value is (`passwordValue`, `api_key_v2`).
TRANSPARENT = frozenset(
    {"value", "val", "v", "str", "string", "hex", "b64", "base64", "raw", "enc", "encoded"}
    | {"plain", "plaintext", "new", "old", "current", "confirm", "confirmation", "again"}
)
# A first word that makes the name a count of secrets (`max_tokens`, `num_sessions`).
COUNTERS = frozenset({"max", "min", "num", "count", "total"})
# Names that are secrets in a query string (`?key=`, `?code=`) but ordinary words elsewhere.
URL_ONLY = frozenset({"key", "code", "pass", "ticket"})
SESSION_ID = frozenset({"session", "sess"})

# Every secret head above contains one of these (lowercase): text without any of them names
# no secret, so the setting rules need not read it (most log lines, most short fields).
NAME_HINTS = (
    "pass", "pwd", "cred", "key", "token", "secret", "sess", "sid", "cookie", "auth", "sig",
    "jwt", "bearer", "hmac", "otp", "csrf", "xsrf", "code", "ticket",
)  # fmt: skip


def could_name_a_secret(low: str, extra: ExtraNames = NONE) -> bool:
    """Whether lowercase `low` holds any word a secret name could be built on, or one of
    the user's own secret names (`extra`)."""
    return any(hint in low for hint in NAME_HINTS) or any(name in low for name in extra.lowered)


_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def name_words(name: str) -> list[str]:
    """`accessToken`, `X-Goog-Signature`, `api\\_key` -> their lowercase words."""
    return [part.lower() for part in _NAME_PART.findall(name[:MAX_NAME])]


def name_strength(name: str, *, in_url: bool = False) -> Strength | None:
    """How surely a value called `name` is a secret; None when it is not one.

    Words before the last space (`Your API key`) are prose: they can qualify the head but
    do not make an identifier. `in_url` adds names that are secrets only in a query string.
    A name the user listed (`redaction.extra_secret_names`) is always a strong one.
    """
    return _strength(name, in_url, extra_names().joined)


@functools.lru_cache(maxsize=4096)
def _strength(name: str, in_url: bool, extra: frozenset[str]) -> Strength | None:
    prose, _, identifier = name.strip().rpartition(" ")
    before = [word for chunk in prose.split()[-2:] for word in name_words(chunk)]
    words = name_words(identifier)
    if in_url and not before and "".join(words) in URL_ONLY:
        return Strength.WEAK
    return strength_of([*before, *words], spaced=len(before), extra=extra)


def strength_of(
    words: Sequence[str], spaced: int = 0, extra: frozenset[str] = frozenset()
) -> Strength | None:
    """The strength of a name split into `words`, of which the first `spaced` were prose
    words before the identifier; strong when the identifier is one of the user's names
    (`extra`, as joined words)."""
    if extra and "".join(words[spaced:]) in extra:
        return Strength.STRONG
    words = list(words)
    if len(words) > spaced + 1 and words[spaced] in COUNTERS:
        return None
    while len(words) > spaced + 1 and (words[-1] in TRANSPARENT or words[-1].isdigit()):
        words.pop()
    if len(words) > 1 and words[-1] == "id" and _noun(words[-2]):
        words.pop()  # `session id`, `accessTokenId`
        if words[-1] in SESSION_ID:
            return Strength.STRONG
    if not words:
        return None
    qualifier = words[-2] if len(words) > 1 else ""
    return _head_strength(words[-1], qualifier, glued=len(words) - 1 > spaced)


def _noun(word: str) -> bool:
    return word in STRONG_NOUNS or word in WEAK_NOUNS or word in SESSION_ID or word == "key"


def _head_strength(head: str, qualifier: str, *, glued: bool) -> Strength | None:
    """`glued`: the qualifier is part of the same identifier (`SLACK_BOT_TOKEN`), not a
    word of prose before it."""
    if head in STRONG_NOUNS or (head == "pass" and glued):
        return Strength.STRONG
    if head == "pass" and not qualifier:
        return Strength.WEAK  # `PASS=x`; "Pass: 3 attempts" is prose
    if head in QUALIFIED_NOUNS and qualifier in QUALIFIERS:
        return Strength.STRONG
    if head.endswith(ENDINGS) and head not in WEAK_NOUNS:
        return Strength.STRONG  # `accesstoken`, `pgpassword`, `phpsessid`
    if head.endswith("key") and head[:-3] in QUALIFIERS:
        return Strength.STRONG  # `apikey`, `sshkey`
    if head in WEAK_NOUNS:
        return Strength.STRONG if glued and len(qualifier) > 1 else Strength.WEAK
    return None


def is_secret_name(name: str, *, in_url: bool = False) -> bool:
    """Whether a parameter, field or header called `name` holds a secret (`accessToken`,
    `X-Amz-Signature`, `DB_PASS`, `api key`; not `keyboard`, `tokens`, `token_count`)."""
    return name_strength(name, in_url=in_url) is not None


def listed_words() -> frozenset[str]:
    """Every word the rules above name (docs/REDACTION.md lists each)."""
    return (
        STRONG_NOUNS
        | WEAK_NOUNS
        | QUALIFIED_NOUNS
        | QUALIFIERS
        | frozenset(ENDINGS)
        | TRANSPARENT
        | COUNTERS
        | URL_ONLY
        | SESSION_ID
    )
