"""The `script_required`, `paywall_or_login` and `overlay_blocking` signals, measured on
labelled capture-dev pages.

`tests/data/signal_labels.json` holds 125 pages read by hand. The first 80: every page where
script_required or paywall_or_login fired before their measure (50, `selected: fired`) and 30
others picked by a fixed hash of their name (`random`), each with whether the captured HTML
really needs script / really sits behind a paywall or login, and why. Before: script_required
fired on 17 (precision 0.06, recall 1.0), paywall_or_login on 35 (precision 0.14, recall 1.0):
comment widgets' `<noscript>`, menu links named premium and publishers' not-free marks on
pages whose HTML holds the whole article.

`overlay_blocking` (issue 25) is judged on all 125 (`overlay_blocking`, `overlay_reason`):
the 45 added (`overlay_fired`) are the 25 flagged pages with a dialog that no attribute or
inline style hides, and 20 more flagged pages by a fixed hash of their name. A page counts
true when its markup shows a modal layer open over the text (nothing hides it, not even a
class that the site's CSS keeps closed, and it is no menu, search box, share widget, caption
or lightbox); a consent box that the site's script opens on a first visit counts false here
(the HTML holds the whole article; `consent_overlay` names the box), and the reason says so.
Before: the signal flagged 67 of the 125 (139 of the 602 pages), all false; the sample has no
true one, so what it must keep is checked on the shapes real overlays take
(tests/test_capture_signals_overlay.py).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from laika_host.capture import capture_html
from laika_host.capture.signals import PAYWALL_MARK, is_paywall_prompt, phrase_signals, settle

from support import capture_dev_corpus

LABELS = Path(__file__).resolve().parent / "data" / "signal_labels.json"
FLOORS = {  # measured after: 1.0 and 1.0 for each (the floors leave room for one page)
    "script_required": {"precision": 0.5, "recall": 1.0},
    "paywall_or_login": {"precision": 0.8, "recall": 0.8},
}


def labels() -> dict[str, dict[str, object]]:
    return dict(json.loads(LABELS.read_text(encoding="utf-8")))


def test_the_sample_is_what_its_docstring_says() -> None:
    sample = labels()
    assert len(sample) >= 60
    assert sum(entry["selected"] == "fired" for entry in sample.values()) == 50
    assert all(str(entry["reason"]).strip() for entry in sample.values())
    assert sum(entry["selected"] == "overlay_fired" for entry in sample.values()) == 45
    assert all(str(entry["overlay_reason"]).strip() for entry in sample.values())
    assert all(isinstance(entry["overlay_blocking"], bool) for entry in sample.values())
    for signal in FLOORS:
        assert any(entry[signal] for entry in sample.values()), signal  # positives to recall


@cache
def _signals(corpus: Path) -> dict[str, list[str]]:
    return {name: capture_html((corpus / "html" / name).read_bytes()).signals for name in labels()}


@pytest.mark.corpus
@pytest.mark.parametrize("signal", FLOORS)
def test_signal_precision_and_recall_stay_above_their_floors(signal: str) -> None:
    found = _signals(capture_dev_corpus())
    truth = {name: bool(entry[signal]) for name, entry in labels().items()}
    fired = {name for name, signals in found.items() if signal in signals}
    true = {name for name, value in truth.items() if value}
    precision = len(fired & true) / len(fired) if fired else 1.0
    recall = len(fired & true) / len(true)
    wrong = sorted(fired - true) + sorted(true - fired)
    assert precision >= FLOORS[signal]["precision"], (precision, wrong)
    assert recall >= FLOORS[signal]["recall"], (recall, wrong)


MAX_FALSE_OVERLAYS = 1
"""Labelled-false pages overlay_blocking may flag: measured 0 (67 before); room for one."""


@pytest.mark.corpus
def test_overlay_blocking_flags_no_page_whose_markup_shows_no_overlay() -> None:
    found = _signals(capture_dev_corpus())
    false = {name for name, entry in labels().items() if not entry["overlay_blocking"]}
    flagged = sorted(name for name in false if "overlay_blocking" in found[name])
    assert len(flagged) <= MAX_FALSE_OVERLAYS, flagged


@pytest.mark.parametrize(
    "text",
    [
        "möchten sie weiterlesen? ja. ich bin abonnent. anmelden",
        "wählen sie ihren zugang und lesen sie weiter",
        "pour lire la suite et accéder gratuitement à 3 articles, créez votre compte",
        "subscribe to continue reading",
        "kostenlos registrieren und weiterlesen",
    ],
)
def test_read_on_prompts(text: str) -> None:
    assert is_paywall_prompt(text)


@pytest.mark.parametrize(
    "text",
    [
        "weiterlesen über sieben tipps für den winter",  # a teaser's link
        "jetzt abonnieren: der newsletter zur sitzung",  # a newsletter
        "log in to comment",
        "premium downloads",
    ],
)
def test_what_is_no_read_on_prompt(text: str) -> None:
    assert not is_paywall_prompt(text)


def test_a_subscribers_only_label_is_a_mark_not_a_prompt() -> None:
    """On a menu entry ("Solo para suscriptores") or a comment box as often as over a cut
    article."""
    for text in (
        "This article is for subscribers only.",
        "Comentar es exclusivo para suscriptores",
    ):
        assert phrase_signals(text) == {PAYWALL_MARK}


def test_a_mark_needs_a_cut_text_and_noscript_a_sparse_capture() -> None:
    mark, noscript = {"evidence:paywall_mark"}, {"evidence:noscript_asks"}
    assert settle(mark, "The whole article, to its last sentence.", sparse=False) == set()
    assert settle(mark, "The lead, and then the text breaks off …", sparse=False) == {
        "paywall_or_login"
    }
    assert settle(noscript, "A long article. " * 40, sparse=False) == set()
    assert settle(noscript, "Loading", sparse=True) == {"script_required"}
