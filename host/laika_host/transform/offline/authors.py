"""Who wrote a source, from its byline, in the form a reference style wants.

A byline as pages write it carries more than names: "View all posts by Daniel Lemire",
"By JAKE SHERMAN", "@NatGeoUK", "Ada Lovelace and Charles Babbage". `people` keeps the names
(a handle or a web address is no author), in capitals only where a name has them; `Author`
then writes each the way APA ("Lovelace, A."), MLA and Chicago ("Lovelace, Ada") want. A
byline that is not a list of personal names (an agency, a newsroom, "Staff") is kept as
written: inverting "The Associated Press" would misname it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LEADS = re.compile(
    r"(?:view all posts by|all posts by|posted by|written by|words by|story by|reported by|"
    r"by|von|par|por|di|door)\s+",
    re.IGNORECASE,
)
_JOINERS = re.compile(r",|;|&|\band\b|\bund\b", re.IGNORECASE)  # each part is stripped
_PARTICLES = frozenset("de da del della der den van von la le di du dos das".split())  # noqa: SIM905
_NOT_PEOPLE = frozenset(
    """the staff team editors editor editorial desk news press agency reporters magazine
    newsroom inc ltd llc gmbh university institute association foundation department
    office contributors correspondent""".split()  # noqa: SIM905
)
MAX_NAME_WORDS = 5


@dataclass(frozen=True)
class Author:
    """One personal name: its given names and its family name (particles included)."""

    given: tuple[str, ...]
    family: str

    def inverted(self) -> str:
        """MLA's and Chicago's first author: "Lovelace, Ada"."""
        return f"{self.family}, {' '.join(self.given)}" if self.given else self.family

    def natural(self) -> str:
        return " ".join([*self.given, self.family])

    def apa(self) -> str:
        """APA's "Lovelace, A. A." (initials of the given names)."""
        initials = " ".join(f"{name[0]}." for name in self.given if name[:1].isalpha())
        return f"{self.family}, {initials}" if initials else self.family


def people(byline: str | None) -> list[str]:
    """The byline's names as written, less its lead ("By", "View all posts by"), handles,
    web addresses and shouting capitals."""
    text = " ".join((byline or "").split()).strip(" .")
    text = _LEADS.sub("", text, count=1) if _LEADS.match(text) else text
    names = []
    for part in _JOINERS.split(text):
        name = part.strip(" .")
        if not name or name.startswith("@") or "://" in name or "www." in name.lower():
            continue
        names.append(name.title() if name.isupper() and len(name) > 3 else name)
    return names


def authors(byline: str | None) -> list[Author] | None:
    """The byline as personal names, or None when it is not one (kept as written then)."""
    found = []
    for name in people(byline):
        words = name.split()
        lowered = {word.lower().strip(".,") for word in words}
        if not 2 <= len(words) <= MAX_NAME_WORDS or lowered & _NOT_PEOPLE:
            return None
        if any(not word[:1].isupper() and word.lower() not in _PARTICLES for word in words):
            return None
        if any(char.isdigit() for char in name):
            return None
        family_at = len(words) - 1
        while family_at > 1 and words[family_at - 1].lower() in _PARTICLES:
            family_at -= 1
        found.append(Author(tuple(words[:family_at]), " ".join(words[family_at:])))
    return found or None
