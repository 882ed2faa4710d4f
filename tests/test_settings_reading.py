"""How the offline matcher reads words, over inputs no table can list: any number up to ten
million written with digits, separators or words reads as its value; a word is corrected
only into a known word within the stated distance; and a sentence made of words that name
no setting never changes one, however they are arranged."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.settings import numbers
from laika_host.settings import vocabulary as v
from laika_host.settings.intent import Decline, ProviderFacts, match
from laika_host.settings.words import correct, osa_distance, split
from laika_host.stopwords import STOPWORDS

_SMALL = """zero one two three four five six seven eight nine ten eleven twelve thirteen
    fourteen fifteen sixteen seventeen eighteen nineteen"""
_UNITS = _SMALL.split()
_TENS_TEXT = "_ _ twenty thirty forty fifty sixty seventy eighty ninety"
_TENS = _TENS_TEXT.split()


def spelled(n: int, *, hyphen: bool = True, and_: bool = False) -> str:
    """English words for 0 <= n < 10**9, written here independently of the matcher."""
    if n < 20:
        return _UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _TENS[tens] + (("-" if hyphen else " ") + _UNITS[unit] if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        tail = (" and " if and_ else " ") + spelled(rest, hyphen=hyphen) if rest else ""
        return f"{_UNITS[hundreds]} hundred{tail}"
    for scale, word in ((10**6, "million"), (1000, "thousand")):
        if n >= scale:
            high, rest = divmod(n, scale)
            tail = " " + spelled(rest, hyphen=hyphen, and_=and_) if rest else ""
            return f"{spelled(high, hyphen=hyphen, and_=and_)} {word}{tail}"
    raise AssertionError(n)


def grouped(n: int, separator: str) -> str:
    return f"{n:,}".replace(",", separator)


def read_all(text: str) -> list[float]:
    words = split(numbers.group_digits(text), v.KNOWN).words
    return [number.value for number in numbers.read(words)]


WRITTEN = st.integers(0, 10_000_000).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.sampled_from(
            [
                str(n),
                grouped(n, ","),
                grouped(n, " "),
                grouped(n, "_"),
                grouped(n, "\u202f"),
                spelled(n),
                spelled(n, hyphen=False),
                spelled(n, and_=True),
            ]
            + ([f"{n // 1000}k", f"{n // 1000} thousand", f"{n // 1000}K"] if n % 1000 == 0 else [])
            + ([f"{n / 10**6:g} million", f"{n / 10**6:g}M"] if n % 100_000 == 0 and n else [])
        ),
    )
)


@settings(max_examples=600)
@given(
    WRITTEN,
    st.sampled_from(["set max chars to {} please", "{}", "keep {} characters", "limit: {}."]),
)
def test_any_number_reads_as_its_value(written: tuple[int, str], template: str) -> None:
    value, text = written
    assert read_all(template.format(text)) == [value], text


@given(st.integers(0, 999_999), st.integers(0, 999_999))
def test_two_numbers_apart_stay_two(first: int, second: int) -> None:
    assert read_all(f"from {first:,} to {spelled(second)}") == [first, second]


KNOWN = sorted(v.KNOWN)


@given(st.sampled_from(KNOWN), st.data())
def test_a_typo_is_corrected_only_within_its_distance(word: str, data: st.DataObject) -> None:
    if not word.isalpha() or len(word) < 4:
        return
    at = data.draw(st.integers(0, len(word) - 1))
    letter = data.draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
    typo = data.draw(
        st.sampled_from(
            [
                word[:at] + letter + word[at + 1 :],
                word[:at] + word[at + 1 :],
                word[:at] + letter + word[at:],
            ]
        )
    )
    fixed = correct(typo, v.KNOWN)
    if fixed != typo:
        assert fixed in v.KNOWN
        assert osa_distance(typo, fixed, 2) <= (1 if len(typo) < 9 else 2)
        assert fixed[0] == typo[0]


_EVERYDAY = """weather lovely sandwich kitchen garden music holiday coffee sister brother
    dinner breakfast lunch meeting tomorrow yesterday today morning evening quickly slowly
    happy sad book books movie movies weekend money price prices bank travel trip flight
    train station city country river mountain ocean beach summer winter spring autumn
    phone email photo photos picture pictures camera video videos game games team player
    score school teacher student homework office desk chair table window door house home
    car bus bike road street map walk run swim dance sing play cook bake clean wash read
    write draw paint buy sell pay order cancel book visit call text meet help find lose
    red green blue yellow purple orange pink brown grey friend friends family mother father
    dog cat bird fish tree flower grass sun moon star cloudy rain snow wind warm cold hot
    tired hungry thirsty busy ready late early big tiny huge quiet loud fast slow easy hard"""
EVERYDAY = _EVERYDAY.split()
POOL = sorted(
    word
    for word in {*STOPWORDS, *EVERYDAY}
    if word.isalpha()
    and word not in v.KNOWN
    and correct(word, v.KNOWN) not in v.KNOWN
    and word not in numbers.NUMBER_WORDS
)
PROVIDERS = [
    ProviderFacts("cloud-ai", "openai", False),
    ProviderFacts("llama-cpp", "openai_compatible", True),
]


@settings(max_examples=800)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(POOL),
            st.sampled_from(POOL).map(str.capitalize),
            st.integers(0, 10**7).map(str),
            st.sampled_from([",", ".", "?", "!", "'s", "n't", ":"]),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_words_that_name_no_setting_never_change_one(parts: list[str]) -> None:
    text = re.sub(r" ([,.?!:]|'s|n't)", r"\1", " ".join(parts))
    found = match(text, PROVIDERS, rule_ids=["weekly"], transform_types=["summary", "faq"])
    assert isinstance(found, Decline), (text, found)
    assert found.reason
    assert len(found.suggestions) == 3


def test_the_pool_is_large_and_names_no_setting() -> None:
    assert len(POOL) > 300
    assert not set(POOL) & v.KNOWN
