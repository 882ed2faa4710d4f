"""Quotes copied from a source's stored Markdown, inline syntax and all: are they verified?

    .venv/bin/python bench/quote_markup.py [--corpus DIR] [--aeb-repo DIR] [--limit N] [--show N]

The pack shows the model each source as Markdown, so a model may quote it with its syntax:
`[words](https://...)`, `**bold**`, `` `code` ``, `\\*`. Each page goes through the real
capture pipeline (Markdown and stored text, as the store keeps them), and from its Markdown:

- `linked`: every sentence holding a link, quoted exactly as the Markdown writes it;
- `marked`: every sentence holding other inline syntax (emphasis, code, an escape), exactly;
- `added`: plain sentences (no syntax) with a link the source does not have put around two
  of their words, as a model that "adds a source link" writes it;
- `invented`: those plain sentences with one word changed, inside the link text or outside:
  none of them may verify (the link's address is never counted as a matched word).

A quote counts when `verify_citations` verifies it against the page's stored text, shows the
source's own words (no link syntax) and finds the section heading above it. Corpora: the
capture-dev pages (`--corpus`) and the held-out article benchmark (`--aeb-repo` or
`$LAIKA_AEB_REPO`), as in `bench/capture_quality.py`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from capture_quality import DEFAULT_CORPUS, Corpus, aeb, capture_dev

from laika_host.agent.verify import PackedSource, verify_citations
from laika_host.capture.pipeline import capture_html

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(\[*_])")
_LINE_START = re.compile(r"^(?:>[ \t]*+)*+(?:[-*+][ \t]++|\d++[.)][ \t]++)?")
_IMAGE = re.compile(r"!\[(?:[^\[\]\\]|\\.)*+\]\([^()]*+\)")
_ADDRESS = re.compile(r"\]\([^()]*+\)")
_SYNTAX = re.compile(r"[\[\]*_`\\<>&~|]")
_WORD = re.compile(r"\w+")
ADDED_URL = "https://added.test/page?id=1"
PER_PAGE = 6


def sentences(markdown: str) -> Iterator[str]:
    """The sentences of the Markdown's paragraphs (headings, tables, code blocks and images
    left out: an image's description is not page text, and the stored text drops it)."""
    for written in markdown.split("\n\n"):
        block = _IMAGE.sub("", written)
        if block.startswith(("#", "|", "```", "~~~", "[Page ")) or "\n|" in block:
            continue
        for line in block.split("\n"):
            bare = _LINE_START.sub("", line.strip())
            yield from (s.strip() for s in _SENTENCE_END.split(bare) if s.strip())


def balanced(sentence: str) -> bool:
    """A sentence that does not cut a link or code span in two (the splitter is naive)."""
    return sentence.count("[") == sentence.count("]") and sentence.count("`") % 2 == 0


def cases(markdown: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"linked": [], "marked": [], "added": [], "invented": []}
    for sentence in sentences(markdown):
        if len(_WORD.findall(_ADDRESS.sub("", sentence))) < 6 or not balanced(sentence):
            continue
        if "](" in sentence:
            found["linked"].append(sentence)
        elif _SYNTAX.search(sentence):
            found["marked"].append(sentence)
        else:
            words = sentence.split(" ")
            if len(words) < 6:
                continue
            link = f"[{words[2]} {words[3]}]({ADDED_URL})"
            found["added"].append(" ".join([*words[:2], link, *words[4:]]))
            changed = [*words[:2], f"[{words[2]} inventedword]({ADDED_URL})", *words[4:]]
            found["invented"].append(" ".join(changed))
            changed = [*words[:2], f"[{words[2]} {words[3]}]({ADDED_URL})", "inventedword"]
            found["invented"].append(" ".join(changed + words[5:]))
    return {kind: quotes[:PER_PAGE] for kind, quotes in found.items()}


def run(corpus: Corpus, show: int) -> Counter[str]:
    counts: Counter[str] = Counter()
    shown: Counter[str] = Counter()
    for page in corpus.pages:
        try:
            capture = capture_html(page.read(), "https://page.test/a")
        except Exception:  # a page the capture refuses has nothing to quote
            continue
        markdown, text = capture.markdown, capture.text
        source = PackedSource("doc-1", "src_1", "https://page.test/a", text, markdown)
        for kind, quotes in cases(markdown).items():
            citations = [{"doc_id": "doc-1", "quote": quote} for quote in quotes]
            for quote, found in zip(
                quotes, verify_citations(citations, [source]).citations, strict=True
            ):
                counts[f"{kind} quotes"] += 1
                clean = found.verified and "](" not in found.quote
                counts[f"{kind} verified"] += clean
                if found.verified and markdown.startswith("#"):
                    counts[f"{kind} with heading"] += found.heading is not None
                    counts[f"{kind} headed"] += 1
                wrong = not found.verified if kind != "invented" else found.verified
                if wrong and shown[kind] < show:
                    shown[kind] += 1
                    print(f"  {kind}: {quote!r}\n    -> {found.reason}", file=sys.stderr)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--aeb-repo", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--show", type=int, default=0, help="print this many misses per kind")
    args = parser.parse_args()
    corpora = [capture_dev(args.corpus, args.limit)]
    repo = args.aeb_repo or (
        Path(os.environ["LAIKA_AEB_REPO"]) if "LAIKA_AEB_REPO" in os.environ else None
    )
    held_out = aeb(repo, args.limit) if repo else None
    if held_out is not None:
        corpora.append(held_out)
    for corpus in corpora:
        counts = run(corpus, args.show)
        print(f"{corpus.name} ({len(corpus.pages)} pages)")
        for kind in ("linked", "marked", "added", "invented"):
            total, good = counts[f"{kind} quotes"], counts[f"{kind} verified"]
            headed = counts[f"{kind} headed"]
            heading = (
                f", heading found {counts[f'{kind} with heading']} of {headed}" if headed else ""
            )
            print(f"  {kind:9} verified {good} of {total}{heading}")


if __name__ == "__main__":
    main()
