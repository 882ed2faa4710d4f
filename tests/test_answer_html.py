"""`answer_html`: the answer through the safe render path with its `[n]` markers made citation
links (verified, http(s) locator) or flags (anything else), checked by parsing the result."""

from __future__ import annotations

import re
from typing import Any

import lxml.html
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.agent.verify import text_fragment_url
from laika_host.agent.words import WordIndex
from laika_host.render.answer_html import answer_to_html
from laika_host.render.html import ALLOWED_TAGS, ANNOTATION_TAGS

TAGS = ALLOWED_TAGS | ANNOTATION_TAGS
ATTRIBUTES = {"a": {"href", "rel", "class"}, "ol": {"start"}, "span": {"class"}}
CLASSES = {"a": "citation", "span": "citation-unverified"}
SCHEMES = ("http://", "https://", "mailto:")

hostile_urls = st.one_of(
    st.sampled_from(
        [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            'https://x.test/"><script>alert(1)</script>',
            "https://x.test/' onmouseover='alert(1)",
            "vbscript:msgbox(1)",
            "//evil.test/x",
            "/relative#:~:text=x",
            "file:///etc/passwd",
        ]
    ),
    st.text(max_size=40),
)
source_texts = st.lists(
    st.sampled_from(["tide", "moon", "pulls", "the", "ocean", "<b>", "&amp;", "[1]", "\"'"]),
    min_size=1,
    max_size=30,
).map(" ".join)


@st.composite
def verified_citation(draw: st.DrawFn) -> dict[str, Any]:
    text = draw(source_texts)
    index = WordIndex(text)
    if not index.words:
        return {"verified": False, "state": "unverified", "reason": "unverified: no words"}
    first = draw(st.integers(0, len(index.words) - 1))
    last = draw(st.integers(first, len(index.words) - 1))
    url = draw(
        st.sampled_from(["https://tides.test/a?b=1&c=<2>", 'http://x.test/p"q', "https://y.test/"])
    )
    locator = text_fragment_url(url, index, first, last)
    return {"verified": True, "state": "verified", "locator": locator, "quote": text}


unverified_citation = st.fixed_dictionaries(
    {
        "verified": st.just(False),
        "state": st.sampled_from(["unverified", "rejected"]),
        "reason": st.sampled_from(["unverified: not found", "rejected: not in the pack"]),
        "locator": st.one_of(st.none(), hostile_urls),
    }
)
hostile_verified = st.fixed_dictionaries(
    {"verified": st.just(True), "state": st.just("verified"), "locator": hostile_urls}
)
citation_lists = st.lists(
    st.one_of(verified_citation(), unverified_citation, hostile_verified), max_size=6
)
answer_parts = st.one_of(
    st.text(max_size=30),
    st.integers(0, 9).map(lambda n: f"[{n}]"),
    st.sampled_from(
        ["`", "```\n", "\n\n", "[x](", ")", "<script>", "<a href='javascript:x'>", "**", "> ",
         "- ", "1. ", "&lt;", "<span class=citation>", "<mark>", "\\[", "](https://e.test/[1])"]
    ),
)  # fmt: skip
answers = st.lists(answer_parts, max_size=25).map("".join)


def fragment(html: str) -> Any:
    return lxml.html.fragment_fromstring(html, create_parent="div")


def jumps(href: str) -> bool:
    return href.lower().startswith(("http://", "https://")) and "#:~:text=" in href


@settings(max_examples=400, deadline=None)
@given(answers, citation_lists)
def test_answer_html_keeps_only_the_allowlist(
    markdown: str, citations: list[dict[str, Any]]
) -> None:
    html = answer_to_html(markdown, citations)
    for element in fragment(html).iterdescendants():
        assert element.tag in TAGS, html
        for name, value in element.attrib.items():
            assert name in ATTRIBUTES.get(element.tag, set()), html
            if name == "href":
                assert value.lower().startswith(SCHEMES), html
            if name == "class":
                assert value == CLASSES[element.tag], html
        if element.get("class") == "citation":
            marker = re.fullmatch(r"\[(\d+)\]", element.text_content())
            assert marker is not None, html
            cited = citations[int(marker.group(1)) - 1]
            assert cited["verified"], html
            assert element.get("href") == cited["locator"], html
            assert "#:~:text=" in element.get("href"), html


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Tides rise", "The moon pulls", "x & y <z>"]), st.integers(1, 8)
        ),
        min_size=1,
        max_size=8,
    ),
    citation_lists,
)
def test_every_marker_in_prose_becomes_a_link_or_a_flag(
    claims: list[tuple[str, int]], citations: list[dict[str, Any]]
) -> None:
    markdown = " ".join(f"{text} [{number}]." for text, number in claims)
    root = fragment(answer_to_html(markdown, citations))
    shown = [
        (element.get("class"), element.text_content(), element.get("href"))
        for element in root.iterdescendants()
        if element.get("class")
    ]
    expected = []
    for _, number in claims:
        cited = citations[number - 1] if number <= len(citations) else {}
        locator = cited.get("locator")
        if cited.get("verified") and isinstance(locator, str) and jumps(locator):
            expected.append(("citation", f"[{number}]", locator))
        else:
            expected.append(("citation-unverified", f"[{number}]", None))
    assert shown == expected


def test_state_is_derived_for_citations_stored_without_one() -> None:
    old = [
        {"verified": True, "locator": "https://t.test/#:~:text=a"},
        {"verified": False, "reason": "rejected: it names a source that was not in the pack"},
    ]
    root = fragment(answer_to_html("a [1] b [2]", old))
    assert [e.get("class") for e in root.iterdescendants() if e.get("class")] == [
        "citation",
        "citation-unverified",
    ]


def test_markers_in_code_and_link_text_stay_text() -> None:
    cited = [{"verified": True, "state": "verified", "locator": "https://t.test/#:~:text=a"}]
    html = answer_to_html("`[1]` and [see [1]](https://e.test/)\n\n```\n[1]\n```", cited)
    assert "citation" not in html
    assert html.count("[1]") == 3
