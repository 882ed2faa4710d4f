"""Block-level boilerplate that survives extraction, removed from the extracted fragment.

Measured on capture-dev (`bench/capture_quality.py`), on top of trafilatura: "read more" cue
lines (+0.5 F1 points), follow-us lines, photo credits, update stamps and comment counters
(+0.4), and link-only headings (teasers to other articles). Each rule is a general pattern in
several languages, never a site-specific string.

The patterns that are searched anywhere in a block (support-us appeals, affiliate notes) are
slow in Python's `re`: case-insensitive alternatives offer no prefix to scan for, so every
position tries every alternative (300 us for one 160-character paragraph; half the capture
time of a long article). Each comes with words, one of which every match holds (checked
against the pattern's structure by tests/test_capture_rules.py): a block holding none of them
is not searched at all (`_holds`), which gives the same answers.
"""

from __future__ import annotations

import re

from .dom import Element, drop_tree, visible_text

BLOCK_TAGS = ("p", "li", "h2", "h3", "h4", "h5", "h6", "blockquote", "dd", "dt", "figcaption", "tr")
_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})

READ_MORE = re.compile(
    r"^(lea (m[aá]s|tambi[eé]n)|lee (m[aá]s|tambi[eé]n)|lea|mire|mira|ver tambi[eé]n|"
    r"vea tambi[eé]n|read (more|also)|see also|also read|related( articles| posts| stories)?|"
    r"more on this|recommended|you may also like|lesen sie (auch|mehr)|"
    r"mehr (zum thema|dazu|lesen)|weiterlesen|zum weiterlesen|"
    r"weitere (artikel|beitr[aä]ge|infos|informationen|themen)|schon gelesen|"
    r"empfohlene beitr[aä]ge|das (k[oö]nnte|thema k[oö]nnte) (sie|dich) (auch )?interessieren|"
    r"auch interessant|vorschau auf den n[aä]chsten|czytaj (te[zż]|tak[zż]e|wi[eę]cej)|"
    r"zobacz (te[zż]|tak[zż]e)|lire aussi|[aà] lire aussi|voir aussi|leggi anche|"
    r"notas relacionadas|temas|beitr[aä]ge aus dem forum|weitere aktuelle themen|"
    r"nichts mehr vers[aä]umen)\b",
    re.IGNORECASE,
)
FOLLOW_US = re.compile(
    r"^(follow|folgen sie|folge uns|s[ií]guenos|zapraszamy|suivez|like us|join us)\b.*"
    r"\b(twitter|facebook|instagram|telegram|tiktok|youtube|linkedin|subskrypcj|newsletter|abo)",
    re.IGNORECASE,
)
CREDIT = re.compile(
    r"(^\(?(credit|foto|fotos|bild|bilder|photo|image|quelle|source|copyright)\s*:|©)",
    re.IGNORECASE,
)
PAGE_META = re.compile(
    r"^((letzte )?(änderung|aktualisiert|updated|last updated|zuletzt aktualisiert|stand)\b|"
    r"(keine )?kommentare\b|view comments|kommentare insgesamt|kontakt:?$|"
    r"ansprechpartner(in)?( zum thema)?:?$|originalpublikation$|"
    r".*\b(created|last modified|zuletzt ge[aä]ndert)\b.*\d{4})",
    re.IGNORECASE,
)
PAGINATION = re.compile(
    r"^(es werden|showing|zeige|mostrando|affichage)\b.*\b\d+\b.*\b(von|of|de|sur)\b.*\d+",
    re.IGNORECASE,
)
SUPPORT_US = re.compile(
    r"(support (our|us|independent)|would you consider supporting|we need your help|"
    r"unterst[uü]tze (uns|unsere|[A-ZÄÖÜ]\w+ )|unterst[uü]tzen sie (uns|unsere)|bezahlschranke|"
    r"jetzt (spenden|abonnieren|unterst[uü]tzen)|become a (member|patron|supporter)|"
    r"hazte (miembro|socio)|werde (mitglied|unterst[uü]tzer)|devenez (membre|abonn)|"
    r"hacemos periodismo|apoya (nuestro|el) periodismo|"
    r"^\W*(soutenez|wspieraj|donate)\b|\bsoutenez[- ](nous|notre|nos)\b|"
    r"\bwspieraj(cie)? (nas|niezależn)|\bdonate (now|today|here|to us|to support)\b|"
    r"\bspenden sie\b|patreon\.com|steadyhq\.com)",
    re.IGNORECASE,
)
SUPPORT_US_WORDS = (
    "support", "your help", "unterst", "bezahlschranke", "jetzt", "become a", "hazte", "werde ",
    "devenez", "periodismo", "soutenez", "wspieraj", "patreon", "steadyhq", "donate", "spenden",
)  # fmt: skip
"""Every match of SUPPORT_US holds one of these, matched without case. A bare "donate" or
"spenden" is a reader's appeal only where a block opens with it or it asks ("donate now",
"spenden Sie"): "people donate blood" in an article's last paragraphs is the article."""
AFFILIATE = re.compile(
    r"(we (may )?(earn|receive|get) (a |an )?(small )?(affiliate )?commission|"
    r"affiliate (links?|commissions?|partners(hips?)?)|as an amazon associate|\(paid link\)|"
    r"(post|article|page|story) (contains|may contain|includes) (affiliate|sponsored|paid)|"
    r"if you (buy|purchase|click)( something| anything)? (through|via|from) (our|these|the) link|"
    r"save hundreds|\bsave (up to )?[$£€] ?\d|"
    r"add (the )?(ingredients|items?|it|them|this) to (your )?(basket|cart|bag)|"
    r"sponsored (content|post)|paid (content|partnership|post)|"
    r"(beitrag|artikel|post|video) (enthält|beinhaltet) (werbung|affiliate|provision|werbe)|"
    r"(in )?(kooperation|zusammenarbeit) mit [^.]{1,60} entstanden|"
    r"entstand in (kooperation|zusammenarbeit) mit|affiliate-links?|provisions-?links?|"
    r"gesponserte[nr]? (marketing-)?inhalt|contenido patrocinado|enlaces? de afiliad|"
    r"liens? affili|linki? afiliacyjn|artykuł sponsorowany)",
    re.IGNORECASE,
)
"""Affiliate, advertising and shopping disclosures ("We may earn a commission", "Dieser
Beitrag enthält Werbung", "Add the ingredients to your basket"): the shop's words, not the
article's, wherever they stand."""
AFFILIATE_WORDS = (
    "commission", "affili", "afilia", "amazon", "paid", "contain", "include", "if you", "save",
    "basket", "cart", "bag", "sponsor", "gesponsert", "werb", "entstand", "provision",
    "patrocinad",
)  # fmt: skip
"""Every match of AFFILIATE holds one of these, matched without case."""
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f")
"""The only characters `re.IGNORECASE` matches to an ASCII letter that `str.lower` does not
turn into that letter (U+0130 and U+0131, capital dotted and small dotless I, to i; U+017F,
long s, to s; tests/test_capture_rules.py checks every code point): a text holding one is
always searched."""
MAX_AFFILIATE = 300
MAX_PAGINATION = 120
MIN_TEASER = 25
MAX_SUPPORT_US = 700
_LEADING_PUNCTUATION = re.compile(r"^[\W_]+")
MAX_READ_MORE = 250
MAX_FOLLOW_US = 300
MAX_CREDIT = 120
MAX_PAGE_META = 80
LINK_ONLY = 0.9


def _text(element: Element) -> str:
    return visible_text(element)


def _link_share(element: Element, length: int) -> float:
    linked = sum(len(visible_text(a)) for a in element.iter("a"))
    return linked / length if length else 0.0


def _holds(text: str, pattern: re.Pattern[str], words: tuple[str, ...]) -> bool:
    """`pattern.search(text) is not None`, where every match of `pattern` (case-insensitive)
    holds one of `words` (lowercase ASCII): the search runs only when one of them is there."""
    if text.isascii() or not any(char in text for char in _FOLDS_TO_ASCII):
        lowered = text.lower()
        if not any(word in lowered for word in words):
            return False
    return pattern.search(text) is not None


def is_boilerplate_block(element: Element, *, in_tail: bool = False) -> bool:
    """A leftover block; `in_tail`: it sits in the second half of the content, where the
    "support us" appeals live (the same words mid-article are more likely content)."""
    text = _text(element)
    length = len(text)
    if not length:
        return False
    bare = _LEADING_PUNCTUATION.sub("", text) if length < MAX_FOLLOW_US else text
    return (
        (length < MAX_READ_MORE and (READ_MORE.match(text) or READ_MORE.match(bare)) is not None)
        or (length < MAX_PAGINATION and PAGINATION.match(bare) is not None)
        or (in_tail and length < MAX_SUPPORT_US and _holds(text, SUPPORT_US, SUPPORT_US_WORDS))
        or (length < MAX_FOLLOW_US and FOLLOW_US.match(bare) is not None)
        or (length < MAX_AFFILIATE and _holds(text, AFFILIATE, AFFILIATE_WORDS))
        or (length < MAX_CREDIT and CREDIT.search(text) is not None)
        or (length < MAX_PAGE_META and PAGE_META.match(text) is not None)
        or (element.tag in _HEADINGS and _link_share(element, length) > LINK_ONLY)
        or (text.startswith((">>", "»")) and _link_share(element, length) > LINK_ONLY)
        or (
            in_tail
            and element.tag in ("p", "li")
            and length > MIN_TEASER
            and _link_share(element, length) > LINK_ONLY
        )
    )


def remove_boilerplate_blocks(root: Element) -> int:
    """Drop outermost blocks that are boilerplate; returns how many."""
    outermost = [
        block
        for block in root.iter(*BLOCK_TAGS)
        if not any(a.tag in BLOCK_TAGS for a in block.iterancestors())
    ]
    half = len(outermost) // 2
    doomed = [
        block
        for index, block in enumerate(outermost)
        if is_boilerplate_block(block, in_tail=index >= half)
    ]
    for block in doomed:
        drop_tree(block)
    return len(doomed)
