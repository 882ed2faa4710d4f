"""Hypothesis strategies that build valid LLMX messages (spec 002) block by block."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from laika_host.llmx import Block, Message, expand_target

words = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True).filter(
    lambda word: word not in ("true", "false", "null")
)
keys = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda key: not key.startswith("x_")
)
texts = st.text(max_size=30)
strings = st.one_of(texts, words)
floats = st.floats(min_value=-1e40, max_value=1e40, allow_nan=False).filter(
    lambda value: value == 0 or abs(value) > 1e-40
)
numbers = st.one_of(st.integers(-(10**40), 10**40), floats)
scalars = st.one_of(strings, numbers, st.booleans())
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(keys, children, max_size=3)
    ),
    max_leaves=10,
)
objects = st.dictionaries(keys, values, max_size=4)
string_lists = st.lists(strings, max_size=3)
paths = st.one_of(
    texts,
    st.builds(lambda p: f"p:{p}", st.from_regex(r"[a-z/._]{1,12}", fullmatch=True)),
    st.builds(
        lambda p, a, b: f"p:{p}#L{min(a, b)}-{max(a, b)}",
        st.from_regex(r"[a-z/.]{1,12}", fullmatch=True),
        st.integers(1, 9999),
        st.integers(1, 9999),
    ),
    st.builds(
        lambda p, a: f"p:{p}#L{a}",
        st.from_regex(r"[a-z.]{1,8}", fullmatch=True),
        st.integers(1, 500),
    ),
    st.builds(lambda p: f"^/{p}", st.from_regex(r"[a-z]{1,8}", fullmatch=True)),
).filter(lambda text: expand_target(text).problem is None)
operations = st.one_of(
    st.sampled_from(["read", "write", "edit", "shell", "search", "spawn"]),
    st.sampled_from(["+", "-", "~", "?", "!edit", "*read", "@", "!~"]),
)


def _with(draw: st.DrawFn, fields: dict[str, Any], optional: dict[str, Any]) -> dict[str, Any]:
    for key, strategy in optional.items():
        if draw(st.booleans()):
            fields[key] = draw(strategy)
    if draw(st.booleans()):
        fields[f"x_{draw(keys)}"] = draw(values)
    return fields


@st.composite
def headers(draw: st.DrawFn, batch: str | None = None) -> Block:
    fields = {"f": draw(strings), "t": draw(strings), "s": draw(st.integers(0, 10**12))}
    if batch is not None:
        fields["b"] = batch
    return Block("HEADER", _with(draw, fields, {}))


@st.composite
def body_blocks(draw: st.DrawFn, index: int, batch: str | None) -> Block:
    kind = draw(
        st.sampled_from(["CTX", "REQ", "PLAN", "ACT", "OBS", "BLK", "ASK", "END", "RES", "X_"])
    )
    if kind == "CTX":
        fields = _with(
            draw,
            {"p": draw(strings)},
            {"f": st.lists(paths, max_size=3), "st": objects, "issue": strings},
        )
    elif kind == "REQ":
        fields = _with(
            draw,
            {"o": draw(strings), "pr": draw(st.integers(1, 5))},
            {"d": string_lists, "exp": string_lists},
        )
    elif kind == "PLAN":
        return Block("PLAN", draw(st.lists(_steps(), max_size=4)))
    elif kind == "ACT":
        fields = {"i": f"A{index}"} if draw(st.booleans()) or batch else {}
        fields |= {"op": draw(operations), "tgt": draw(paths)}
        fields = _with(draw, fields, {"args": objects})
    elif kind == "OBS":
        fields = {"ai": f"A{index}"} if draw(st.booleans()) or batch else {}
        ok = draw(st.booleans())
        fields |= {"s": "OK" if ok else "ERR"}
        fields |= {"c": draw(objects)} if ok else {"e": draw(strings)}
        fields = _with(draw, fields, {"e": strings} if ok else {"c": objects})
    elif kind == "BLK":
        fields = _with(draw, {"w": draw(strings), "a": draw(string_lists)}, {"esc": st.booleans()})
    elif kind == "ASK":
        fields = _with(draw, {"q": draw(strings), "o": draw(string_lists)}, {"def": strings})
    elif kind == "END":
        fields = _with(
            draw,
            {"n": draw(strings), "del": draw(st.lists(paths, max_size=3))},
            {"t": string_lists, "r": string_lists},
        )
    elif kind == "RES":
        fields = _with(draw, {"o": draw(strings)}, {"msg": strings})
    else:
        name = "X_" + draw(st.from_regex(r"[A-Z0-9_]{1,8}", fullmatch=True))
        return Block(name, draw(st.one_of(objects, st.lists(values, max_size=3))))
    return Block(kind, fields)


@st.composite
def _steps(draw: st.DrawFn) -> dict[str, Any]:
    step = {
        "i": draw(st.one_of(st.integers(0, 999), words)),
        "t": draw(strings),
        "s": draw(st.sampled_from("PICX")),
    }
    return _with(draw, step, {})


@st.composite
def messages(draw: st.DrawFn) -> Message:
    """A valid message of any standard and custom blocks; batch messages name every id."""
    batch = draw(st.none() | words)
    count = draw(st.integers(0, 6))
    body = [draw(body_blocks(index, batch)) for index in range(count)]
    return Message((draw(headers(batch)), *body))
