"""CSV formula injection, whichever separator the spreadsheet splits on (#24).

The export writes `,`-separated CSV, but Excel in a `;` locale splits on `;`, a paste splits on
tab, and some readers ignore quoting. So no field any of those readings yields may start, after
whitespace and quotes, with a character a spreadsheet takes as the start of a formula: `=`,
`+`, `-`, `@` or a full-width or small form of one (U+FF1D, U+FE66, ...), and the cells still read
back exactly (with `,` as the reader's separator) to the text the user wrote plus a `'` before
each such character."""

from __future__ import annotations

import csv
import io
import re
import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.transform.export import FORMULA_START, Table, neutralise, table_csv

SEPARATORS = (",", ";", "\t")
TRIGGERS = "=+-@"
BREAKS = re.compile(r"\r\n|[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
"""Every line break a reader may split lines on (`str.splitlines`' set)."""


def is_formula(field: str) -> bool:
    """A field a spreadsheet could evaluate: after whitespace, quotes and invisible format
    characters (a byte-order mark, a zero-width space), a trigger or a compatibility form of
    one."""
    rest = field.lstrip()
    while rest and (
        rest[0] == '"' or rest[0].isspace() or unicodedata.category(rest[0]) in ("Cc", "Cf")
    ):
        rest = rest[1:]
    return bool(rest) and unicodedata.normalize("NFKC", rest[0])[:1] in TRIGGERS


def fields_any_reader_sees(written: str) -> list[str]:
    """The fields of `written` as a naive splitter (lines, then one separator, quotes ignored)
    and as the csv module (each separator, quotes honoured) read them."""
    fields = []
    for separator in SEPARATORS:
        for line in BREAKS.split(written):
            fields += line.split(separator)
        for row in csv.reader(io.StringIO(written, newline=""), delimiter=separator):
            fields += row
    return fields


TRIGGERISH = st.sampled_from(
    [*TRIGGERS, "\uff1d", "\uff0b", "\uff0d", "\uff20", "\ufe66", "\ufe62", "\ufe63", "\ufe6b"]
)
GLUE = st.sampled_from([",", ";", "\t", "\r", "\n", "\r\n", " ", '"', "\u3000", "\ufeff", "'", "x"])
CELL = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(TRIGGERISH, GLUE, st.text(max_size=4)), max_size=16).map("".join),
)


@settings(max_examples=400)
@given(st.lists(st.lists(CELL, min_size=1, max_size=4), min_size=1, max_size=4))
@example([["x;=cmd|' /C calc'!A0;"]])
@example([["a", "b\t+1", 'c, "@SUM(A1)'], ["\ufeff=1", "\uff1d1+1", "ok"]])
def test_no_reader_finds_a_formula_in_any_field(cells: list[list[str]]) -> None:
    width = max(len(row) for row in cells)
    rows = [[neutralise(c) for c in row] + [""] * (width - len(row)) for row in cells]
    written = table_csv(Table("t", rows[0], rows[1:]))
    assert not [f for f in fields_any_reader_sees(written) if is_formula(f)]
    # the writer's own reading gives the cells back
    assert list(csv.reader(io.StringIO(written, newline=""))) == rows


@given(CELL)
def test_neutralising_only_adds_marks_and_is_stable(cell: str) -> None:
    marked = neutralise(cell)
    assert marked.replace("'", "") == cell.replace("'", "")
    assert len(marked) - len(cell) == marked.count("'") - cell.count("'")
    assert neutralise(marked) == marked
    assert not marked.startswith(FORMULA_START)


def test_plain_text_is_left_alone_and_marks_are_few() -> None:
    for text in ("Paris, France", "3-4 days", "a+b", "mail@example.org", "x; y", "", "'quoted'"):
        assert neutralise(text) == text
    assert neutralise("x;=cmd|' /C calc'!A0;") == "x;'=cmd|' /C calc'!A0;"
    assert neutralise("Price: -5%, +3") == "Price: -5%, '+3"
    assert neutralise('a,\t "=1') == "a,\t \"'=1"
    assert neutralise("\uff1dSUM(A1)") == "'\uff1dSUM(A1)"
    assert neutralise("\ufeff=1") == "\ufeff'=1"


def test_neutralising_is_linear() -> None:
    assert_linear(lambda n: lambda: neutralise(';\ufeff "=' * n), 2_000, 16_000, 24)
