"""How many capture-dev pages get each page signal, and how many of those the labelled sample
says are false.

    .venv/bin/python bench/signal_counts.py [--corpus DIR] [--save FILE] [--compare FILE]

Every page of the corpus (`--corpus`, default `../shared/corpora/capture-dev`) is captured as
the host captures a fetched page (`capture_html` on its bytes). Printed: pages flagged per
signal; then, on the pages of `tests/data/signal_labels.json` (read by hand; each entry says
why), per labelled signal: pages flagged, flagged and labelled false, labelled true and kept.
`--save` writes each page's signals as JSON; `--compare` reads such a file (an earlier run)
and prints the counts of both side by side, with the pages whose signals changed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "host"))

from laika_host.capture import capture_html  # noqa: E402
from laika_host.capture.signals import SIGNALS  # noqa: E402

LABELS = REPO / "tests" / "data" / "signal_labels.json"
LABELLED = ("overlay_blocking", "paywall_or_login", "script_required")
"""The signals the labels file judges (a key of that name in every entry)."""


def signals_of(corpus: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((corpus / "html").iterdir()):
        found[path.name] = capture_html(path.read_bytes()).signals
    return found


def flagged(found: dict[str, list[str]]) -> Counter[str]:
    return Counter(signal for signals in found.values() for signal in signals)


def labelled_counts(found: dict[str, list[str]], signal: str) -> tuple[int, int, int, int]:
    """(pages flagged, flagged but labelled false, labelled true, labelled true and flagged)."""
    labels = json.loads(LABELS.read_text(encoding="utf-8"))
    fired = {name for name in labels if signal in found.get(name, [])}
    true = {name for name, entry in labels.items() if entry[signal]}
    return len(fired), len(fired - true), len(true), len(fired & true)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared/corpora/capture-dev")
    parser.add_argument("--save", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    found = signals_of(args.corpus)
    took = time.perf_counter() - started
    if args.save:
        args.save.write_text(json.dumps(found, indent=0, ensure_ascii=False), encoding="utf-8")
    earlier = json.loads(args.compare.read_text(encoding="utf-8")) if args.compare else None
    now = flagged(found)
    then = flagged(earlier) if earlier else None
    print(f"{len(found)} pages of {args.corpus} in {took:.0f} s")
    print(f"{'signal':<18} {'before':>7} {'now':>5}" if then else f"{'signal':<18} {'pages':>5}")
    for signal in SIGNALS:
        before = f" {then[signal]:>7}" if then else ""
        print(f"{signal:<18}{before} {now[signal]:>5}")
    print(f"\nlabelled sample ({LABELS.relative_to(REPO)}): flagged / of them false / true kept")
    for signal in LABELLED:
        for title, pages in (("before", earlier), ("now", found)):
            if pages is None:
                continue
            fired, false, true, kept = labelled_counts(pages, signal)
            print(
                f"  {signal:<18} {title:<6} flagged {fired:>3}, false {false:>3},"
                f" true kept {kept}/{true}"
            )
    if earlier:
        changed = [name for name in found if set(found[name]) != set(earlier.get(name, []))]
        print(f"\n{len(changed)} pages changed:")
        for name in changed:
            gone = sorted(set(earlier.get(name, [])) - set(found[name]))
            new = sorted(set(found[name]) - set(earlier.get(name, [])))
            print(f"  {name}: -{gone} +{new}")


if __name__ == "__main__":
    main()
