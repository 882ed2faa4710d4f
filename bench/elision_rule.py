"""What an ellipsis may hide: every sentence the grammar of tests/test_elision_rule.py builds,
quoted with a gap over one part, counted by the kind of part hidden.

    .venv/bin/python bench/elision_rule.py [--aeb-repo DIR]

Kinds the rule allows (asides, list items, whole sentences) should all verify; kinds it
refuses (attributions, conditions, contrasts, negations, numbers, clauses of their own,
comparisons inside a sentence) none. Run it on two checkouts to compare rules.

With `--aeb-repo` (or `$LAIKA_AEB_REPO`), also real text: in each sentence of the held-out
article benchmark's captures, every comma-delimited segment inside it is left out in turn
(up to 20 per page), and the verdicts are counted by the reason. Such a segment is often a
clause or an attribution, not an aside: the count shows what the rule refuses on real prose,
to be read with a sample of the refusals, not as an error rate.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from capture_quality import aeb

from laika_host.agent.verify import PackedSource, verify_citations
from laika_host.capture.pipeline import capture_html
from test_elision_rule import (
    ALLOWED_ASIDES,
    ALLOWED_SENTENCES,
    FORBIDDEN_ASIDES,
    FORBIDDEN_SENTENCES,
    MARKS,
    OBJECTS,
    SUBJECTS,
    VERBS,
    capital,
)

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_NAMED = re.compile(r"', (an? [a-z ,]+?)(?: \(| inside|:)")
Case = tuple[str, str, str, bool]  # kind, text, quote, allowed


def cases() -> list[Case]:
    found: list[Case] = []
    for allowed, table in ((True, ALLOWED_ASIDES), (False, FORBIDDEN_ASIDES)):
        for kind, hidden in ((k, h) for k, parts in table.items() for h in parts):
            for subject, (opening, closing), verb in product(SUBJECTS[:3], MARKS, VERBS[:2]):
                text = f"{capital(subject)}{opening}{hidden}{closing.rstrip()} {verb} {OBJECTS[0]}."
                quote = f"{capital(subject)} … {verb} {OBJECTS[0]}"
                found.append((f"aside: {kind}", text, quote, allowed))
            for lead, main in product(
                ["As incomes rise", "As the tide falls"], ["the pollution decreases again"]
            ):
                text = f"{lead}, {hidden}, {main}."
                found.append(
                    (f"after a subordinate clause: {kind}", text, f"{lead} … {main}", allowed)
                )
    sentences = [("sentence", s, True) for s in ALLOWED_SENTENCES] + [
        (f"sentence: {kind}", s, False)
        for kind, group in FORBIDDEN_SENTENCES.items()
        for s in group
    ]
    for kind, hidden, allowed in sentences:
        for subject in SUBJECTS:
            first, last = f"{capital(subject)} {VERBS[0]} it", f"{capital(OBJECTS[1])} looks fine"
            found.append(
                (f"whole {kind}", f"{first}. {hidden}. {last}.", f"{first}. … {last}.", allowed)
            )
    for middle, allowed in (
        (["pears", "plums"], True),
        (["40 pears", "plums"], False),
        (["pears", "twelve plums"], False),
    ):
        text = f"The market sold apples, {middle[0]}, {middle[1]}, and figs to the crews."
        kind = "list items" if allowed else "list items: number"
        found.append((kind, text, "The market sold apples … and figs to the crews", allowed))
    return found


def comma_gaps(text: str, limit: int = 20) -> list[str]:
    """Quotes of the text's sentences, each without one comma-delimited segment inside."""
    quotes = []
    for sentence in (s for block in text.split("\n\n") for s in _SENTENCE.split(block)):
        segments = sentence.split(", ")
        for at in range(1, len(segments) - 1):
            head, gap, tail = ", ".join(segments[:at]), segments[at], ", ".join(segments[at + 1 :])
            if min(len(head.split()), len(tail.split())) >= 3 and 2 <= len(gap.split()) <= 40:
                quotes.append(f"{head} … {tail}")
    return quotes[:limit]


def real_pages(repo: Path) -> None:
    corpus = aeb(repo)
    if corpus is None:
        return
    counts: Counter[str] = Counter()
    for page in corpus.pages:
        source = PackedSource(
            "doc-1", "src_1", "https://page.test/", capture_html(page.read()).text
        )
        citations = [{"doc_id": "doc-1", "quote": quote} for quote in comma_gaps(source.text)]
        for found in verify_citations(citations, [source]).citations:
            named = _NAMED.search(found.reason or "")
            counts["verified" if found.verified else named.group(1) if named else "other"] += 1
    print(f"{corpus.name}: {sum(counts.values())} comma-segment gaps")
    for reason, count in counts.most_common():
        print(f"  {reason:45} {count:5}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--aeb-repo", type=Path, default=os.environ.get("LAIKA_AEB_REPO"))
    args = parser.parse_args()
    verified: Counter[str] = Counter()
    total: Counter[str] = Counter()
    allowed_of: dict[str, bool] = {}
    for kind, text, quote, allowed in cases():
        source = PackedSource("doc-1", "src_1", "https://page.test/", text)
        found = verify_citations([{"doc_id": "doc-1", "quote": quote}], [source]).citations[0]
        total[kind] += 1
        verified[kind] += found.verified
        allowed_of[kind] = allowed
    for allowed in (True, False):
        print("allowed (should verify):" if allowed else "refused (should not verify):")
        for kind in sorted(k for k in total if allowed_of[k] == allowed):
            print(f"  {kind:45} {verified[kind]:4} of {total[kind]}")
        good = sum(verified[k] for k in total if allowed_of[k] == allowed)
        print(
            f"  {'all':45} {good:4} of {sum(total[k] for k in total if allowed_of[k] == allowed)}"
        )
    if args.aeb_repo:
        real_pages(Path(args.aeb_repo))


if __name__ == "__main__":
    main()
