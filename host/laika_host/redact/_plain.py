"""Secrets said in words: "my wifi passphrase is hunter2hunter2", "set my bank pin to 4821",
"hunter2hunter2 is my password".

For what Laika would keep as a setting (a preference, an event rule's text, a sentence asking
to change settings), which is refused, not rewritten: so a sentence that says it holds a
secret is enough, where the text rules (`_settings`) must leave a page's prose readable and
need a name and an operator. A secret's name is judged as everywhere (`_names`: its head
word, a qualifier before it, the user's own names), plus what people call secrets they keep
in their head: `pin`, and `code` after `recovery`, `backup`, `security`, ...

After a name that is the head of its phrase (not `password manager`):

- a link (`is`, `are`, `was`, `=`, `:`, `equals`), then a value: under a strong name any word
  but a few that describe ("is required", "is in my password manager"), under a weak one
  (`token`, `secret`, `session`) only a generated-looking value;
- `to` or `as` (`set my pin to 4821`), or nothing (`password hunter2Xq!`), then a value that
  looks like one (digits, or two of lower case, upper case and digits);
- a phrase first (`password for the bank is x`): its link, within a few words.

And before a name: `x is my password` (a value that looks like one, or any word under a
strong name). Linear: one pass over the words, each looked at a bounded number of times.
"""

from __future__ import annotations

import re

from ._extra import ExtraNames, extra_names
from ._names import Strength, could_name_a_secret, name_strength, name_words
from ._values import generated, two_classes

_TOKEN = re.compile(r"[:=\uff1a\uff1d]+|[^\s:=\uff1a\uff1d]+")
_EDGES = "\"'`()[]{}<>,;.!?*~\u201c\u201d\u2018\u2019"
_CLAUSE_END = (".", ";", "?", "!")
LINKS = frozenset({"is", "are", "was", "were", "equals", "reads", "becomes", "'s"})
_OPERATOR_CHARS = frozenset(":=\uff1a\uff1d")
SOFT_LINKS = frozenset({"to", "as"})
PHRASE_STARTS = frozenset({"for", "of", "on", "at", "with", "from", "in", "to"})
FILLERS = frozenset({"still", "now", "actually", "just", "also", "always", "then", "set"})
POSSESSIVES = frozenset({"my", "our", "your", "his", "her", "their", "the", "its"})
NON_VALUES = frozenset(
    {"a", "an", "the", "my", "your", "our", "his", "her", "their", "its", "this", "that"}
    | {"these", "those", "it", "not", "no", "never", "too", "very", "so", "in", "on", "at"}
    | {"of", "for", "to", "from", "with", "by", "as", "and", "or", "but", "if", "be", "been"}
    | {"being", "required", "optional", "needed", "necessary", "mandatory", "wrong"}
    | {"incorrect", "invalid", "expired", "correct", "valid", "empty", "blank", "missing"}
    | {"hidden", "secret", "private", "safe", "secure", "strong", "weak", "long", "short"}
    | {"same", "different", "changed", "reset", "stored", "saved", "kept", "managed", "set"}
    | {"unknown", "forgotten", "lost", "here", "there", "below", "above", "redacted", "what"}
    | {"where", "which", "how", "why", "who", "when", "something", "nothing", "case"}
)
"""Words after `is` that say what a secret is like, not what it is."""
SET_VERBS = frozenset(
    {"set", "change", "update", "make", "reset", "save", "store", "remember", "keep", "record"}
)
"""Before a name, they make `to`/`as` a link: `set my password to swordfish`."""
ENDS_A_NAME = frozenset({"and", "but", "so", "then", "too", "please", "remember", "ok"}) | LINKS
COMPOUND_NOUNS = frozenset({"token", "secret"})
"""Weak alone, strong after a word naming what they open (`github token`, `wifi secret`)."""
PIN_NOUNS = frozenset({"pin", "pincode"})
CODE_QUALIFIERS = frozenset(
    {"recovery", "backup", "security", "verification", "unlock", "2fa", "mfa", "otp", "door"}
    | {"alarm", "safe", "access", "pin", "one-time", "login", "sign-in", "authenticator"}
)
WINDOW = 6
"""Words a phrase after a name may take before its link (`password for the bank is`)."""


def says_secret(text: str) -> bool:
    """Whether `text` says, in words or in a setting's syntax, that it holds a secret."""
    raw = [match.group() for match in _TOKEN.finditer(text)]
    words = [_word(token) for token in raw]
    extra = extra_names()
    for index, word in enumerate(words):
        if not word or not _could_name(word, extra):
            continue
        strength = _strength(words, index)
        if strength is None:
            continue
        if _value_after(raw, words, index, strength) or _value_before(raw, words, index, strength):
            return True
    return False


def _word(token: str) -> str:
    return token.strip(_EDGES).lower()


def _could_name(word: str, extra: ExtraNames) -> bool:
    return "pin" in word or could_name_a_secret(word, extra)


def _strength(words: list[str], index: int) -> Strength | None:
    word = words[index]
    before = [w for w in words[max(0, index - 2) : index] if w and not _is_link(w)]
    parts = [*before, *name_words(word)]  # `bank pin`, `recovery_code`
    if parts and parts[-1] in PIN_NOUNS:
        return Strength.STRONG
    if len(parts) > 1 and parts[-1] == "code" and parts[-2] in CODE_QUALIFIERS:
        return Strength.STRONG
    strength = name_strength(" ".join([*before, word]))
    compound = bool(before) and before[-1] not in POSSESSIVES and before[-1] not in NON_VALUES
    if strength is Strength.WEAK and word in COMPOUND_NOUNS and compound:
        return Strength.STRONG  # `github token`, `family secret`; not `the secret`
    return strength


def _is_link(word: str) -> bool:
    return word in LINKS or (bool(word) and set(word) <= _OPERATOR_CHARS)


def _value_after(raw: list[str], words: list[str], index: int, strength: Strength) -> bool:
    following = index + 1
    if following >= len(words) or _ends_clause(raw[index]):
        return False
    word = words[following]
    if _is_link(word):
        return _linked_value(raw, words, following + 1, strength)
    if word in SOFT_LINKS:
        found = _next_value(raw, words, following + 1)
        if found is not None and _a_value(raw, words, found, strength):
            return True
        setting = bool(SET_VERBS.intersection(words[max(0, index - 3) : index]))
        if found is not None and setting and strength is Strength.STRONG:
            return _any_value(found[1])  # `set my password to swordfish`
    if word in PHRASE_STARTS:
        for at in range(following + 1, min(len(words), following + 1 + WINDOW)):
            if _ends_clause(raw[at - 1]):
                return False
            if _is_link(words[at]):
                return _linked_value(raw, words, at + 1, strength)
        return False
    return _a_value(raw, words, (following, raw[following].strip(_EDGES)), strength)


def _linked_value(raw: list[str], words: list[str], at: int, strength: Strength) -> bool:
    """The value after `is`, `=` or `:`: under a strong name any but a describing word,
    under a weak one a value as `_a_value` reads it."""
    found = _next_value(raw, words, at)
    if found is None:
        return False
    if strength is Strength.STRONG:
        return _any_value(found[1])
    return _a_value(raw, words, found, strength)


def _any_value(value: str) -> bool:
    """A word that may be a password (`swordfish`): not one that describes one ("is
    required", "8+ characters"), and at least four characters."""
    return len(value) >= 4 and value.lower() not in NON_VALUES


def _a_value(raw: list[str], words: list[str], found: tuple[int, str], strength: Strength) -> bool:
    """A value that looks like one: under a strong name `_looks_like_a_value`; under a weak
    one generated-looking and ending its phrase ("Token: Hk8fQ2mZ7rT4"; not "Signature:
    SHA256withRSA algorithm", "Session: Fall2024 keynote"), as the text rules judge it."""
    position, value = found
    if strength is Strength.STRONG:
        return _looks_like_a_value(value)
    following = words[position + 1] if position + 1 < len(words) else ""
    ends = not following or _ends_clause(raw[position]) or following in ENDS_A_NAME
    return ends and generated(value)


def _next_value(raw: list[str], words: list[str], at: int) -> tuple[int, str] | None:
    """The value after a link: past a few filler words, the next token (its edges cut),
    with its position."""
    for position in range(at, min(len(words), at + 3)):
        if words[position] in FILLERS or words[position] in SOFT_LINKS:
            continue
        value = raw[position].strip(_EDGES)
        return (position, value) if value else None
    return None


def _looks_like_a_value(value: str) -> bool:
    """Digits, or two of lower case, upper case and digits, or symbols among them: what a
    PIN, a password or a key looks like, not a word."""
    if len(value) < 4:
        return False
    if value.isdigit() or two_classes(value) or generated(value):
        return True
    letters = sum(c.isalnum() for c in value)
    return 0 < letters < len(value) and any(c.isdigit() for c in value)


def _value_before(raw: list[str], words: list[str], index: int, strength: Strength) -> bool:
    """`x is my (wifi) password`: a link and a possessive before the name (the head of its
    phrase: not `x is my password manager`), a value before them."""
    following = words[index + 1] if index + 1 < len(words) else ""
    if following and not _ends_clause(raw[index]) and following not in ENDS_A_NAME:
        return False
    for owner in range(index - 1, max(1, index - 3), -1):  # `my`, `my wifi`, `my home wifi`
        if words[owner] in POSSESSIVES:
            break
    else:
        return False
    if owner < 2 or not _is_link(words[owner - 1]):
        return False
    value = raw[owner - 2].strip(_EDGES)
    if not value or value.lower() in NON_VALUES:
        return False
    return strength is Strength.STRONG or _looks_like_a_value(value)


def _ends_clause(token: str) -> bool:
    return token.rstrip("\"')]}\u201d\u2019").endswith(_CLAUSE_END)
