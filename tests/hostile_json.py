"""Hypothesis strategies for hostile input: JSON-like values a reply may carry, and JSON text
(or bytes) a hostile client may send, with the shapes that once ended the host.

Shared by the decoder/encoder property tests and the end-to-end host test, so both explore the
same input space: huge integers (past Python's 4,300-digit limit), numbers past a float's range
(`1e400`), lone surrogates in strings and keys, deep nesting, repeated keys, and random bytes
spliced into otherwise valid text.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

ANY_CHARACTER = st.characters(exclude_categories=())  # surrogates included (Cs)
DEEP = 3000  # past the interpreter's default recursion limit of 1,000

hostile_strings = st.text(ANY_CHARACTER, max_size=12)
huge_integers = st.integers(4200, 6000).map(lambda digits: 7 * 10**digits)
any_floats = st.floats()  # NaN and both infinities included

json_like_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), huge_integers, any_floats, hostile_strings
)
json_like_values = st.recursive(
    json_like_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(hostile_strings, children, max_size=4)
    ),
    max_leaves=16,
)


def nest(value: Any, depth: int, as_object: bool) -> Any:
    """`value` wrapped in `depth` arrays (or single-key objects), built without recursion."""
    for _ in range(depth):
        value = {"k": value} if as_object else [value]
    return value


deeply_nested_values = st.builds(nest, json_like_values, st.integers(0, DEEP), st.booleans())
reply_values = st.one_of(json_like_values, deeply_nested_values)


def _quote(text: str, ascii_only: bool) -> str:
    return json.dumps(text, ensure_ascii=ascii_only)


string_tokens = st.builds(_quote, hostile_strings, st.booleans())
number_tokens = st.one_of(
    st.integers().map(str),
    st.integers(4290, 9000).map(lambda digits: "-" * (digits % 2) + "9" * digits),
    st.sampled_from(
        ["1e400", "-1e400", "1e309", "1E+999", "123456789e300", "1e-400", "-0", "0.5", "NaN"]
    ),
    st.sampled_from(["Infinity", "-Infinity", str(2**63), str(-(2**63) - 1), str(2**64)]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
scalar_tokens = st.one_of(st.sampled_from(["null", "true", "false"]), number_tokens, string_tokens)


def _array(items: list[str]) -> str:
    return "[" + ",".join(items) + "]"


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{key}:{value}" for key, value in pairs) + "}"


def _deep(inner: str, depth: int, as_object: bool) -> str:
    if as_object:
        return '{"k":' * depth + inner + "}" * depth
    return "[" * depth + inner + "]" * depth


json_texts = st.recursive(
    scalar_tokens,
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(_array),
        st.lists(st.tuples(string_tokens, children), max_size=4).map(_object),
        st.builds(_deep, children, st.integers(1, DEEP), st.booleans()),
    ),
    max_leaves=12,
)


def to_bytes(text: str) -> bytes:
    """UTF-8, except that a raw lone surrogate is encoded as is (which is not valid UTF-8)."""
    return text.encode("utf-8", "surrogatepass")


@st.composite
def spliced(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> bytes:
    """Valid-looking text with random bytes inserted and a slice removed somewhere."""
    body = to_bytes(draw(texts))
    at = draw(st.integers(0, len(body)))
    cut = draw(st.integers(0, min(8, len(body) - at)))
    return body[:at] + draw(st.binary(max_size=8)) + body[at + cut :]


hostile_bodies = st.one_of(st.binary(max_size=64), json_texts.map(to_bytes), spliced(json_texts))
