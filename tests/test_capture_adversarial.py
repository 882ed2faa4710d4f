"""Pathological but valid pages under 1 MB: each captures in under 5 s (or fails with a clear
message), and what the bounds leave out is reported. The pages come from
bench/capture_adversarial.py, which prints the same captures' times."""

from __future__ import annotations

import copy
import re
import time

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.capture import CaptureError, capture_html
from laika_host.capture import limits as limits_module
from laika_host.capture.limits import MAX_ATTRIBUTES, bound_attributes, bound_tree
from laika_host.capture.metadata import read_metadata

from support import bench_module

adversarial = bench_module("capture_adversarial")
UNDER_1MB = 999_000
SECONDS = 5.0
"""The issue's bound for any page under 1 MB; these pages took up to 71 s before."""
INTRO_WORDS = "High tide comes twice a day"
SHAPES = sorted(name for name in adversarial.SHAPES if name != "commented_scripts")


def timed(html: str) -> tuple[float, object]:
    # CPU time, not wall time: other processes on these cores must not fail a complexity bound
    started = time.process_time()
    try:
        outcome: object = capture_html(html, "https://example.org/notes")
    except CaptureError as error:
        outcome = error
    return time.process_time() - started, outcome


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("shape", SHAPES)
def test_each_pathological_shape_under_1mb_captures_in_under_5s(shape: str) -> None:
    html = adversarial.build([shape], UNDER_1MB)
    assert len(html) < 1_000_000
    elapsed, result = timed(html)
    assert elapsed < SECONDS, f"{shape}: {elapsed:.1f} s"
    assert not isinstance(result, CaptureError), result
    assert result.title == "Field notes on tides"  # type: ignore[attr-defined]
    assert INTRO_WORDS in result.text  # type: ignore[attr-defined]
    assert len(result.markdown) <= 24_000  # type: ignore[attr-defined]


@pytest.mark.slow  # > 3 s with the cores busy
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    shapes=st.lists(st.sampled_from(SHAPES), min_size=1, max_size=4),
    size=st.integers(20_000, UNDER_1MB),
)
def test_any_mix_of_pathological_shapes_captures_in_under_5s(shapes: list[str], size: int) -> None:
    html = adversarial.build(shapes, size)
    elapsed, result = timed(html)
    assert elapsed < SECONDS, f"{shapes} at {size:,}: {elapsed:.1f} s"
    if isinstance(result, CaptureError):  # allowed, if it says what is wrong
        assert len(str(result)) > 20
        return
    assert INTRO_WORDS in result.text  # type: ignore[attr-defined]


def test_a_wide_table_keeps_its_first_cells_and_says_it_was_cut() -> None:
    html = adversarial.build(["wide_table_words"], 600_000)
    result = capture_html(html, "https://example.org/table")
    assert "truncated" in result.signals
    assert "| cell words | cell words |" in result.markdown


def test_deep_json_ld_is_skipped_and_good_json_ld_still_read() -> None:
    deep = adversarial.build(["deep_json_ld_objects"], 500_000)
    meta = read_metadata(lxml.html.document_fromstring(deep))  # RecursionError before
    assert meta.title == "Field notes on tides"
    good = deep.replace(
        "</head>",
        '<script type="application/ld+json">{"@type": "Article", "author": {"name": "Ada"}}'
        "</script></head>",
    )
    assert read_metadata(lxml.html.document_fromstring(good)).byline == "Ada"


# --- the bounds themselves ----------------------------------------------------------------

attribute_names = st.from_regex(r"[a-z][a-z0-9-]{0,6}", fullmatch=True)
attribute_values = st.one_of(
    st.from_regex(r"[a-z0-9]{0,5}", fullmatch=True).map(lambda v: f'"{v}"'),
    st.from_regex(r"[a-z0-9 >]{0,5}", fullmatch=True).map(lambda v: f"'{v}'"),
    st.from_regex(r"[a-z0-9]{1,5}", fullmatch=True),
    st.just(""),
)


@pytest.mark.slow  # > 3 s with the cores busy
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    names=st.lists(attribute_names, min_size=1, max_size=400, unique=True),
    values=st.lists(attribute_values, min_size=400, max_size=400),
    separator=st.sampled_from([" ", "\n", "  ", " / "]),
)
def test_a_tag_keeps_its_first_attributes_and_the_text_after_it(
    names: list[str], values: list[str], separator: str
) -> None:
    attributes = [
        f"{name}={value}" if value else name for name, value in zip(names, values, strict=False)
    ]
    page = f"<p>before</p><p {separator.join(attributes)}>inside</p><p>after</p>"
    bounded, changed = bound_attributes(page)
    assert changed == (len(names) > MAX_ATTRIBUTES)
    kept = lxml.html.fragment_fromstring(bounded, create_parent="div")
    original = lxml.html.fragment_fromstring(page, create_parent="div")
    assert kept.text_content() == original.text_content() == "beforeinsideafter"
    expected = list(original[1].attrib.items())[:MAX_ATTRIBUTES]
    assert list(kept[1].attrib.items()) == expected


def test_attribute_bounding_leaves_ordinary_pages_as_they_are() -> None:
    page = (
        '<html><body><a href="/x?a=1&b=2" title=\'a > b\'>link</a><img src=x.png alt="">'
        "<p class=lead data-x = y>text</p><!-- <b a b c> --></body></html>"
    )
    assert bound_attributes(page) == (page, False)


@st.composite
def trees(draw: st.DrawFn) -> str:
    """Nested markup whose every element holds its position as text."""
    counter = iter(range(10_000))

    def element(depth: int) -> str:
        tag = draw(st.sampled_from(["div", "p", "span", "ul", "li", "table", "b"]))
        children = draw(st.integers(0, 4 if depth < 4 else 0))
        inner = "".join(element(depth + 1) for _ in range(children))
        return f"<{tag}>e{next(counter)} {inner}</{tag}>"

    return "".join(element(0) for _ in range(draw(st.integers(1, 6))))


@pytest.mark.slow  # > 3 s with the cores busy
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(markup=trees(), limit=st.integers(2, 60))
def test_the_element_bound_keeps_a_prefix_in_document_order(markup: str, limit: int) -> None:
    root = lxml.html.fragment_fromstring(markup, create_parent="div")
    before = [e.text for e in root.iter()]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits_module, "MAX_ELEMENTS", limit)
        cut = bound_tree(root)
    after = [e.text for e in root.iter()]
    assert after == before[: len(after)]
    assert len(after) == min(limit, len(before))
    assert cut == (len(before) > limit)
    words = re.findall(r"e\d+", root.text_content())
    assert words == [text.strip() for text in after if text]  # no text after the cut


def test_rows_keep_their_first_cells() -> None:
    row = "<table><tr>" + "".join(f"<td>{i}</td>" for i in range(2_500)) + "</tr></table>"
    root = lxml.html.fragment_fromstring(row, create_parent="div")
    assert bound_tree(copy.deepcopy(root))
    bound_tree(root)
    cells = root.findall(".//td")
    assert [c.text for c in cells] == [str(i) for i in range(limits_module.MAX_ROW_CELLS)]
