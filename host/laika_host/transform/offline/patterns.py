"""What the offline runners look for in a sentence: dates and time phrases, quantities,
definitions and key terms.

English-first word lists (plus the month names `llm/evidence.py` knows). Every function is one
pass over a sentence's words (sentences are at most 800 characters), with regexes that are
anchored or simple character classes, so no input makes them slow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...llm.evidence import MONTHS
from ...stopwords import STOPWORDS
from ..corpus import DETERMINERS

_TOKEN = re.compile(r"\S+")
_EDGE = "\"'\u201c\u201d\u2018\u2019«»()[]{}.,;:!?…"
_YEAR = re.compile(r"(?:1[0-9]|20|21)[0-9]{2}")
_ISO_DATE = re.compile(r"((?:1[0-9]|20|21)[0-9]{2})-([01][0-9])-([0-3][0-9])")
_NUMBER = re.compile(r"[+-]?[0-9][0-9,.]*%?")
_MONTH_NUMBER = {
    name: number
    for number, names in enumerate(
        (
            "january januar jänner janvier enero",
            "february februar février febrero",
            "march märz mars marzo",
            "april avril abril",
            "may mai mayo",
            "june juni juin junio",
            "july juli juillet julio",
            "august août agosto",
            "september septembre septiembre",
            "october oktober octobre octubre",
            "november novembre noviembre",
            "december dezember décembre diciembre",
        ),
        start=1,
    )
    for name in names.split()
}
TIME_WORDS = frozenset(
    """seconds minute minutes hour hours day days daily week weeks weekly month months
    monthly year years yearly annual annually decade decades century centuries night nights
    morning mornings evening evenings dawn dusk overnight today yesterday tomorrow spring summer
    autumn fall winter season seasons monday tuesday wednesday thursday friday saturday sunday
    weekend weekends""".split()  # noqa: SIM905
)
NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    forty fifty sixty hundred thousand million billion half dozen once twice thrice double
    triple""".split()  # noqa: SIM905
)
_TIME_LEADS = frozenset(
    """a an per every each in during on at by within for after before since until last next
    this the all""".split()  # noqa: SIM905
)
_ARTICLES = frozenset({"a", "an", "the", "one", "any"})
_YEAR_LEADS = frozenset(
    "in since by from until till during around circa before after early late mid".split()  # noqa: SIM905
)
_DETERMINERS = DETERMINERS | {"this", "that"}  # "the 2019 report", "that 1990 law"
_NOT_TERMS = frozenset(
    """it this that there they he she we i you these those what which who here such each
    every some many most all both its his her their our your one""".split()  # noqa: SIM905
)
_DEFINING = (" is ", " are ", " means ", " refers to ", " is called ", " are called ")


def words(text: str) -> list[str]:
    """The sentence's words with surrounding punctuation removed (empty ones dropped)."""
    stripped = (token.strip(_EDGE) for token in _TOKEN.findall(text))
    return [word for word in stripped if word]


@dataclass(frozen=True)
class When:
    label: str
    key: tuple[int, ...]  # (0, year, month, day) for a date; (1,) for a time phrase


def when(sentence: str) -> When | None:
    """The first calendar date (a year, an ISO date, a month with a year) in the sentence,
    else its first time phrase ("twice a day", "every Monday"), else None."""
    found = words(sentence)
    return _calendar(found) or _time_phrase(found)


def _calendar(found: list[str]) -> When | None:
    """A full date first; else a year an event is placed at ("in 2012", "since 1998"); else
    any year that does not describe a thing ("Caillebotte's 1877 painting", "the 2019
    report", "1500 metres")."""
    loose: When | None = None
    for index, word in enumerate(found):
        iso = _ISO_DATE.fullmatch(word)
        if iso:
            return When(word, (0, int(iso[1]), int(iso[2]), int(iso[3])))
        month = _MONTH_NUMBER.get(word.lower())
        if month and index + 1 < len(found) and _YEAR.fullmatch(found[index + 1]):
            day = found[index - 1] if index and found[index - 1].isdigit() else ""
            label = " ".join(filter(None, [day, word, found[index + 1]]))
            return When(label, (0, int(found[index + 1]), month, int(day or 0)))
        if not _YEAR.fullmatch(word):
            continue
        before = found[index - 1].lower() if index else ""
        if before in _YEAR_LEADS:  # "in 2021 prices rose": the lead makes it a year
            return When(word, (0, int(word), 0, 0))
        if loose is None and not _unit_follows(found, index) and not _describes(found, index):
            loose = When(word, (0, int(word), 0, 0))
    return loose


def _describes(found: list[str], index: int) -> bool:
    """The year at `index` qualifies a noun: after a possessive or a determiner, or before
    a name ("1877 A Boating Party")."""
    before = found[index - 1] if index else ""
    after = found[index + 1] if index + 1 < len(found) else ""
    possessive = before.endswith(("'s", "\u2019s"))
    named = after[:1].isupper() and after.lower() not in _MONTH_NUMBER
    return possessive or before.lower() in _DETERMINERS or named


def _unit_follows(found: list[str], index: int) -> bool:
    """`1500 metres` is a quantity, not a year."""
    following = found[index + 1] if index + 1 < len(found) else ""
    lowered = following.lower()
    unit = following.isalpha() and following[0].islower()  # "In 2019 Apple ..." names no unit
    return unit and lowered not in STOPWORDS and lowered not in TIME_WORDS


def _time_phrase(found: list[str]) -> When | None:
    """A time word led by a preposition, quantifier or determiner within two words ("twice a
    day", "during the summer", "within six hours"); "Spring tides" leads with none."""
    for index, word in enumerate(found):
        month = word[0].isupper() and word.lower() in MONTHS  # "may" the verb is no month
        if word.lower() not in TIME_WORDS and not month:
            continue
        for start in range(max(0, index - 2), index):
            lead = found[start].lower()
            if lead in _TIME_LEADS or lead in NUMBER_WORDS or lead.isdigit():
                label = word if month else " ".join(found[start : index + 1])
                return When(label, (1,))  # a month alone: "September", not "on September"
    return None


def quantity(sentence: str) -> str | None:
    """The first number in the sentence with the word after it ("six hours", "90 MB",
    "twice a day" -> "twice"), or None."""
    found = words(sentence)
    for index, word in enumerate(found):
        if _NUMBER.fullmatch(word) or word.lower() in NUMBER_WORDS:
            if word.lower() == "one" and index + 1 < len(found) and found[index + 1] == "of":
                continue  # "one of the ..." counts nothing
            unit = found[index + 1] if index + 1 < len(found) else ""
            if unit.isalpha() and unit.lower() not in STOPWORDS:
                return f"{word} {unit}"
            if any(ch.isdigit() for ch in word):
                return word
    return None


@dataclass(frozen=True)
class Definition:
    term: str
    definition: str


def definition(sentence: str) -> Definition | None:
    """`X is a ...`, `X are the ...`, `X means ...`: X (one to five words, no pronoun) and
    what it is; None for other sentences."""
    lowered = sentence.lower()
    for verb in _DEFINING:
        at = lowered.find(verb)
        if at <= 0:
            continue
        subject = words(sentence[:at])
        rest = sentence[at + len(verb) :].strip()
        rest_words = words(rest)
        if not 1 <= len(subject) <= 6 or not rest_words:
            return None
        if subject[0].lower() in _ARTICLES:
            subject = subject[1:]
        plain = verb.strip() in ("is", "are")
        if not subject or len(subject) > 5 or subject[0].lower() in _NOT_TERMS:
            return None
        if plain and rest_words[0].lower() not in _ARTICLES:
            return None
        if any(ch.isdigit() for word in subject for ch in word):
            return None
        return Definition(" ".join(subject), rest.rstrip(" ."))
    return None


def candidate_terms(sentence: str) -> list[str]:
    """Words that could be a sentence's key term: content words of four or more letters,
    and numbers (the first word only when it is a name-like capitalized one in mid-text)."""
    found = words(sentence)
    picked = []
    for index, word in enumerate(found):
        lowered = word.lower()
        if lowered in STOPWORDS or lowered in _NOT_TERMS:
            continue
        if (any(ch.isdigit() for ch in word) and _NUMBER.fullmatch(word)) or (
            word.isalpha() and len(word) >= 4 and (index or not word[0].isupper())
        ):
            picked.append(word)
    return picked
