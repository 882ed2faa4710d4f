"""The extension refuses the same fields the host's gate refuses: its page-side classifier
(`extension/lib/browser_tools.js`, run under Node) and `tools/fields.field_kind` give the same
kind for random fields built from the host's own vocabulary, separators, case changes, odd
Unicode (whitespace Python and JavaScript disagree on, case mappings that change length,
astral characters at the 200 code point cut) and plain noise."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.tools import fields
from laika_host.tools.fields import field_kind

from support import REPO

SCRIPT = REPO / "tests" / "js" / "field_kinds.mjs"

_VOCABULARY = sorted(
    {word for words in fields._WORDS.values() for word in words}
    | {part for parts in fields._JOINED.values() for part in parts}
    | fields._CREDENTIAL_AUTOCOMPLETE
    | fields._IDENTITY_AUTOCOMPLETE
    | {"cc-number", "cc-csc", "transaction-amount", "section-x", "shipping", "email", "name"}
    | {"password", "spinner", "pinned", "cardigan", "user", "date of birth", "Date Of Birth"}
)
_ODD = ["İ", "K", "ß", "ΣΑΣ", "\x85", "\u2003", "\x1c", "\ufeff", "\u00a0", "😀", "\t", "\n"]
_SEPARATORS = ["", " ", "_", "-", ".", "  ", "\x1f", "\u3000"]

pieces = st.one_of(
    st.sampled_from(_VOCABULARY),
    st.sampled_from(_VOCABULARY).map(str.upper),
    st.sampled_from(_VOCABULARY).map(str.title),
    st.sampled_from(_ODD),
    st.text(max_size=6),
)
values = st.one_of(
    st.none(),
    st.lists(st.tuples(pieces, st.sampled_from(_SEPARATORS)), max_size=6).map(
        lambda parts: "".join(piece + sep for piece, sep in parts)
    ),
    # around the 200 code point cut: astral padding then a word that may or may not survive
    st.tuples(
        st.integers(150, 210), st.sampled_from(["😀", "a", " "]), st.sampled_from(_VOCABULARY)
    ).map(lambda t: t[1] * t[0] + t[2]),
)
field_strategy = st.fixed_dictionaries(
    {},
    optional={
        "type": st.one_of(
            values, st.sampled_from(["password", " Password\x85", "text", "passwordx"])
        ),
        "autocomplete": values,
        "name": values,
        "label": values,
    },
)


def _node_kinds(table: list[dict[str, Any]]) -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed here (CI installs it; apt-get install nodejs)")
    done = subprocess.run(
        [node, str(SCRIPT)],
        input=json.dumps(table),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=REPO,
    )
    kinds: list[str] = json.loads(done.stdout)
    return kinds


@settings(max_examples=15, deadline=None)
@given(st.lists(field_strategy, min_size=20, max_size=120))
def test_the_extension_classifies_every_field_as_the_host_does(table: list[dict[str, Any]]) -> None:
    expected = [field_kind(**field) for field in table]
    got = _node_kinds(table)
    mismatches = [
        (field, want, have)
        for field, want, have in zip(table, expected, got, strict=True)
        if want != have
    ]
    assert not mismatches, f"the extension and the host disagree: {mismatches[:5]}"


def test_the_shared_table_covers_every_kind() -> None:
    """The random fields above reach every kind, so agreement is not agreement on `other`."""
    table = [
        {"type": "password"},
        {"autocomplete": "cc-exp"},
        {"label": "Passport number"},
        {"name": "spinner"},
    ]
    assert [field_kind(**field) for field in table] == _node_kinds(table)
    assert _node_kinds(table) == ["credential", "payment", "identity", "other"]
