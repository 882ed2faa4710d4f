"""Titles a user gives (collections, notes): one line of text, compared without case.

A title is shown in menus, tables and terminals, where a control character hides text or
moves the cursor, and SQLite's NOCASE and lower() stop at a NUL and fold only ASCII (so
"a\\0b" and "a\\0c" were one title, "Straße" and "STRASSE" two). So control characters are
refused, runs of whitespace become one space, and whether two titles are the same is decided
here, in Python, on a key the store keeps beside the title.
"""

from __future__ import annotations

import re
import unicodedata

from .errors import InvalidInputError

MAX_TITLE = 200
# C0 controls but tab, line feed, vertical tab, form feed and carriage return (whitespace:
# folded into one space like any other run), DEL, C1 controls; and lone surrogates.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_title(title: str, *, what: str = "a collection") -> str:
    """The title as stored: whitespace runs as one space; refused if it holds a control
    character, is blank or is longer than `MAX_TITLE`."""
    control = _CONTROL.search(title)
    if control is not None:
        raise InvalidInputError(
            f"{what} title cannot contain a control character (found {_named(control)}): "
            "titles are shown in menus and terminals; remove it and retry"
        )
    surrogate = _SURROGATE.search(title)
    if surrogate is not None:
        raise InvalidInputError(
            f"{what} title cannot contain a lone surrogate (found {_named(surrogate)}): it is "
            "not text (an undecodable byte?); give the title as UTF-8"
        )
    cleaned = " ".join(title.split())
    if not cleaned:
        raise InvalidInputError(f"{what} needs a title (got an empty one)")
    if len(cleaned) > MAX_TITLE:
        raise InvalidInputError(f"{what} title is at most {MAX_TITLE} characters")
    return cleaned


def title_key(title: str) -> str:
    """The form two titles share exactly when they are the same title: Unicode's canonical
    caseless match (casefold between NFD), so case, ß/SS and composed or decomposed accents
    do not make another title. A change here needs a migration that recomputes the keys."""
    text = unicodedata.normalize("NFD", " ".join(title.split()))
    return unicodedata.normalize("NFD", text.casefold())


def _named(found: re.Match[str]) -> str:
    return f"U+{ord(found.group()):04X} at position {found.start() + 1}"
