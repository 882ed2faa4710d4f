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

from collections.abc import Collection, Mapping, Sequence

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
    parts: Sequence[str | Deferred],
    breaks: Mapping[int, bool],
    *,
    edges: bool,
    in_link: bool,
    in_cell: bool,
) -> list[str | Deferred]:
    """`parts` (the literal Markdown of an element inside code) with each run of inline text
    between blocks written as one code span.

    `breaks` maps the index of each part that is a block (True: a break as a whole) or an
    inline element holding blocks (False: its text before its first line end and after its
    last one is raw and continues the runs around it). `edges`: whether the first and last
    runs are spans too (in the code itself and in a block), or stay raw for the parent.
    A part that wrote nothing separates nothing.
    """
    out: list[str | Deferred] = []
    run: list[str] = []

    def close(raw: bool) -> None:
        text = "".join(run)
        out.append(text if raw else code_span(text, in_link=in_link, in_cell=in_cell))
        run.clear()

    for index, part in enumerate(parts):
        text = part if isinstance(part, str) else f"{part.before}{part.body}{part.after}"
        whole = breaks.get(index)
        first, last = (0, len(text) - 1) if whole else (text.find("\n"), text.rfind("\n"))
        if whole is None or first < 0 or not text:
            run.append(text)
            continue
        run.append(text[:first])
        close(raw=not edges and len(out) == 0)
        out.append(text[first : last + 1])
        run.append(text[last + 1 :])
    close(raw=not edges)
    return out
