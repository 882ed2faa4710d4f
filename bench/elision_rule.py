"""What an ellipsis may hide: every sentence the grammar of tests/test_elision_rule.py builds,
quoted with a gap over one part, counted by the kind of part hidden.

    .venv/bin/python bench/elision_rule.py

Kinds the rule allows (asides, list items, whole sentences) should all verify; kinds it
refuses (attributions, conditions, contrasts, negations, numbers, clauses of their own,
comparisons inside a sentence) none. Run it on two checkouts to compare rules.
"""

from __future__ import annotations

import sys
from collections import Counter
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from laika_host.agent.verify import PackedSource, verify_citations
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


def main() -> None:
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


if __name__ == "__main__":
    main()
