"""Which observed form fields the gate treats as credential, payment or identity fields:
the strongest signal wins (a password input, then the standard autocomplete tokens, then
whole words of the name or label), and any input is read in bounded time."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from laika_host.tools.fields import field_kind
from laika_host.tools.policy import GateContext, Proposal, decide

attributes = st.none() | st.text(max_size=60)
plain_words = st.lists(
    st.sampled_from(["email", "search", "query", "city", "comment", "spinner", "title", "q"]),
    min_size=1,
    max_size=4,
)
separators = st.sampled_from(["_", "-", " ", ".", ""])


@given(st.sampled_from(["password", "PASSWORD", " Password "]), attributes, attributes, attributes)
def test_a_password_input_is_a_credential_whatever_it_is_called(
    kind: str, autocomplete: str | None, name: str | None, label: str | None
) -> None:
    assert field_kind(type=kind, autocomplete=autocomplete, name=name, label=label) == "credential"


@given(
    st.sampled_from(["cc-number", "cc-csc", "cc-exp", "billing cc-name", "transaction-amount"]),
    attributes,
)
def test_payment_autocomplete_tokens_mark_payment_fields(
    autocomplete: str, name: str | None
) -> None:
    assert field_kind(type="text", autocomplete=autocomplete, name=name) == "payment"


@given(
    st.sampled_from(["password", "cardNumber", "cvv", "ssn", "passport", "dateOfBirth", "otp"]),
    plain_words,
    separators,
)
def test_a_sensitive_word_in_a_name_marks_the_field(
    word: str, others: list[str], separator: str
) -> None:
    expected = field_kind(name=word)
    assert expected != "other"
    last = word if separator else word[0].upper() + word[1:]  # run together: camelCase
    name = separator.join([*others, last])
    assert field_kind(name=name) == expected
    assert field_kind(label=name) == expected
    if separator:
        assert field_kind(label=name.upper()) == expected


@given(plain_words, separators)
def test_ordinary_fields_are_other(words: list[str], separator: str) -> None:
    name = separator.join(words)
    assert field_kind(type="text", autocomplete="email", name=name, label=name) == "other"


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        ({"autocomplete": "current-password", "name": "q"}, "credential"),
        ({"autocomplete": "one-time-code"}, "credential"),
        ({"name": "userPassword"}, "credential"),
        ({"name": "card_cvc"}, "payment"),
        ({"label": "IBAN"}, "payment"),
        ({"autocomplete": "bday"}, "identity"),
        ({"label": "Social Security number"}, "identity"),
        ({"name": "spinner"}, "other"),
        ({"name": "pinned"}, "other"),
    ],
)
def test_examples(attributes: dict[str, str], expected: str) -> None:
    assert field_kind(**attributes) == expected  # type: ignore[arg-type]


def test_the_gate_denies_typing_into_what_the_classifier_marks() -> None:
    kinds = {"h1": field_kind(type="password"), "h2": field_kind(name="search")}
    context = GateContext(origin="user", field_kinds=kinds)
    typed = [
        decide(Proposal(name="browser.type", arguments={"handleId": h, "text": "x"}), context)
        for h in ("h1", "h2")
    ]
    assert [d.decision for d in typed] == ["deny", "ask"]


def test_a_huge_attribute_is_read_in_bounded_time() -> None:
    huge = "aA_" * 1_000_000
    started = time.process_time()
    assert field_kind(type=huge, autocomplete=huge, name=huge, label=huge) == "other"
    assert time.process_time() - started < 1.0
