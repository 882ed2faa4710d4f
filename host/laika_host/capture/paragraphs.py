"""Loose text runs made into paragraphs before extraction.

Many pages write paragraphs as text separated by `<br><br>` inside a `<div>`, often after a
heading or an image. Extractors are built for `<p>`: trafilatura split such a run at every
inline element and trimmed the spaces around it (`the new <a>library</a> opened` came out
as `the new` / `[library](..)opened`), and text after a heading in such a container could
vanish. So, as readability does, each run of text and inline elements in a container that
a double `<br>` divides becomes a `<p>`, and a `<p>` that one divides becomes several.
One pass over the tree plus one over each candidate's children: linear in the page.
"""

from __future__ import annotations

from lxml import etree
from lxml.html import HtmlElement

from .dom import Element

PHRASING = frozenset(
    {
        "a", "abbr", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em",
        "font", "i", "img", "ins", "kbd", "label", "mark", "nobr", "q", "s", "samp", "small",
        "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr", "picture",
        "acronym", "output", "meter", "progress", "math", "svg",
    }
)  # fmt: skip
"""Inline elements: they sit inside a paragraph (unless they hold a block)."""
CONTAINERS = frozenset(
    {"body", "div", "section", "article", "main", "blockquote", "center", "header", "footer"}
    | {"aside", "form", "details", "li", "dd", "td", "th"}
)
"""Elements whose loose runs may become paragraphs (a `<p>` is split instead)."""

Item = str | Element


def wrap_loose_runs(root: HtmlElement) -> int:
    """Wrap loose runs in place; returns how many paragraphs were made.

    Only a container that a double break divides is rebuilt, or one where a line break
    follows a block (trafilatura dropped a link line after it). Not one of inline text
    alone, nor one where words follow a block without a break: made paragraphs, their
    footers, bylines and link lines read as prose to trafilatura (measured: -0.8 F1 points
    on capture-dev for the first; the second cost 0.0013 F1 on trafilatura's unseen pages
    and gained nothing on capture-dev). Their words stay apart through `spacing` instead.
    """
    holders = dict.fromkeys(br.getparent() for br in root.iter("br"))  # in document order
    candidates = [
        node
        for node in holders
        if node is not None and node.tag in _WRAPPABLE and _may_need_wrapping(node)
    ]
    if not candidates:
        return 0
    blocky = _holding_blocks(root)
    made = 0
    for container in candidates:
        items = _items(container)
        if not _has_loose_text(items, blocky):
            continue
        runs = _runs(items, blocky)
        if not (_divided(runs) or _lines_at_risk(container, runs)):
            continue
        if container.tag == "p":
            made += _split_paragraph(container, runs)
        else:
            made += _rebuild(container, runs)
    return made


_WRAPPABLE = CONTAINERS | {"p"}
_LOOSE_TEXT = etree.XPath("boolean(text()[normalize-space()])")
_INLINE_TAGS = tuple(PHRASING - {"br"})


def _may_need_wrapping(container: Element) -> bool:
    """A cheap first test for a container holding a `<br>`: loose words, its own text or a
    tail (in C), or an inline child's own text (children picked by tag in C: a page of
    250,000 `<br>`s loops over none of them in Python)."""
    if _LOOSE_TEXT(container):
        return True
    return any(_is_words(child.text) for child in container.iterchildren(*_INLINE_TAGS))


def _is_words(text: str | None) -> bool:
    return bool(text) and not text.isspace()  # type: ignore[union-attr]


def _holding_blocks(root: HtmlElement) -> set[Element]:
    """Inline elements that hold a block (a `<span>` around a `<div>`): blocks themselves.
    Each ancestor chain is walked once: it stops at an element already marked."""
    marked: set[Element] = set()
    for element in root.iter():
        tag = element.tag
        if tag in PHRASING or not isinstance(tag, str):
            continue
        for ancestor in element.iterancestors():
            if ancestor.tag not in PHRASING or ancestor in marked:
                break
            marked.add(ancestor)
    return marked


def _is_block(item: Item, blocky: set[Element]) -> bool:
    if isinstance(item, str) or not isinstance(item.tag, str):
        return False  # text, comments, processing instructions
    return item.tag not in PHRASING or item in blocky


def _items(container: Element) -> list[Item]:
    """The container's content in order: text strings and child elements (tails apart)."""
    items: list[Item] = [container.text] if container.text else []
    for child in container:
        items.append(child)
        if child.tail:
            items.append(child.tail)
    return items


def _has_loose_text(items: list[Item], blocky: set[Element]) -> bool:
    for item in items:
        if isinstance(item, str):
            if not item.isspace():
                return True
        elif not _is_block(item, blocky) and item.tag != "br" and _has_words(item):
            return True
    return False


def _has_words(element: Element) -> bool:
    return any(not text.isspace() for text in element.itertext())


Run = tuple[list[Item], str]
"""The items of one run, and what ended it: "br" (a double break), "block" (the block
element that follows, kept as the next run on its own) or "end"."""


def _runs(items: list[Item], blocky: set[Element]) -> list[Run]:
    runs: list[Run] = []
    current: list[Item] = []
    for item in items:
        if _is_block(item, blocky):
            runs.append((current, "block"))
            runs.append(([item], "block-self"))
            current = []
        elif _is_br(item) and _ends_with_break(current):
            current = _without_breaks(current)
            runs.append((current, "br"))
            current = []
        elif _is_br(item) and not _has_content(current):
            continue  # a break at a run's start is layout
        else:
            current.append(item)
    runs.append((current, "end"))
    return [(_without_breaks(run), boundary) for run, boundary in runs]


def _divided(runs: list[Run]) -> bool:
    """Whether a double break divides the runs, or a line break does after a block (the
    line after it is dropped as a stray link line)."""
    if any(boundary == "br" for _, boundary in runs):
        return True
    after_block = False
    for run, boundary in runs:
        if boundary == "block-self":
            after_block = True
        elif after_block and any(_is_br(item) for item in run) and _run_has_words(run):
            return True
    return False


def _lines_at_risk(container: Element, runs: list[Run]) -> bool:
    """Whether trafilatura would judge the container's lines one by one: in any container
    but a `<div>` (which it reads as one paragraph when it holds only text, inline elements
    and breaks), a line before or after a `<br>` stands alone, and the first one or a line
    of links was dropped (`<td>Name<br>Street</td>` kept only "Street")."""
    if container.tag in ("div", "p"):
        return False
    return any(_is_br(item) for run, _ in runs for item in run)


def _is_br(item: Item) -> bool:
    return not isinstance(item, str) and item.tag == "br"


def _ends_with_break(run: list[Item]) -> bool:
    """Whether `run` ends with a `<br>` (spaces after it aside)."""
    for item in reversed(run):
        if isinstance(item, str) and item.isspace():
            continue
        return _is_br(item)
    return False


def _without_breaks(run: list[Item]) -> list[Item]:
    """`run` without the `<br>`s and spaces at its end: a paragraph's end is no line break."""
    end = len(run)
    while end and (_is_br(run[end - 1]) or _is_space(run[end - 1])):
        end -= 1
    return run[:end]


def _is_space(item: Item) -> bool:
    return isinstance(item, str) and item.isspace()


def _has_content(run: list[Item]) -> bool:
    return any(not isinstance(item, str) or not item.isspace() for item in run)


def _run_has_words(run: list[Item]) -> bool:
    for item in run:
        if isinstance(item, str):
            if not item.isspace():
                return True
        elif _has_words(item):
            return True
    return False


def _rebuild(container: Element, runs: list[Run]) -> int:
    """The container's content replaced by its runs: each run with words as a `<p>`."""
    made = 0
    container.text = None
    for child in list(container):
        container.remove(child)
    last: Element | None = None
    for run, boundary in runs:
        if boundary != "block-self" and _run_has_words(run):
            last = _paragraph(container, run)
            container.append(last)
            made += 1
        else:
            last = _append_loose(container, run, last)
    return made


def _split_paragraph(paragraph: Element, runs: list[Run]) -> int:
    """A `<p>` divided by double breaks replaced by one `<p>` per run (its attributes kept
    on the first)."""
    if paragraph.getparent() is None:
        return 0
    made = [_paragraph(paragraph, run) for run, _ in runs if _has_content(run)]
    if not made:
        return 0
    for name, value in paragraph.attrib.items():
        made[0].set(name, value)
    made[-1].tail = paragraph.tail
    paragraph.tail = None
    previous = paragraph
    for new in made:  # each one after the previous: no index lookups (linear in lxml)
        previous.addnext(new)
        previous = new
    paragraph.getparent().remove(paragraph)  # type: ignore[union-attr]
    return len(made) - 1


def _paragraph(owner: Element, run: list[Item]) -> Element:
    """A new `<p>` (made by the owner's document, so it is an HtmlElement) holding `run`."""
    paragraph = owner.makeelement("p", {})
    _append_loose(paragraph, run, None)
    return paragraph


def _append_loose(parent: Element, run: list[Item], last: Element | None) -> Element | None:
    """Append text strings and elements to `parent` after its child `last` (None: it has
    none yet), text joining the element before it; returns the new last child. Tracking it
    avoids `len()` and `[-1]`, which walk all children in lxml."""
    for item in run:
        if isinstance(item, str):
            if last is None:
                parent.text = (parent.text or "") + item
            else:
                last.tail = (last.tail or "") + item
        else:
            item.tail = None  # its tail is the next item of the run
            parent.append(item)
            last = item
    return last
