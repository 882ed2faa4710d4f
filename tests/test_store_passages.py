"""Passages (issue #26): a source's Markdown cut along its structure, for retrieval.

Over any text: passages are in order, never overlap, never exceed `MAX_CHARS`, and together
hold every line that is not a heading or blank; a heading starts a new passage and its path
goes with every passage under it; a block that fits stays whole. Cost: linear, by CPU time
(the regexes) and by counted Python calls."""

from __future__ import annotations

import itertools
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear, assert_linear_calls
from laika_host.store.passages import MAX_CHARS, TARGET_CHARS, split_passages

LINE = st.one_of(
    st.text(string.ascii_letters + " .,!?#-*|`~>0123456789\t", max_size=120),
    st.sampled_from(["", "```", "~~~", "# Title", "## Part", "### Deep ##", "- item", "| a | b |"]),
    st.text(max_size=40),
    st.just("word " * 500),
    st.just("x" * 3000),
)
MARKDOWN = st.lists(LINE, max_size=60).map("\n".join)


def is_heading(line: str) -> bool:
    """An ATX heading with text: 1-6 `#` at the line's start, a space, then words."""
    marks = len(line) - len(line.lstrip("#"))
    rest = line[marks:]
    return 1 <= marks <= 6 and rest[:1] in (" ", "\t") and bool(rest.strip())


@settings(max_examples=400)
@given(MARKDOWN)
def test_passages_are_ordered_bounded_and_lose_no_text(markdown: str) -> None:
    passages = split_passages(markdown)
    end = 0
    for number, passage in enumerate(passages):
        assert passage.ordinal == number
        assert end <= passage.start < passage.end <= len(markdown)
        assert passage.end - passage.start <= MAX_CHARS
        assert passage.markdown == markdown[passage.start : passage.end]
        assert passage.markdown.strip()
        end = passage.end
    gaps = [markdown[a.end : b.start] for a, b in itertools.pairwise(passages)]
    if passages:
        gaps += [markdown[: passages[0].start], markdown[passages[-1].end :]]
    else:
        gaps = [markdown]
    for gap in gaps:  # only blank lines and headings fall between passages
        for line in gap.split("\n"):
            assert not line.strip() or is_heading(line.strip()), (line, gap)


def test_headings_start_passages_and_their_path_goes_with_each() -> None:
    markdown = (
        "# Tides\n\nThe moon pulls the sea.\n\n## Spring tides\n\nHigher at full moon.\n\n"
        "### Charts\n\n| hour | metres |\n|---|---|\n| 6 | 4.1 |\n\n## Neap tides\n\nLower."
    )
    passages = split_passages(markdown)
    assert [p.heading for p in passages] == [
        "Tides",
        "Tides > Spring tides",
        "Tides > Spring tides > Charts",
        "Tides > Neap tides",
    ]
    assert passages[2].markdown.startswith("| hour | metres |")  # the table, whole
    assert passages[3].text == "Lower."


def test_small_blocks_gather_and_a_block_that_fits_is_never_split() -> None:
    paragraph = "A sentence about the harbour. " * 20  # 600 characters
    table = "\n".join(f"| row {n} | value {n} |" for n in range(60))  # about 1,200
    passages = split_passages(f"{paragraph}\n\n{paragraph}\n\n{table}\n\nEnd.")
    assert all(p.end - p.start <= MAX_CHARS for p in passages)
    assert any(p.markdown == table for p in passages)  # over TARGET_CHARS, under MAX_CHARS
    assert len(table) > TARGET_CHARS
    short = split_passages("One.\n\nTwo.\n\nThree.")
    assert [p.markdown for p in short] == ["One.\n\nTwo.\n\nThree."]


def test_a_long_paragraph_is_cut_at_sentence_ends() -> None:
    sentence = "The tide turns twice a day near the old harbour wall. "
    passages = split_passages(sentence * 200)
    assert len(passages) > 1
    for passage in passages[:-1]:
        assert passage.markdown.endswith(". "), passage.markdown[-20:]


def test_a_code_fence_with_blank_lines_and_hashes_is_one_block() -> None:
    markdown = "Intro.\n\n```\n# not a heading\n\nstill code\n```\n\nAfter."
    passages = split_passages(markdown)
    assert [p.heading for p in passages] == [""]
    assert "# not a heading\n\nstill code" in passages[0].markdown


def test_splitting_is_linear() -> None:
    def page(size: int) -> object:
        unit = "## Part\n\nSome words about tides. " * 3 + "\n\n- a\n- b\n\n" + "x " * 400 + "\n\n"
        text = unit * size

        return lambda: split_passages(text)

    assert_linear_calls(page, 40, 160, bound=4.6)
    assert_linear(page, 40, 160, bound=6)

    def spaces(size: int) -> object:  # a heading line of spaces before its text
        text = "# " + " " * (1_000 * size) + "x\n\n" + "y " * (1_000 * size)
        return lambda: split_passages(text)

    assert_linear(spaces, 20, 80, bound=6)
