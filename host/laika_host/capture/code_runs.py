"""Inline code as Markdown code spans, also where the page puts blocks inside the code.

A code span is inline: CommonMark ends every span at a paragraph's end, so backticks opened
before a `<p>` inside `<code>` and closed after it show up as text, and whatever the writer
read as a span edge inside them is wrong too. So inline code that holds a block is written as
one span per run of inline text between the blocks (each block holding its own spans), the
same rule for any nesting: a span never has to cross a block edge.

Code text is literal: a backslash in it is a character, never an escape or a hard break (the
writer turns `<br>` in code into a space), so the edges moved outside a span are spaces only.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .dom import Element
from .emphasis import Code, Deferred


def holds_block(element: Element, blocks: Collection[str]) -> bool:
    """Whether an element below `element` is one of `blocks` (a scan in C, stopping at the
    first one)."""
    return next(element.iterdescendants(*blocks), None) is not None


def code_span(text: str, *, in_link: bool, in_cell: bool) -> str | Code:
    """`text`, literal code on one line, as a span waiting for its neighbours (`Code`); its
    edge spaces moved outside, where they still separate words."""
    body = text.strip()
    if not body:
        return " " if text else ""
    start = len(text) - len(text.lstrip())
    before = text[:start].replace("\n", "")
    after = text[start + len(body) :].replace("\n", "")
    return Code(before, body, after, in_link=in_link, in_cell=in_cell)


def code_runs(
    parts: Sequence[str | Deferred], breaks: Collection[int], *, in_link: bool, in_cell: bool
) -> list[str | Deferred]:
    """`parts` (the literal Markdown of an element inside code) with each run of parts
    between the `breaks` (indices of the parts that are or hold blocks, already split)
    written as one code span."""
    out: list[str | Deferred] = []
    run: list[str] = []
    for index, part in enumerate(parts):
        if index in breaks:
            out += [code_span("".join(run), in_link=in_link, in_cell=in_cell), part]
            run = []
        else:
            run.append(part if isinstance(part, str) else f"{part.before}{part.body}{part.after}")
    out.append(code_span("".join(run), in_link=in_link, in_cell=in_cell))
    return out
