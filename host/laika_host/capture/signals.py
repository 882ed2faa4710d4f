"""Page signals: facts about the page a reader (or a model) should know before trusting it.

Triggers:

- `paywall_or_login`: JSON-LD `isAccessibleForFree: false`; an element named paywall, premium,
  regwall, loginwall or subscriber; or text asking to subscribe or log in to keep reading.
- `overlay_blocking`: an `aria-modal="true"` or `role=dialog` element, or one named overlay,
  interstitial, popup or lightbox, with text in it.
- `consent_overlay`: an element named cookie, consent, gdpr, cmp, onetrust or cookiebot, or
  text about accepting cookies.
- `sparse_text`: the capture has fewer than 300 characters of text.
- `script_required`: the page's text is under 200 characters and it loads scripts, or its
  `<noscript>` asks to enable JavaScript.
- `captcha`: a captcha widget (recaptcha, hcaptcha, turnstile, cf-challenge) or a "verify you
  are human" text.
- `age_gate`: an element named age-gate or age-verification, or text asking to confirm an age.
- `list_page`: the list/feed/search fallback produced the capture.
- `thread_page`: DiscussionForumPosting markup or many repeated post/comment/reply items.
- `truncated`: the Markdown was cut to `max_chars`.
"""

from __future__ import annotations

import re

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
_OVERLAY_NAMES = {"overlay", "interstitial", "popup", "lightbox"}
_CONSENT_NAMES = {"cookie", "cookies", "consent", "gdpr", "cmp", "onetrust", "cookiebot"}
_AGE_NAMES = {"agegate", "age", "ageverification"}
_THREAD_NAMES = {"post", "comment", "reply", "message", "thread"}
_PAYWALL_TEXT = re.compile(
    r"(subscribe|log ?in|sign ?in|register) (now )?to (continue|keep) reading|"
    r"to (continue|keep) reading,? (please )?(subscribe|log ?in|sign ?in)|"
    r"(jetzt|bitte) (abonnieren|anmelden)|um weiterzulesen|exklusiv f[uü]r abonnenten|"
    r"this (article|content) is for subscribers|already a subscriber",
)
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
THREAD_ITEMS = 5


_NOT_FREE = re.compile(r'"isAccessibleForFree"\s*:\s*"?(false|False)')
_CAPTCHA_MARKERS = ("g-recaptcha", "h-captcha", "hcaptcha", "cf-turnstile", "cf-challenge")
_PHRASES = (
    ("captcha", ("robot", "human"), _CAPTCHA),
    (
        "paywall_or_login",
        ("subscri", "abonn", "log in", "login", "sign in", "register", "weiterzulesen"),
        _PAYWALL_TEXT,
    ),
    ("consent_overlay", ("cookie",), _CONSENT_TEXT),
    (
        "age_gate",
        ("your age", "age verification", "altersverif", "are you", "you must be", "bist du"),
        _AGE_TEXT,
    ),
)


def page_text(tree: HtmlElement) -> str:
    """All text of the body in one C-level call (tags dropped, no separators added)."""
    text: str = tree.xpath("string(/html/body)") or tree.xpath("string(.)")
    return text


def markup_signals(tree: HtmlElement, raw_html: str) -> set[str]:
    """Signals only the raw page shows (read before pruning removes scripts and banners)."""
    found: set[str] = set()
    # literal tests first: a regex or a lowercased copy of a whole page costs real time
    if "isAccessibleForFree" in raw_html and _NOT_FREE.search(raw_html):
        found.add("paywall_or_login")
    if any(marker in raw_html for marker in _CAPTCHA_MARKERS):  # class names: lowercase
        found.add("captcha")
    if "DiscussionForumPosting" in raw_html:
        found.add("thread_page")
    noscript = " ".join(n.text_content() for n in tree.iter("noscript"))
    if _ENABLE_JS.search(noscript):
        found.add("script_required")
    return found


def phrase_signals(visible: str, *, loads_scripts: bool) -> set[str]:
    """Signals from the words of the pruned page (no script or style text to wade through;
    banners that pruning removed by name were already seen by `NamedSignals`)."""
    found: set[str] = set()
    lowered = visible.lower()
    for signal, keywords, pattern in _PHRASES:
        # a literal keyword check first: even on visible text a regex scan costs time
        if any(word in lowered for word in keywords) and pattern.search(lowered):
            found.add(signal)
    if loads_scripts and len("".join(visible.split())) < SCRIPT_REQUIRED_TEXT:
        found.add("script_required")
    return found


class NamedSignals:
    """Signals from element names, collected during the prune pass (`prune(observe=...)`)."""

    def __init__(self) -> None:
        self.found: set[str] = set()
        self._thread_items = 0

    def __call__(self, element: HtmlElement, names: frozenset[str]) -> None:
        role = element.get("role")
        is_dialog = element.get("aria-modal") == "true" or role in ("dialog", "alertdialog")
        if is_dialog and element.text_content().strip():
            self.found.add("overlay_blocking")
        if not names:
            return
        if names & _PAYWALL_NAMES:
            self.found.add("paywall_or_login")
        if names & _OVERLAY_NAMES and element.text_content().strip():
            self.found.add("overlay_blocking")
        if names & _CONSENT_NAMES:
            self.found.add("consent_overlay")
        if names & _AGE_NAMES and names & {"gate", "verification", "agegate"}:
            self.found.add("age_gate")
        if names & _THREAD_NAMES and element.tag in ("article", "li", "div"):
            self._thread_items += 1
            if self._thread_items >= THREAD_ITEMS * 4:
                self.found.add("thread_page")


def ordered(found: set[str]) -> list[str]:
    return [name for name in SIGNALS if name in found]
