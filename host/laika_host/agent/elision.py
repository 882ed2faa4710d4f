"""What an ellipsis in a quote may leave out of its source, and where a quote's parts are.

An ellipsis is honest when what it leaves out is a whole unit whose loss leaves the kept
words meaning what they meant. So the words between two kept parts (the gap) must be:

- at least MIN_GAP_WORDS words (a quote without one of its words is a changed quote) and at
  most MAX_GAP_WORDS, inside one paragraph;
- whole clauses or whole sentences: the gap starts and ends at a clause or sentence boundary
  of the source (`,` `;` `:` a dash or a bracket, or `.` `!` `?`, each with space around; a
  line break without one may be a wrap inside a sentence, so it is no boundary), and a gap
  that holds a sentence boundary starts and ends at one. So parts
  of two sentences are never spliced into one, and a subject is never joined to another
  clause's object;
- what a gap may hide, the rule (issue 24): a gap may hide only what the kept words do not
  lean on.
  1. No gap hides a negation, restriction or contrast (`not`, `n't`, `never`, `without`,
     `failed`, `only`, `except`, `but`, `however`, `although`, `whereas`, `kein`, `ne`/`pas`,
     `不`...), a condition (`if`, `unless`, `when`, `whether`, `provided`, `until`, `wenn`,
     `si`...) or an attribution (`according to`, `said`, `says`, `claim`, `argued`,
     `reportedly`, `laut`, `selon`, `según`...). Each sets whether, when or on whose word the
     kept words hold: without it the quote asserts what the source denied, restricted, made
     conditional or only reported ("the drug, critics claim, causes harm").
  2. Inside a sentence (a gap that is not whole sentences) the gap must moreover be an aside
     that asserts nothing of its own: a parenthetical, an appositive or adjective phrase, a
     list item, or a relative clause opened by `who`, `whom`, `whose`, `which` or `where`.
     So it holds no number (it measures the claim: "rose, by 40%, ..."), no comparison
     (`more`, `above`, `before`...: it may be what relates the kept parts, `rises … 3 metres`
     without `above`) and no clause with its own finite verb outside such a relative clause:
     that is a second claim, and the kept words around it would join a subordinate clause to
     another clause's predicate ("As incomes rise … the pollution decreases again" hiding "the
     amount of pollution produced increases").
  3. Whole sentences (a gap that starts and ends at sentence boundaries) may hold numbers,
     comparisons and verbs: each kept sentence stays whole, so what it says does not depend
     on them; rule 1 still holds.
  A finite verb is known by a word list (`_FINITE_TEXT`: auxiliaries, modals and copulas in
  English, German, French, Spanish, Italian, Portuguese and Dutch, the subject pronouns `I`
  `he` `she` `we` `they`, English irregular past forms, and the `-s` and `-ed` forms of
  common English verbs; an `-ed` form opening the gap is read as a participle phrase, "built
  in stone"). A verb the list lacks is not seen, so a clause written only with such verbs
  may still be left out; a word that is also a noun (`increases`) counts as a verb, so some
  honest asides are refused: refusing a true quote costs a flag, verifying a changed one a
  false citation.

Each kept part holds at least MIN_PART_WORDS words. Every check is a table lookup over the
source's words, computed once per source, and a gap is at most MAX_GAP_WORDS long: finding a
quote's parts stays linear in the source.
"""

from __future__ import annotations

import re
from collections.abc import Container, Sequence
from typing import Final

from .words import WordIndex

MIN_PART_WORDS: Final = 3
MIN_GAP_WORDS: Final = 2
MAX_GAP_WORDS: Final = 40
MAX_PARTS: Final = 8

NONE, CLAUSE, SENTENCE, PARAGRAPH = 0, 1, 2, 3
"""How strongly the text between two words separates them."""

_PARAGRAPH: Final = re.compile(r"\n[^\S\n]*\n|[\u2029\f\v]")
_SENTENCE_ALONE: Final = re.compile(
    r"[\u3002\uff01\uff1f\uff61\u061f\u06d4\u0964\u0965]"
)  # a full stop of a script written without spaces; a bare line break may be a soft wrap
_SENTENCE_SPACED: Final = re.compile(r"[.!?…‼⁇⁈⁉]")
_CLAUSE_ALONE: Final = re.compile(
    r"[\u3001\u3008-\u3011\u3014-\u301b\uff08\uff09\uff0c\uff1a\uff1b]"
)  # ideographic and full-width commas, colons and brackets
_CLAUSE_SPACED: Final = re.compile(r"[,;:()\[\]{}\-\u2010-\u2015\u2212\u2e3a\u2e3b\ufe58]")
_SPACE: Final = re.compile(r"\s")
_KNOWN_SEPARATIONS: Final = 4096
_APOSTROPHES: Final = ("'", "\u2019")

FREE, RELATIVE, PARTICIPLE, VERB, NUMBER, COMPARISON = 0, 1, 2, 3, 4, 5
CONDITION, ATTRIBUTION, POLARITY = 6, 7, 8
"""What leaving a word out may do, from nothing to reversing a claim. From COMPARISON down
to RELATIVE a word may be left out only with whole sentences (`RELATIVE` opens a relative
clause, which may hold a finite verb; `PARTICIPLE` is an `-ed` form, a finite verb unless it
opens the gap); CONDITION and up never."""

_BLOCKED: Final = (CONDITION, ATTRIBUTION, POLARITY)
_WHAT: Final = {
    POLARITY: "a negation, restriction or contrast",
    CONDITION: "a condition",
    ATTRIBUTION: "an attribution (whose word the kept words are)",
    COMPARISON: "a comparison",
    NUMBER: "a number",
    VERB: "a finite verb (a clause of its own)",
    PARTICIPLE: "a finite verb (a clause of its own)",
}

_POLARITY_TEXT: Final = """
    not no nor never neither none nothing nobody noone nowhere cannot without hardly barely
    scarcely seldom rarely except excluding unless absent false instead unlike despite only
    but however although though yet whereas while whilst albeit nevertheless nonetheless
    notwithstanding conversely otherwise
    nicht nie niemals nichts niemand nirgends ohne weder ausser außer aber jedoch nur obwohl
    obgleich trotz dennoch während
    ne n pas jamais rien aucun aucune sans ni non guère sauf mais seulement plus cependant
    pourtant malgré
    nunca jamás sin nada nadie ningún ninguno ninguna tampoco excepto salvo pero solo sólo
    aunque mientras
    mai senza nessuno nessuna niente nulla né tranne ma però tuttavia benché sebbene mentre
    não sem nem nenhum nenhuma ninguém exceto só apenas embora
    niet geen nooit zonder niets noch behalve maar alleen echter hoewel
    inte icke ej aldrig ingen inget inga utan ikke aldri uden intet
    nie nigdy bez żaden ani nikdy ei ilman değil yok hiç
    не нет никогда без ни ничего никто лишь только
    لا لم لن ليس غير بدون לא אין בלי नहीं न बिना
"""
_POLARITY_WORDS: Final = frozenset(_POLARITY_TEXT.split())
_POLARITY_PREFIXES: Final = (
    "kein", "nirgend", "ningun", "nessun", "nenhum", "fail", "lack", "reject", "refus",
    "deny", "deni", "negat",
)  # fmt: skip
_NEGATING_CHARACTERS: Final = frozenset("不没沒无無非未否勿莫")
"""Scripts written without spaces: a negating character anywhere in the run of letters."""

_CONDITION_TEXT: Final = """
    if unless when whenever whether provided providing assuming until till lest once
    wenn falls sofern ob bis si lorsque quand pourvu cuando quando purché caso
    indien wanneer tenzij mits jeśli если
"""
_CONDITION_WORDS: Final = frozenset(_CONDITION_TEXT.split())

_ATTRIBUTION_TEXT: Final = """
    according said say says saying told tell tells telling stated claim claims claimed
    claiming argue argues argued arguing believe believes believed alleged alleges allegedly
    reported reportedly reports wrote writes suggest suggests suggested insist insists
    insisted contend contends contended assert asserts asserted noted explained explains
    added adds warned warns announced confirmed confirms admitted acknowledged estimated
    predicted predicts thinks think found find finds show shows showed shown concluded
    apparently supposedly purportedly seemingly ostensibly critics
    laut zufolge sagte sagt sagten meint meinte behauptet behauptete erklärte angeblich
    selon dit affirme affirmé déclaré prétend según dijo afirma afirmó declaró asegura
    secondo detto afferma dichiarato segundo disse afirmou volgens zei zegt stelt
    według powiedział заявил сказал словам
"""
_ATTRIBUTION_WORDS: Final = frozenset(_ATTRIBUTION_TEXT.split())

_COMPARISON_TEXT: Final = """
    more less fewer most least than above below over under before after up down higher lower
    larger smaller greater bigger beyond within almost nearly approximately roughly
    mehr weniger moins más menos più meno mais meer minder больше меньше
"""
_COMPARISON_WORDS: Final = frozenset(_COMPARISON_TEXT.split())
_COMPARISON_PREFIXES: Final = ("exceed", "surpass", "outnumber")

_NUMBER_TEXT: Final = """
    zero two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
    eighty ninety hundred hundreds thousand thousands million millions billion billions
    trillion dozen dozens half twice thrice double triple percent
"""
_NUMBER_WORDS: Final = frozenset(_NUMBER_TEXT.split())
"""`one` is left out: it is a pronoun as often ("the pier, one of the oldest, ...")."""
_DIGIT: Final = re.compile(
    r"[\d\u00b2\u00b3\u00b9\u00bc-\u00be\u2070-\u209f\u2150-\u218b\u2460-\u24ff]"
)
"""A digit of any script, a superscript or subscript, a fraction or a circled number."""

_RELATIVE_WORDS: Final = frozenset(["who", "whom", "whose", "which", "where"])

_FINITE_TEXT: Final = """
    am is are was were has have had does did will would shall should can could must
    might re ve ll i he she we they
    ist sind war waren wird werden wurde wurden hat haben hatte hatten kann können konnte
    muss müssen soll sollen
    est sont était étaient sera seront ont avait avaient peut peuvent doit doivent
    es eran fue fueron será han había puede pueden debe
    è sono erano fu sarà hanno aveva può possono
    é são eram foi foram têm tinha pode podem
    zijn wordt worden werd werden heeft hebben hadden kunnen moet moeten zal zullen
    rose fell grew went came took gave became began ran saw knew drove wrote broke chose
    drew flew threw wore spoke rode sank shrank swam sang stole forgot froze hid shook arose
"""
_PARTICIPLE_TEXT: Final = """
    fought sought caught taught bought brought held kept left lost led meant met paid sold
    sent spent stood understood built felt dealt fed fled lent slept swept wept won dug hung
    struck spun spread shut hit cut set put let made
"""
_FINITE_WORDS: Final = frozenset(_FINITE_TEXT.split())
"""Always finite: auxiliaries, modals, copulas, subject pronouns, past forms that are no
participle (`rose`, not `risen`). Not `do`: it is Portuguese for "of the"."""
_PARTICIPLE_WORDS: Final = frozenset(_PARTICIPLE_TEXT.split())
"""English past forms that are participles too (`built`): finite unless they open the gap."""
_VERB_TEXT: Final = """
    increase decrease rise fall grow drop decline reduce cause lead show become seem appear
    remain change improve help allow prevent affect include contain require need want use
    work happen occur open close start end begin stop continue move pay cost produce create
    make take give get go come keep hold bring turn run set put cut raise lower boost double
    halve shrink expand extend rebuild build repair replace approve ban block launch plan
    hire fire sell buy own lose win beat kill hit hurt harm damage destroy save protect
    support oppose attack threaten face meet join leave enter return reach cross pass fail
    miss rule govern lead vote elect hold host visit travel arrive depart follow add remove
    offer ask answer call pull push carry send receive release publish print sign order
    deliver serve feed drive fly sail flood dry warm cool heat freeze melt burn rain snow
    shine blow flow pour spill leak crack break fix solve rate rank score earn spend invest
    lend borrow owe fund finance tax charge trade export import ship store fill empty sink
    float rest sleep wake live die kill survive struggle suffer recover heal treat cure test
    measure count record track watch see look hear sound smell taste feel touch know learn
    teach study read write speak talk agree decide choose prefer like love hate fear hope
    wish expect plan try manage control regulate enforce limit restrict permit forbid
    inspect paint clean dredge circle rise widen deepen narrow slow speed accelerate
"""
_VERBS: Final = frozenset(_VERB_TEXT.split())


def _verb_form(word: str) -> int:
    """VERB for a present `-s` form of a known English verb, PARTICIPLE for its `-ed` form
    (a finite past, or a participle opening a phrase), FREE otherwise: `rises` `pushes`
    `carries`, `raised` `dropped` `carried`."""
    if len(word) < 4:
        return FREE
    bases: tuple[str, ...] = ()
    kind = VERB
    if word.endswith(("ies", "ied")):
        bases, kind = (word[:-3] + "y",), VERB if word[-1] == "s" else PARTICIPLE
    elif word.endswith("es"):
        bases = (word[:-2], word[:-1])  # `pushes`, `rises`
    elif word.endswith("s") and not word.endswith("ss"):
        bases = (word[:-1],)
    elif word.endswith("ed"):
        stem, kind = word[:-2], PARTICIPLE
        bases = (stem, stem + "e", stem[:-1] if stem[-1] == stem[-2] else stem)  # `dropped`
    return kind if any(base in _VERBS for base in bases) else FREE


def relation(word: str, previous: str = "") -> int:
    """What leaving this normalized word out may do to the words kept around it, from FREE
    to POLARITY (`previous` is the word an apostrophe joins to it: `don` `t`, `they` `re`)."""
    if (
        word in _POLARITY_WORDS
        or word.startswith(_POLARITY_PREFIXES)
        or (word == "t" and previous.endswith("n"))
        or word.endswith("n\u02bct")  # `don` U+02BC `t`: a letter, so one word
        or not _NEGATING_CHARACTERS.isdisjoint(word)
    ):
        return POLARITY
    if word in _CONDITION_WORDS:
        return CONDITION
    if word in _ATTRIBUTION_WORDS:
        return ATTRIBUTION
    if word in _COMPARISON_WORDS or word.startswith(_COMPARISON_PREFIXES):
        return COMPARISON
    if word in _NUMBER_WORDS or _DIGIT.search(word):
        return NUMBER
    if word in ("re", "ve", "ll", "d", "m") and not previous:
        return FREE  # a contraction's tail only after an apostrophe
    if word in _FINITE_WORDS:
        return VERB
    if word in _PARTICIPLE_WORDS:
        return PARTICIPLE
    if word in _RELATIVE_WORDS:
        return RELATIVE
    return _verb_form(word)


def separation(between: str) -> int:
    """The level (NONE .. PARAGRAPH) of the text between two words: punctuation without space
    (`well-known`, `e.g`, `a/b`) joins, the same mark with space separates."""
    if not between or between == " ":
        return NONE
    if _PARAGRAPH.search(between):
        return PARAGRAPH
    spaced = _SPACE.search(between) is not None
    if _SENTENCE_ALONE.search(between) or (spaced and _SENTENCE_SPACED.search(between)):
        return SENTENCE
    if _CLAUSE_ALONE.search(between) or (spaced and _CLAUSE_SPACED.search(between)):
        return CLAUSE
    return NONE


class Gaps:
    """One source's separations and relation words, looked up for each candidate gap."""

    def __init__(self, index: WordIndex) -> None:
        self.index = index
        found = index.words
        known: dict[str, int] = {}
        self.levels = [PARAGRAPH] * len(found)  # levels[i]: between word i and word i + 1
        self.relations = [relation(found[0].text)] if found else []
        for at in range(len(found) - 1):
            between = index.text[found[at].end : found[at + 1].start]
            level = known.get(between)
            if level is None:
                level = separation(between)
                if len(known) < _KNOWN_SEPARATIONS:
                    known[between] = level
            self.levels[at] = level
            joined = found[at].text if between in _APOSTROPHES else ""  # `don` `'` `t`
            self.relations.append(relation(found[at + 1].text, joined))

    def problem(self, kept: int, resumed: int) -> str | None:
        """Why the words between word `kept` and word `resumed` may not be left out, or None."""
        count = resumed - kept - 1
        if count == 0:
            return None
        if count < MIN_GAP_WORDS:
            return (
                f"the ellipsis leaves out one word ({self._shown(kept + 1, kept + 1)}): a "
                "quote without one of its words is a changed quote"
            )
        if count > MAX_GAP_WORDS:
            return (
                f"the ellipsis leaves out {count} words (at most {MAX_GAP_WORDS}): cite the "
                "parts as separate quotes"
            )
        levels = self.levels[kept:resumed]
        if max(levels) >= PARAGRAPH:
            return "the ellipsis leaves out words across paragraphs: cite the parts separately"
        polar = self._first(kept + 1, resumed, (POLARITY,))
        if polar is not None:
            return f"the ellipsis leaves out {polar}: quote it"
        edges, inner = min(levels[0], levels[-1]), max(levels[1:-1], default=NONE)
        if edges < CLAUSE or inner > edges:
            return (
                f"the ellipsis leaves out part of a clause or sentence "
                f"({self._shown(kept + 1, resumed - 1)}): only whole clauses or sentences may "
                "be left out"
            )
        blocked = self._first(kept + 1, resumed, _BLOCKED)
        if blocked is not None:
            return f"the ellipsis leaves out {blocked}: quote it"
        if edges >= SENTENCE:
            return None  # whole sentences
        relative = self.relations[kept + 1] == RELATIVE and inner == NONE
        kinds = (COMPARISON, NUMBER) if relative else (COMPARISON, NUMBER, VERB, PARTICIPLE)
        found = self._first(kept + 1, resumed, kinds, opening=kept + 1)
        if found is not None:
            return (
                f"the ellipsis leaves out {found} inside a sentence, where only an aside (a "
                "parenthetical, an appositive or adjective phrase, a list item, a relative "
                "clause) may be left out: quote it"
            )
        return None

    def _first(self, first: int, end: int, kinds: tuple[int, ...], opening: int = -1) -> str | None:
        """The first word in first..end-1 of one of these relation kinds, shown with what it
        is, or None. A PARTICIPLE at `opening` (the gap's first word) is not counted: it opens
        a participle phrase ("built in stone")."""
        for at in range(first, end):
            kind = self.relations[at]
            if kind in kinds and not (kind == PARTICIPLE and at == opening):
                return f"{self._shown(at, at)}, {_WHAT[kind]}"
        return None

    def _shown(self, first: int, last: int) -> str:
        """The source's words first..last, shortened, for a reason."""
        start, end = self.index.span(first, last - first + 1)
        text = " ".join(self.index.text[start:end].split())
        return repr(text if len(text) <= 80 else text[:77] + "...")

    def predecessor(self, resumed: int, kept: Container[int]) -> int | None:
        """The nearest word in `kept` after which the words up to word `resumed` may be left
        out, or None. Walks back at most MAX_GAP_WORDS words, stopping at the first word or
        separation that no longer allows a gap. What `problem` checks, kept up to date one
        word at a time: the strongest separation inside, whether a number or comparison and
        whether a finite verb lies after the gap's first word."""
        end_level, inner = self.levels[resumed - 1], NONE
        if not CLAUSE <= end_level <= SENTENCE:
            return None
        measured = finite = False  # a number or comparison; a finite verb after the first word
        for last_kept in range(resumed - 2, max(resumed - 2 - MAX_GAP_WORDS, -1), -1):
            first_left = last_kept + 1
            kind = self.relations[first_left]
            if kind in _BLOCKED:
                return None
            measured = measured or kind in (NUMBER, COMPARISON)
            if measured and end_level < SENTENCE:
                return None  # a number or comparison goes only with whole sentences
            if first_left < resumed - 1:
                inner = max(inner, self.levels[first_left])
                if inner > end_level:
                    return None
            start_level = self.levels[last_kept]
            if (
                resumed - first_left >= MIN_GAP_WORDS
                and last_kept in kept
                and CLAUSE <= start_level <= SENTENCE
                and inner <= start_level
                and (
                    start_level == SENTENCE == end_level  # whole sentences
                    or (not measured and not (finite or kind == VERB))  # an aside
                    or (not measured and kind == RELATIVE and inner == NONE)  # which ...
                )
            ):
                return last_kept
            finite = finite or kind in (VERB, PARTICIPLE)
        return None


def place(index: WordIndex, gaps: Gaps, parts: Sequence[Sequence[str]]) -> list[int] | None:
    """The first word of each part, in order, every gap one that may be left out; None when
    there is no such placement. Each part's runs are found in one scan, each kept only when
    an allowed gap joins it to a run of the part before (so no placement is missed)."""
    reach = {first + len(parts[0]) - 1: first for first in index.starts(parts[0])}
    back: list[dict[int, int]] = [dict.fromkeys(reach, -1)]  # a run's last word -> the last
    for part in parts[1:]:  # word of the run of the part before it
        if not reach:
            return None
        low, high = min(reach) + 1 + MIN_GAP_WORDS, max(reach) + 1 + MAX_GAP_WORDS
        links: dict[int, int] = {}
        for first in index.starts(part, low, high):
            before = gaps.predecessor(first, reach)
            if before is not None:
                links[first + len(part) - 1] = before
        reach = links
        back.append(links)
    return _trace(parts, back, min(reach)) if reach else None


def _trace(parts: Sequence[Sequence[str]], back: list[dict[int, int]], last: int) -> list[int]:
    firsts: list[int] = []
    for number in range(len(parts) - 1, -1, -1):
        firsts.append(last - len(parts[number]) + 1)
        last = back[number][last]
    return firsts[::-1]


def in_order(index: WordIndex, parts: Sequence[Sequence[str]]) -> list[int] | None:
    """The earliest placement of the parts in order, whatever the gaps (to say what is wrong
    with them)."""
    firsts: list[int] = []
    first = 0
    for part in parts:
        found = index.find(part, first)
        if found is None:
            return None
        firsts.append(found)
        first = found + len(part)
    return firsts
