"""`overlay_blocking`: only a layer the page shows over its text (issue 25).

Before, any `aria-modal`/`role=dialog` element or one named overlay, popup, lightbox or
interstitial with text in it raised the signal: 139 of the 602 capture-dev pages, and every
one of the 67 flagged pages of the labelled sample was false (closed Bootstrap modals, cookie
notices hidden by class, menus and search boxes, card and caption layers named overlay). Now
(see `laika_host.capture.signals`): a dialog counts only when the markup shows it (neither it
nor an ancestor hidden, a `<dialog>` only when open) and when something says it blocks: the
extension saw it over the page's middle (`data-laika-overlay`), the markup displays a modal
(`aria-modal="true"` with an inline display, or an open `<dialog>`), or the capture holds
little else. Names never count. The true overlays below are the shapes real sites ship.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.capture import capture_html
from laika_host.capture.signals import OVERLAY_MARK, SHOWN_DIALOG, settle

URL = "https://news.example/2026/harbour"
PARAGRAPH = (
    "<p>The harbour office recorded {n} arrivals this season, most of them coastal traders "
    "carrying timber, grain and salt; the pilots' log names each ship and its berth.</p>"
)
CONSENT = (
    "<h2>We value your privacy</h2><p>We and our partners use cookies to store and access "
    "information on your device. Accept all or choose your settings.</p>"
)


def page(body: str, *, paragraphs: int = 12, body_attributes: str = "") -> str:
    text = "".join(PARAGRAPH.format(n=n) for n in range(paragraphs))
    return (
        "<!doctype html><html lang='en'><head><title>Harbour news</title></head>"
        f"<body{body_attributes}><header><nav><a href='/'>Home</a> <a href='/news'>News</a>"
        f"</nav></header><main><article><h1>A busy season at the harbour</h1>{text}</article>"
        f"</main>{body}<footer>Harbour News, Quay Street 1</footer></body></html>"
    )


def signals(html: str) -> list[str]:
    return capture_html(html, URL).signals


# --- the shapes real sites ship ------------------------------------------------------

SHOWN = {
    "bootstrap modal opened by script": page(
        "<div class='modal fade show' id='newsletter' tabindex='-1' role='dialog' "
        "aria-modal='true' style='display: block; padding-right: 15px;'><div "
        "class='modal-dialog'><div class='modal-content'><h2>Stay informed</h2><p>Sign up for "
        "our newsletter to keep reading.</p></div></div></div>",
        body_attributes=" class='modal-open' style='overflow: hidden'",
    ),
    "open modal <dialog>": page(f"<dialog open aria-modal='true'>{CONSENT}</dialog>"),
    "consent wall and nothing else": (
        "<html><head><title>Before you continue</title></head><body><div role='dialog' "
        f"aria-labelledby='t'>{CONSENT}<button>Accept all</button></div></body></html>"
    ),
    "consent box the extension saw over the page": page(
        f"<div class='cmp-root' {OVERLAY_MARK}><div class='cmp-box' role='dialog' "
        f"aria-modal='true'>{CONSENT}</div></div>"
    ),
    "newsletter popup the extension saw over the page": page(
        f"<div class='popup-wrap' {OVERLAY_MARK}><div class='popup'><h2>Subscribe</h2><p>Get "
        "the harbour news every morning in your inbox.</p></div></div>"
    ),
}

CLOSED = {
    "bootstrap modal, closed": page(
        "<div class='modal fade' id='login' tabindex='-1' role='dialog'><div "
        "class='modal-dialog'><h2>Log in</h2><p>Username, password, forgot it?</p></div></div>"
    ),
    "modal marked aria-hidden": page(
        "<div class='modal__overlay' aria-hidden='true'><div class='modal__container' "
        "role='dialog' aria-modal='true'><p>Share this story: copy the link, Twitter.</p>"
        "</div></div>"
    ),
    "cookie notice, closed by the plugin": page(
        "<div id='cookie-notice' role='dialog' class='cookie-notice-hidden "
        "cookie-revoke-hidden cn-position-bottom'><p>This site uses cookies. If you go on, "
        "we take it that you agree.</p></div>"
    ),
    "navigation block's menu dialog": page(
        "<div class='wp-block-navigation__responsive-container'><div "
        "class='wp-block-navigation__responsive-dialog' role='dialog' aria-modal='true'>"
        "<a href='/news'>News</a> <a href='/blog'>Blog</a></div></div>"
    ),
    "search overlay, inline hidden": page(
        "<div class='search-overlay' role='dialog' aria-modal='true' style='display:none'>"
        "<p>Type a word and press Enter to search.</p></div>"
    ),
    "closed <dialog>": page(f"<dialog aria-modal='true'>{CONSENT}</dialog>"),
    "non-modal cookie bar": page(
        f"<div class='cc-window cc-banner' role='dialog' aria-label='cookieconsent'>{CONSENT}</div>"
    ),
    "layers only named so": page(
        "<div class='overlay'><a class='card__overlay' href='/a'>Storm closes the pier</a>"
        "</div><a class='lightbox' href='/big.jpg'>The quay at dawn</a><div "
        "class='popup newsletter-popup'><p>Subscribe to our newsletter</p></div><div "
        "id='interstitial-ad'>Advertisement</div>"
    ),
    "a site that scrolls its page in a fixed box": (
        "<html><head><title>Harbour news</title></head><body>"
        f"<div class='app-scroller' {OVERLAY_MARK}><main><article><h1>A busy season</h1>"
        + "".join(PARAGRAPH.format(n=n) for n in range(12))
        + "</article></main></div><script type='application/json'>"
        + '{"state": "'
        + "x" * 20_000
        + '"}</script></body></html>'
    ),
    "a layer mark on a hidden element": page(f"<div {OVERLAY_MARK} hidden><p>{CONSENT}</p></div>"),
}


@pytest.mark.parametrize("name", list(SHOWN))
def test_a_layer_the_page_shows_over_its_text_is_signalled(name: str) -> None:
    assert "overlay_blocking" in signals(SHOWN[name])


@pytest.mark.parametrize("name", list(CLOSED))
def test_closed_hidden_and_merely_named_layers_are_not(name: str) -> None:
    assert "overlay_blocking" not in signals(CLOSED[name])


def test_a_shown_dialog_counts_only_on_a_sparse_capture() -> None:
    assert settle({SHOWN_DIALOG}, "A whole article. " * 40, sparse=False) == set()
    assert settle({SHOWN_DIALOG}, "Accept all", sparse=True) == {"overlay_blocking"}


# --- any page, any place, any way of hiding --------------------------------------------

OPENERS = {
    "modal div": "<div role='dialog' aria-modal='true'{attributes}>",
    "alertdialog": "<section role='alertdialog' aria-modal='true'{attributes}>",
    "dialog": "<dialog open aria-modal='true'{attributes}>",
    "marked layer": f"<div {OVERLAY_MARK}{{attributes}}>",
    "marked dialog": f"<div {OVERLAY_MARK} role='dialog'{{attributes}}>",
}
"""Each a dialog or layer that blocks when shown (`style` shows a div one)."""
CLOSERS = {"dialog": "</dialog>", "alertdialog": "</section>"}
SELF_HIDING = (
    " hidden",
    " hidden=''",
    " HIDDEN='hidden'",
    " aria-hidden='true'",
    " aria-hidden=' TRUE '",
)
HIDING_STYLES = (
    "display:none",
    "DISPLAY: NONE !important",
    "visibility:hidden",
    "visibility: collapse",
    "opacity:0",
    "opacity: 0.01",
)
HIDING_WRAPPERS = (
    ("<template>", "</template>"),
    ("<noscript>", "</noscript>"),
    ("<dialog>", "</dialog>"),
    ("<dialog aria-modal='true' class='modal'>", "</dialog>"),
)
WRAPPERS = (
    ("<div class='wrap'>", "</div>"),
    ("<section>", "</section>"),
    ("<aside class='sidebar'>", "</aside>"),
    ("<div id='app'>", "</div>"),
    ("<div class='overlay popup'>", "</div>"),
    ("<span>", "</span>"),
)
PLACES = ("before the header", "in the article", "after the article", "in the footer")


@dataclass(frozen=True)
class Hiding:
    attribute: str
    """Attributes on the element that hides (the dialog or a wrapper)."""
    style: str
    wrapper: tuple[str, str] | None
    on_dialog: bool


hidings = st.one_of(
    st.builds(Hiding, st.sampled_from(SELF_HIDING), st.just(""), st.none(), st.booleans()),
    st.builds(Hiding, st.just(""), st.sampled_from(HIDING_STYLES), st.none(), st.booleans()),
    st.builds(Hiding, st.just(""), st.just(""), st.sampled_from(HIDING_WRAPPERS), st.just(False)),
)


def dialog(kind: str, text: str, *, style: str = "", attributes: str = "") -> str:
    opener = OPENERS[kind].format(attributes=attributes + (f" style='{style}'" if style else ""))
    return f"{opener}<p>{text}</p>{CLOSERS.get(kind, '</div>')}"


def placed(fragment: str, place: str, paragraphs: int) -> str:
    text = "".join(PARAGRAPH.format(n=n) for n in range(paragraphs))
    parts = dict.fromkeys(PLACES, "")
    parts[place] = fragment
    return (
        f"<html><head><title>Harbour</title></head><body>{parts['before the header']}"
        "<header><nav><a href='/'>Home</a></nav></header><main><article><h1>Harbour</h1>"
        f"{text}{parts['in the article']}</article></main>{parts['after the article']}"
        f"<footer>Quay Street 1{parts['in the footer']}</footer></body></html>"
    )


def wrapped(fragment: str, wrappers: list[tuple[str, str]]) -> str:
    for opener, closer in wrappers:
        fragment = f"{opener}{fragment}{closer}"
    return fragment


texts = st.sampled_from(
    ["Subscribe to keep reading", "We use cookies. Accept all cookies?", "Log in", "x" * 300]
)


@given(
    kind=st.sampled_from(list(OPENERS)),
    text=texts,
    hiding=hidings,
    outer=st.lists(st.sampled_from(WRAPPERS), max_size=3),
    inner=st.lists(st.sampled_from(WRAPPERS), max_size=2),
    place=st.sampled_from(PLACES),
    paragraphs=st.integers(min_value=0, max_value=12),
)
def test_a_hidden_dialog_anywhere_never_blocks(
    kind: str,
    text: str,
    hiding: Hiding,
    outer: list[tuple[str, str]],
    inner: list[tuple[str, str]],
    place: str,
    paragraphs: int,
) -> None:
    """A dialog hidden by its own markup or an ancestor's, however deep, on any page (a
    sparse one too), shown in every other way it could be: no signal."""
    style = "display: block" if kind in ("modal div", "alertdialog") else ""
    if hiding.on_dialog:
        style = f"{style}; {hiding.style}" if hiding.style else style
        fragment = wrapped(dialog(kind, text, style=style, attributes=hiding.attribute), inner)
    else:
        fragment = wrapped(dialog(kind, text, style=style), inner)
        attributes = hiding.attribute + (f" style='{hiding.style}'" if hiding.style else "")
        opener, closer = hiding.wrapper or (f"<div class='modal'{attributes}>", "</div>")
        fragment = f"{opener}{fragment}{closer}"
    html = placed(wrapped(fragment, outer), place, paragraphs)
    assert "overlay_blocking" not in signals(html), html


@given(
    kind=st.sampled_from(list(OPENERS)),
    text=texts,
    outer=st.lists(st.sampled_from(WRAPPERS), max_size=3),
    place=st.sampled_from(PLACES),
    paragraphs=st.integers(min_value=0, max_value=12),
)
def test_a_shown_modal_dialog_anywhere_blocks(
    kind: str, text: str, outer: list[tuple[str, str]], place: str, paragraphs: int
) -> None:
    """An open modal (displayed by the markup or seen by the extension) with text in it, on
    any page, inside any wrappers that do not hide it: the signal. (A marked layer that is no
    dialog must not hold most of the page's text: that is the page itself.)"""
    if kind == "marked layer":
        paragraphs = max(paragraphs, 2 + len(text) // 100)
    style = "display: block" if kind in ("modal div", "alertdialog") else ""
    html = placed(wrapped(dialog(kind, text, style=style), outer), place, paragraphs)
    assert "overlay_blocking" in signals(html), html


NAMED = st.sampled_from(
    ["overlay", "popup", "lightbox", "interstitial", "modal", "c-nav-overlay", "js-popup"]
)


@given(
    names=st.lists(NAMED, min_size=1, max_size=3),
    tag=st.sampled_from(["div", "section", "a", "figure", "aside"]),
    text=texts,
    place=st.sampled_from(PLACES),
    paragraphs=st.integers(min_value=0, max_value=12),
)
def test_names_alone_never_block(
    names: list[str], tag: str, text: str, place: str, paragraphs: int
) -> None:
    """A class or id naming an overlay says nothing of whether it is shown or covers the
    page: card links, caption layers, menus and closed popups are so named."""
    element = f"<{tag} class='{' '.join(names)}' id='{names[0]}'><p>{text}</p></{tag}>"
    assert "overlay_blocking" not in signals(placed(element, place, paragraphs))


# --- cost ------------------------------------------------------------------------------


def nested_dialogs(count: int) -> str:
    """`count` dialogs: runs of 50 nested inside each other under a hidden ancestor (every
    dialog's ancestors are looked at), as many empty shown ones (each one's text is read,
    up to a bound), then one open modal."""
    run = "<div role='dialog' aria-modal='true'><p>Log in</p>" * 50 + "</div>" * 50
    hidden = f"<div hidden>{run}</div>" * (count // 100)
    empty = "<div role='dialog' aria-modal='true' style='display:block'><p> </p></div>"
    shown = "<dialog open aria-modal='true'>Log in</dialog>"
    return page(hidden + empty * (count // 2) + shown)


def test_the_cost_grows_linearly_with_the_dialogs() -> None:
    def prepare(count: int) -> object:
        html = nested_dialogs(count)
        return lambda: "overlay_blocking" in capture_html(html, URL).signals

    assert_linear(prepare, 1_000, 2_000, 3.0)
