"""Short captions, kicker labels and affiliate lines leave the capture; the article stays.

Each rule rests on structure and length, not on a site: the properties below vary the words,
the page around them and where they stand.
"""

from __future__ import annotations

import lxml.html
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.capture import capture_html
from laika_host.capture.boilerplate import is_boilerplate_block
from laika_host.capture.captions import MAX_CAPTION, drop_captions
from laika_host.capture.kicker import is_kicker

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)


@st.composite
def prose(draw: st.DrawFn, paragraphs: int = 5) -> list[str]:
    """Article paragraphs of ordinary sentences (each numbered, so each is unique)."""
    out = []
    for n in range(paragraphs):
        words = draw(st.lists(_WORD, min_size=25, max_size=40))
        out.append(f"Paragraph{n} " + " ".join(words) + ".")
    return out


def article(body: str, title: str = "The story of the day") -> str:
    return (
        f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<article>{body}</article><footer>Site footer</footer></body></html>"
    )


def _caption_words(draw: st.DrawFn, longest: int) -> str:
    words = draw(st.lists(_WORD, min_size=1, max_size=30))
    text = "Caption " + " ".join(words)
    return text[:longest].rstrip()


@settings(max_examples=40, deadline=None)
@given(st.data(), prose(), st.sampled_from(["figcaption", "caption", "credit"]))
def test_a_short_caption_goes_and_the_article_stays(
    data: st.DataObject, paragraphs: list[str], kind: str
) -> None:
    caption = _caption_words(data.draw, MAX_CAPTION)
    if kind == "figcaption":
        figure = f"<figure><img src='/a.jpg'><figcaption>{caption}</figcaption></figure>"
    else:
        figure = (
            f"<div class='image'><img src='/a.jpg'><p class='wp-{kind}-text'>{caption}</p></div>"
        )
    at = data.draw(st.integers(0, len(paragraphs)))
    blocks = [f"<p>{p}</p>" for p in paragraphs]
    blocks.insert(at, figure)
    text = " ".join(capture_html(article("".join(blocks)), "https://example.org/a").text.split())
    assert caption not in text
    for paragraph in paragraphs:
        assert paragraph in text


def test_a_long_caption_reads_as_prose_and_stays() -> None:
    caption = "The mayor at the opening, where she spoke about the library's history " * 3
    page = lxml.html.document_fromstring(
        f"<html><body><figure><img src='/a.jpg'><figcaption>{caption}</figcaption></figure>"
        + "<p>Other text.</p>" * 3
        + "<div><p>More.</p><p class='credit'>Named credit, no image near</p></div>"
        "</body></html>"
    )
    assert len(caption) > MAX_CAPTION
    assert drop_captions(page) == 0


def test_a_wrapper_named_caption_keeps_its_image() -> None:
    page = lxml.html.document_fromstring(
        "<html><body><div class='wp-caption'><img src='/a.jpg'>"
        "<p class='wp-caption-text'>Foto: Agentur</p></div></body></html>"
    )
    assert drop_captions(page) == 1
    assert page.find(".//img") is not None
    assert "Agentur" not in page.text_content()


@settings(max_examples=40, deadline=None)
@given(
    prose(3),
    st.lists(_WORD, min_size=1, max_size=4).map(lambda w: " ".join(w).capitalize()),
    st.sampled_from(["<p>{}</p>", "<div class='kicker'>{}</div>", "<a href='/s'>{}</a>"]),
)
def test_a_kicker_label_above_the_title_goes(paragraphs: list[str], label: str, shape: str) -> None:
    title = "Council approves the new bridge over the river"
    body = shape.format(label) + f"<h1>{title}</h1>" + "".join(f"<p>{p}</p>" for p in paragraphs)
    capture = capture_html(article(body, title), "https://example.org/a")
    blocks = capture.markdown.split("\n\n")
    assert blocks[0] == f"# {title}"
    assert label not in blocks
    for paragraph in paragraphs:
        assert paragraph in capture.text


def test_what_is_not_a_kicker() -> None:
    heading = "# Die gesündere Alternative?"
    assert is_kicker("Review", "# A film about rivers", "A film about rivers")
    assert is_kicker("*Opinion*", "# Why bridges matter", None)
    assert not is_kicker("Naturkosmetik –", heading, None)  # the title goes on below
    assert not is_kicker("Naturkosmetik", heading, "Naturkosmetik: die gesündere Alternative?")
    assert not is_kicker("The council met on Monday.", "# Bridge", None)  # a sentence
    assert not is_kicker("- Politik", "# Bridge", None)  # a list
    assert not is_kicker("A label of far too many words here", "# Bridge", None)


@given(st.sampled_from(["", "Read on. ", "Note: "]), st.sampled_from(["", " Thanks."]))
def test_affiliate_and_advert_disclosures_are_boilerplate(before: str, after: str) -> None:
    for line in (
        "We may earn a commission when you buy through links on our site.",
        "As an Amazon Associate I earn from qualifying purchases.",
        "This post contains affiliate links.",
        "Save hundreds on the best laptops this week",
        "Like recipe? Add the ingredients to your basket and deliver to you.",
        "*Werbung. Dieser Beitrag enthält Werbung für eine Marke.",
        "– Anzeige: Dieser Beitrag ist in Zusammenarbeit mit einer Marke entstanden –",
        "Este artículo contiene enlaces de afiliados.",
    ):
        block = lxml.html.fragment_fromstring(f"<p>{before}{line}{after}</p>")
        assert is_boilerplate_block(block), line


def test_the_same_words_in_a_long_paragraph_are_content() -> None:
    long = (
        "The regulator said that shops which earn a commission on sales must say so. "
        "Its report, published on Monday, found that many sites that claim we may earn a "
        "commission on purchases hid the notice below the fold, and it asked for changes "
        "within three months, after a consultation with consumer groups and retailers."
    )
    assert not is_boilerplate_block(lxml.html.fragment_fromstring(f"<p>{long}</p>"))
