"""Page signals: facts about the page a reader (or a model) should know before trusting it.

Triggers:

- `paywall_or_login`: the page asks the reader to subscribe or log in to read on (in its
  text or in an element named paywall, regwall, loginwall, premium or subscriber); or it is
  marked so (JSON-LD `isAccessibleForFree: false`, an element so named, a "subscribers
  only" label) and the captured text breaks off in an ellipsis. A mark alone is no
  evidence: publishers mark articles whose HTML holds the whole text, and themes name open
  articles `paywall` (measured on a labelled sample of capture-dev,
  tests/data/signal_labels.json: such marks made 30 of the 35 pages flagged).
- `overlay_blocking`: a layer, with text in it, that the page shows over its text. Shown:
  neither it nor an ancestor is hidden by its markup (`hidden`, `aria-hidden="true"`, an
  inline `display:none`, `visibility:hidden` or `opacity` under 0.05, a closed `<dialog>`, a
  `<template>` or `<noscript>`); the extension's capture leaves out what the browser does not
  render, so all it sends is shown. Over the text, one of: the browser capture saw it over
  the middle of the page (`OVERLAY_MARK`), unless it is no dialog and holds over half the
  page's text (a site that scrolls its whole page in a fixed box); it is `aria-modal="true"`
  and the markup displays it (an open `<dialog>`, or an inline display other than none, as a
  script writes when it opens a modal); or it is a dialog (`<dialog open>`, a dialog role,
  `aria-modal`) and the capture is sparse (the page shows little but the dialog). Names are
  no evidence: card links, caption layers, menus and closed popups are named overlay, popup
  or lightbox; nor is a dialog in fetched markup that nothing displays, which the site's CSS
  keeps closed until a script opens it (Bootstrap's `modal fade`, cookie notices' `-hidden`
  classes, menus' responsive dialogs). Before these rules the signal flagged 139 of the 602
  capture-dev pages and 67 of the labelled sample, all 67 false; now 0 and 0 (the sample has
  no true one: tests/test_capture_signals_overlay.py holds the shapes real overlays take).
  As the extension sends them (`bench/signal_counts.py --browser`: 566 of the pages in
  Chromium, without their external stylesheets) 100 before, 2 now: a newsletter modal drawn
  over the dimmed page, and a fixed header whose unstyled menus cover the window's middle.
- `consent_overlay`: an element named cookie, consent, gdpr, cmp, onetrust or cookiebot, or
  text about accepting cookies.
- `sparse_text`: the capture has fewer than 300 characters of text.
- `script_required`: the captured text is sparse and either the page's `<noscript>` asks to
  enable JavaScript, or its visible text is under 200 characters in an app shell (an empty
  `#root`/`#app`/`#__next` mount, or ten times more inline script than text). A `<noscript>`
  on a fully captured page is about a widget (comments, mostly): 16 of the 17 pages flagged
  in the sample.
- `captcha`: a captcha widget (recaptcha, hcaptcha, turnstile, cf-challenge) or a "verify you
  are human" text.
- `age_gate`: an element named age-gate or age-verification, or text asking to confirm an age.
- `list_page`: the list/feed/search fallback produced the capture.
- `thread_page`: DiscussionForumPosting markup or many repeated post/comment/reply items.
- `truncated`: the Markdown was cut to `max_chars`.
"""

from __future__ import annotations

import re
from typing import cast

from lxml import etree
from lxml.html import HtmlElement

SIGNALS = (
    "paywall_or_login",
    "overlay_blocking",
    "consent_overlay",
    "sparse_text",
    "script_required",
    "captcha",
    "age_gate",
    "list_page",
    "thread_page",
    "truncated",
)
_PAYWALL_NAMES = {"paywall", "premium", "regwall", "loginwall", "subscriber", "meter"}
_CONSENT_NAMES = {"cookie", "cookies", "consent", "gdpr", "cmp", "onetrust", "cookiebot"}
_AGE_NAMES = {"agegate", "age", "ageverification"}
_THREAD_NAMES = {"post", "comment", "reply", "message", "thread"}
_PAYWALL_TEXT = re.compile(
    r"(subscribe|log ?in|sign ?in|register) (now )?to (continue|keep) reading|"
    r"to (continue|keep) reading,? (please )?(subscribe|log ?in|sign ?in)|um weiterzulesen"
)
"""Prompts that say the text goes on behind a subscription or a login."""
_SUBSCRIBERS_ONLY = re.compile(
    r"exklusiv f[uü]r abonnenten|this (article|content|story) is (only )?for subscribers|"
    r"subscribers only|r[ée]serv[ée] aux abonn[ée]s|(exclusivo|s[oó]lo) para suscriptores|"
    r"riservato agli abbonati"
)
"""Labels: on a menu entry or a comment box as often as over a cut article, so a mark."""
_SUBSCRIBER_KEYS = ("subscri", "abonn", "suscri", "abbona")
_READ_ON = (
    r"weiter ?lesen|lesen sie weiter|continue reading|keep reading|read on|"
    r"rest of (this|the) (article|story)|lire la suite|seguir leyendo|continuar leyendo|"
    r"per continuare|continua a leggere|czytaj dalej|przeczytaj ca[lł]o[sś][cć]"
)
_ACCOUNT = (
    r"abonn|subscri|log ?in|sign ?in|anmeld|registr|zugang|access|acc[eè]s|acc[eé]d|compte|account|"
    r"suscri|cuenta|abbona|accedi|zaloguj|prenumer|dost[eę]p"
)
_READ_ON_PROMPT = re.compile(
    f"(?:{_READ_ON}).{{0,40}}?(?:{_ACCOUNT})|(?:{_ACCOUNT}).{{0,40}}?(?:{_READ_ON})", re.DOTALL
)
""""Read on" within a few words of an account word: "Möchten Sie weiterlesen? Ja. Ich bin
Abonnent", "Wählen Sie Ihren Zugang und lesen Sie weiter", "Pour lire la suite ... créez
votre compte". A bare "Weiterlesen" link under a teaser has no account word near it."""
_PROMPT_KEYS = (
    "weiterles", "weiter les", "weiterzules", "sie weiter", "reading", "read on", "rest of",
    "lire la suite", "leyendo", "continuare", "continua a leggere", "czytaj dalej",
    "przeczytaj",
)  # fmt: skip
"""Literals one of which every prompt holds: most pages hold none, and skip the scans."""
PROMPT_REACH = 300
"""Characters looked at on each side of a read-on word (whitespace included)."""
MAX_PROMPT_LOOKS = 40
MAX_NAMED_CHECKS = 20
"""Paywall-named elements whose text is read for a prompt (each read is one pass over it)."""
_CONSENT_TEXT = re.compile(
    r"(we|this (web)?site) uses? cookies|accept (all )?cookies|cookies? (akzeptieren|zulassen)|"
    r"wir verwenden cookies|utilizamos cookies|nous utilisons des cookies",
)
_CAPTCHA = re.compile(
    r"g-recaptcha|h-captcha|hcaptcha|cf-turnstile|cf-challenge|verify (that )?you are (a )?human|"
    r"are you a robot|i'?m not a robot",
)
_AGE_TEXT = re.compile(
    r"(are you|confirm (that )?you are|you must be) (over |at least )?(18|19|21)|"
    r"confirm your age|age verification|altersverifikation|bist du (über )?18",
)
_ENABLE_JS = re.compile(
    r"enable javascript|javascript (is )?(required|disabled)|javascript aktivieren", re.I
)
SPARSE_TEXT = 300
SCRIPT_REQUIRED_TEXT = 200
SCRIPT_HEAVY = 10
"""Inline script characters per visible one that mark an app shell."""
THREAD_ITEMS = 5
_APP_MOUNT = etree.XPath(
    "//*[@id='root' or @id='app' or @id='__next' or @id='__nuxt' or @id='___gatsby']"
    "[not(normalize-space())]"
)
_PROSE = etree.XPath(
    "/html/body//text()[not(ancestor::script or ancestor::style or ancestor::template"
    " or ancestor::noscript)]"
)
_TEASER_END = ("...", "\u2026", "[\u2026]", "[...]")


_NOT_FREE = re.compile(r'"isAccessibleForFree"\s*:\s*"?(false|False)')
_CAPTCHA_MARKERS = ("g-recaptcha", "h-captcha", "hcaptcha", "cf-turnstile", "cf-challenge")
_PHRASES = (
    ("captcha", ("robot", "human"), _CAPTCHA),
    ("consent_overlay", ("cookie",), _CONSENT_TEXT),
    (
        "age_gate",
        ("your age", "age verification", "altersverif", "are you", "you must be", "bist du"),
        _AGE_TEXT,
    ),
)
# Evidence that `settle` weighs against the captured text before it becomes a signal.
PAYWALL_PROMPT = "evidence:paywall_prompt"
PAYWALL_MARK = "evidence:paywall_mark"
NOSCRIPT_ASKS = "evidence:noscript_asks"
APP_SHELL = "evidence:app_shell"
SHOWN_DIALOG = "evidence:shown_dialog"
OVERLAY_MARK = "data-laika-overlay"
"""The attribute a capture in the browser (extension/lib/capture.js) puts on the layer the
reader saw over the middle of the page: the outermost fixed-position (or top-layer) box at
the viewport's centre. The page's own attributes of that name are not copied."""
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
_FAINT = 0.05


def page_text(tree: HtmlElement) -> str:
    """All text of the body in one C-level call (tags dropped, no separators added)."""
    text: str = tree.xpath("string(/html/body)") or tree.xpath("string(.)")
    return text


def markup_signals(tree: HtmlElement, raw_html: str) -> set[str]:
    """Signals and evidence only the raw page shows (read before pruning removes scripts and
    banners)."""
    found: set[str] = set()
    # literal tests first: a regex or a lowercased copy of a whole page costs real time
    if "isAccessibleForFree" in raw_html and _NOT_FREE.search(raw_html):
        found.add(PAYWALL_MARK)
    if any(marker in raw_html for marker in _CAPTCHA_MARKERS):  # class names: lowercase
        found.add("captcha")
    if "DiscussionForumPosting" in raw_html:
        found.add("thread_page")
    noscript = " ".join(n.text_content() for n in tree.iter("noscript"))
    if _ENABLE_JS.search(noscript):
        found.add(NOSCRIPT_ASKS)
    return found


def script_weight(tree: HtmlElement) -> int:
    """Characters of inline script: read before pruning removes the scripts."""
    return sum(len(script.text or "") for script in tree.iter("script"))


def has_app_mount(tree: HtmlElement) -> bool:
    """Whether an app's mount point (`#root`, `#app`, `#__next`, ...) is empty: asked only
    of a page with little text (the lookup visits every element)."""
    return bool(_APP_MOUNT(tree))


def phrase_signals(
    visible: str, *, script_chars: int = 0, tree: HtmlElement | None = None
) -> set[str]:
    """Signals from the words of the pruned page (no script or style text to wade through;
    banners that pruning removed by name were already seen by `NamedSignals`); `tree`, the
    pruned page, is looked at for an app shell when the text is short."""
    found: set[str] = set()
    lowered = visible.lower()
    for signal, keywords, pattern in _PHRASES:
        # a literal keyword check first: even on visible text a regex scan costs time
        if any(word in lowered for word in keywords) and pattern.search(lowered):
            found.add(signal)
    if is_paywall_prompt(lowered):
        found.add(PAYWALL_PROMPT)
    elif any(key in lowered for key in _SUBSCRIBER_KEYS) and _SUBSCRIBERS_ONLY.search(lowered):
        found.add(PAYWALL_MARK)
    shown = len("".join(visible.split()))
    if shown < SCRIPT_REQUIRED_TEXT and (
        script_chars >= SCRIPT_HEAVY * max(shown, 1) or (tree is not None and has_app_mount(tree))
    ):
        found.add(APP_SHELL)
    return found


def is_paywall_prompt(lowered: str) -> bool:
    """Whether lowercased page text asks the reader to subscribe or log in to read on.

    Only the text around each read-on word is looked at (at most MAX_PROMPT_LOOKS of them,
    PROMPT_REACH characters each way), with its whitespace runs as one space: pages indent
    the words of one prompt apart. A page's whole text is never copied or scanned twice."""
    looks = 0
    for key in _PROMPT_KEYS:
        start = lowered.find(key)
        while start >= 0 and looks < MAX_PROMPT_LOOKS:
            looks += 1
            window = lowered[max(0, start - PROMPT_REACH) : start + len(key) + PROMPT_REACH]
            squashed = " ".join(window.split())
            if _PAYWALL_TEXT.search(squashed) or _READ_ON_PROMPT.search(squashed):
                return True
            start = lowered.find(key, start + len(key))
    return False


def settle(found: set[str], captured_text: str, *, sparse: bool) -> set[str]:
    """`found` with its evidence weighed against what was captured: the signals it shows,
    and no evidence left."""
    evidence = {name for name in found if name.startswith("evidence:")}
    settled = found - evidence
    if PAYWALL_PROMPT in evidence or (
        PAYWALL_MARK in evidence and captured_text.rstrip().endswith(_TEASER_END)
    ):
        settled.add("paywall_or_login")
    if sparse and evidence & {NOSCRIPT_ASKS, APP_SHELL}:
        settled.add("script_required")
    if sparse and SHOWN_DIALOG in evidence:
        settled.add("overlay_blocking")
    return settled


class NamedSignals:
    """Signals from element names, collected during the prune pass (`prune(observe=...)`)."""

    def __init__(self) -> None:
        self.found: set[str] = set()
        self._thread_items = 0
        self._named_checks = 0
        self._page_text_chars: int | None = None
        self._shown = Shown()

    def __call__(self, element: HtmlElement, names: frozenset[str]) -> None:
        if "overlay_blocking" not in self.found:
            self._overlay(element)
        if not names:
            return
        if names & _PAYWALL_NAMES:
            self._paywall(element)
        if names & _CONSENT_NAMES:
            self.found.add("consent_overlay")
        if names & _AGE_NAMES and names & {"gate", "verification", "agegate"}:
            self.found.add("age_gate")
        if names & _THREAD_NAMES and element.tag in ("article", "li", "div"):
            self._thread_items += 1
            if self._thread_items >= THREAD_ITEMS * 4:
                self.found.add("thread_page")

    def _overlay(self, element: HtmlElement) -> None:
        """A layer over the page, when the page shows it: `overlay_blocking` when the
        extension saw it over the page's middle (and it is not the page itself: a site that
        scrolls its whole text in a fixed box) or the markup displays a modal dialog; else a
        shown dialog is evidence, which `settle` counts only on a sparse capture.

        An element's text is read only when it could change the outcome, and each read is
        one pass over the element: the cost is bounded by the page's elements times its
        depth, which the parser caps (256)."""
        modal = (element.get("aria-modal") or "").strip().lower() == "true"
        dialog = modal or is_dialog(element)
        marked = element.get(OVERLAY_MARK) is not None
        blocks = (marked and dialog) or (modal and displayed(element))
        if not (blocks or marked or (dialog and SHOWN_DIALOG not in self.found)):
            return
        if not self._shown(element):
            return
        text = _squashed_length(element.text_content())
        if not text:
            return
        if blocks or (marked and 2 * text <= self._page_chars(element)):
            self.found.add("overlay_blocking")
        elif dialog:
            self.found.add(SHOWN_DIALOG)

    def _page_chars(self, element: HtmlElement) -> int:
        """Characters of the page's text (scripts and styles left out), read once."""
        if self._page_text_chars is None:
            texts = cast("list[str]", _PROSE(element))
            self._page_text_chars = sum(_squashed_length(text) for text in texts)
        return self._page_text_chars

    def _paywall(self, element: HtmlElement) -> None:
        """A paywall-named element marks the page; its own words may be the prompt (they
        are pruned with it, so the visible text never shows them)."""
        self.found.add(PAYWALL_MARK)
        self._named_checks += 1
        if self._named_checks <= MAX_NAMED_CHECKS and is_paywall_prompt(
            element.text_content().lower()
        ):
            self.found.add(PAYWALL_PROMPT)


def is_dialog(element: HtmlElement) -> bool:
    """A dialog by its markup: a `<dialog>`, a dialog role, or `aria-modal="true"`."""
    if element.tag == "dialog" or (element.get("aria-modal") or "").strip().lower() == "true":
        return True
    return not _DIALOG_ROLES.isdisjoint((element.get("role") or "").lower().split())


def hides_itself(element: HtmlElement) -> bool:
    """Whether the element's own markup keeps it (and all it holds) off the screen: the
    `hidden` attribute (not `until-found`, which find-in-page opens), `aria-hidden="true"`,
    an inline `display:none`, `visibility:hidden|collapse` or `opacity` under 0.05, a
    `<dialog>` without `open`, a `<template>` or `<noscript>` (never rendered when script
    runs). The extension's capture drops such elements itself; a fetched page keeps them."""
    tag = element.tag
    if tag in ("template", "noscript") or (tag == "dialog" and element.get("open") is None):
        return True
    get = element.get
    hidden = get("hidden")
    if hidden is not None and hidden.strip().lower() != "until-found":
        return True
    if (get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = get("style")
    return bool(style) and _style_hides(style)


def displayed(element: HtmlElement) -> bool:
    """Whether the markup itself displays the element: an open `<dialog>`, or an inline
    `display` other than none (what a script writes when it opens a modal)."""
    if element.tag == "dialog":
        return element.get("open") is not None
    display = _inline(element.get("style") or "").get("display")
    return display is not None and display != "none"


def _style_hides(style: str) -> bool:
    values = _inline(style)
    if values.get("display") == "none" or values.get("visibility") in ("hidden", "collapse"):
        return True
    try:
        return float(values.get("opacity", "1")) < _FAINT
    except ValueError:
        return False


def _inline(style: str) -> dict[str, str]:
    """An inline style's declarations, lowercased, `!important` dropped (one split, no
    regex: linear in the attribute)."""
    values: dict[str, str] = {}
    for declaration in style.lower().split(";"):
        name, colon, value = declaration.partition(":")
        if colon:
            values[name.strip()] = value.replace("!important", "").strip()
    return values


def _squashed_length(text: str) -> int:
    return len("".join(text.split()))


class Shown:
    """Whether an element is shown as far as the markup says: neither it nor an ancestor
    `hides_itself`. Each element's answer is kept, so asking about many elements of one
    page reads each element once."""

    def __init__(self) -> None:
        self._known: dict[HtmlElement, bool] = {}

    def __call__(self, element: HtmlElement) -> bool:
        chain: list[HtmlElement] = []
        node: HtmlElement | None = element
        while node is not None and node not in self._known:
            chain.append(node)
            node = node.getparent()
        shown = self._known[node] if node is not None else True
        for item in reversed(chain):
            shown = shown and not hides_itself(item)
            self._known[item] = shown
        return shown


def ordered(found: set[str]) -> list[str]:
    return [name for name in SIGNALS if name in found]
