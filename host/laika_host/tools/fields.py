"""What an observed form field holds, from what the extension's observation reports of it
(`type`, `autocomplete`, `name`/`id`, `role`, its label): a credential, payment or identity
field, or another. The gate denies click/type/select on the first three (`policy_rules`);
the native layer fills `GateContext.field_kinds` with this for each handle of the latest
observation.

Page text is hostile and a field can lie about its name, so the strongest signals win: an
`<input type=password>` is a credential whatever it is called, an `autocomplete` token from
the HTML standard's credential, payment and identity lists decides next, then words of the
name or label. Every input is cut to `MAX_ATTRIBUTE` characters first, and matching is a
split and set lookups: linear, whatever the page sends.
"""

from __future__ import annotations

import re
from typing import Final

from .policy import FieldKind

MAX_ATTRIBUTE: Final = 200

_CREDENTIAL_AUTOCOMPLETE = frozenset({"current-password", "new-password", "one-time-code"})
_PAYMENT_AUTOCOMPLETE_PREFIXES = ("cc-", "transaction-")
_IDENTITY_AUTOCOMPLETE = frozenset(
    {"bday", "bday-day", "bday-month", "bday-year", "sex", "honorific-prefix"}
)

_WORDS: Final[dict[FieldKind, frozenset[str]]] = {
    "credential": frozenset(
        {"password", "passwd", "pwd", "passcode", "pin", "otp", "totp", "2fa", "mfa", "secret"}
    ),
    "payment": frozenset(
        {"card", "cardnumber", "ccnumber", "ccnum", "cvv", "cvc", "csc", "cvv2", "iban", "bic"}
        | {"swift", "routing", "expiry", "expiration", "creditcard", "debitcard", "billing"}
    ),
    "identity": frozenset(
        {"ssn", "sin", "passport", "nationalid", "taxid", "tin", "dob", "birthdate"}
        | {"birthday", "license", "licence", "driverslicense", "socialsecurity", "nin"}
    ),
}
"""Words of a field's name or label, compared whole (so `spinner` is not a `pin`)."""
_JOINED: Final[dict[FieldKind, tuple[str, ...]]] = {
    "credential": ("password", "passcode"),
    "payment": ("cardnumber", "creditcard", "securitycode", "cardholder"),
    "identity": ("socialsecurity", "nationalid", "passport", "dateofbirth", "birthdate"),
}
"""Long words found inside a run-together name (`userPassword`, `cc_cardNumber_1`)."""
_SPLIT = re.compile(r"[^0-9A-Za-z]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_ORDER: Final[tuple[FieldKind, ...]] = ("credential", "payment", "identity")


def field_kind(
    *,
    type: str | None = None,
    autocomplete: str | None = None,
    name: str | None = None,
    label: str | None = None,
) -> FieldKind:
    """The field's kind; `other` when nothing marks it as sensitive."""
    if (type or "")[:MAX_ATTRIBUTE].strip().lower() == "password":
        return "credential"
    by_token = _by_autocomplete(autocomplete or "")
    if by_token is not None:
        return by_token
    for text in (name, label):
        by_words = _by_words(text or "")
        if by_words is not None:
            return by_words
    return "other"


def _by_autocomplete(value: str) -> FieldKind | None:
    tokens = value[:MAX_ATTRIBUTE].lower().split()
    for token in tokens:
        if token in _CREDENTIAL_AUTOCOMPLETE:
            return "credential"
        if token.startswith(_PAYMENT_AUTOCOMPLETE_PREFIXES):
            return "payment"
        if token in _IDENTITY_AUTOCOMPLETE:
            return "identity"
    return None


def _by_words(text: str) -> FieldKind | None:
    cut = text[:MAX_ATTRIBUTE]
    words = {word.lower() for word in _SPLIT.split(_CAMEL.sub(" ", cut)) if word}
    joined = "".join(_SPLIT.split(cut)).lower()
    for kind in _ORDER:
        if words & _WORDS[kind] or any(part in joined for part in _JOINED[kind]):
            return kind
    return None
