"""Citation verification against stored text: exact, normalized, fuzzy, rejected, locators."""

from __future__ import annotations

from urllib.parse import unquote

from laika_host.agent.verify import PackedSource, normalize, verify_citations

TEXT = (
    "Harbour tides\n\nHigh water comes twice a day because the moon pulls the oceans.\n\n"
    "Spring tides\n\nSpring tides are the largest of the month — when sun and moon pull "
    "together — and “neap” tides the smallest. Tides are the largest at the equinox.\n\n"
    "Tides are the largest at the equinox."
)
MARKDOWN = (
    "# Harbour tides\n\nHigh water comes twice a day because the moon pulls the oceans.\n\n"
    "## Spring tides\n\nSpring tides are the largest of the month — when sun and moon pull "
    "together — and “neap” tides the smallest. Tides are the largest at the equinox.\n\n"
    "Tides are the largest at the equinox."
)
SOURCE = PackedSource("doc-1", "src_1", "https://tides.test/page#top", TEXT, MARKDOWN, "Tides")


def check(quote: str, **ids: str) -> object:
    citation = {"quote": quote, **(ids or {"doc_id": "doc-1"})}
    return verify_citations([citation], [SOURCE]).citations[0]


def test_an_exact_quote_is_verified_with_a_locator_and_heading() -> None:
    found = check("High water comes twice a day because the moon pulls the oceans.")
    assert found.verified
    assert found.method == "exact"
    assert found.source_id == "src_1"
    assert found.locator.startswith("https://tides.test/page#:~:text=")
    assert unquote(found.locator.split("=", 1)[1]).startswith("High water comes twice a,")
    assert found.heading == "Harbour tides"


def test_quotes_dashes_case_and_whitespace_are_normalized() -> None:
    found = check(
        'spring tides are the largest of the month - when sun and moon pull together - and "neap"   tides'
    )
    assert found.verified
    assert found.method == "exact"
    assert found.heading == "Spring tides"


def test_small_variations_match_fuzzily_big_ones_do_not() -> None:
    near = check("High water comes two times a day because the moon pulls the oceans.")
    assert near.verified
    assert near.method == "fuzzy"
    far = check("Low water comes once a week because the wind pushes the rivers around.")
    assert not far.verified
    assert "not in the source" in far.reason


def test_a_repeated_quote_gets_prefix_and_suffix() -> None:
    found = check("the largest at the equinox")
    assert found.verified
    fragment = unquote(found.locator.split("=", 1)[1])
    assert fragment == "smallest. Tides are-,the largest at the equinox,-. Tides are"


def test_sources_outside_the_pack_are_rejected() -> None:
    outside = check("High water comes twice a day", source_id="src_other")
    assert not outside.verified
    assert outside.reason.startswith("rejected")
    mismatch = check("High water comes twice a day", doc_id="doc-1", source_id="src_9")
    assert not mismatch.verified
    assert "different sources" in mismatch.reason


def test_inline_markers_map_to_citations() -> None:
    result = verify_citations(
        [{"doc_id": "doc-1", "quote": "the moon pulls the oceans"}],
        [SOURCE],
        "Twice a day [1]. Also see [2].",
    )
    assert result.citations[0].marker == 1
    assert result.warnings == ["the answer cites [2], which names no citation"]


def test_normalize() -> None:
    assert normalize("  “Quoted” — text\u00a0here ") == '"quoted" - text here'
