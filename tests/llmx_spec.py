"""The code examples of spec 002 (LLMX), extracted from the spec's text into files once.

`python tests/llmx_spec.py` (re)writes tests/data/llmx_spec_examples/ from the spec beside the
repository; tests/test_llmx_spec.py checks the files still match it when it is there. Each
fenced block becomes `NN_<section>_<kind>.llmx` (`.ebnf` for the grammar): `example` (a message or blocks the spec
shows as valid), `template` (a syntax summary with `?:` or `...`, which is not a message),
or `grammar` (Appendix A). Flow diagrams (drawn with `|`) are skipped.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "tests" / "data" / "llmx_spec_examples"
SPEC_GLOB = "002_*.txt"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_SECTION = re.compile(r"^#{2,4} (?:Appendix )?([0-9A-Z][0-9.]*)", re.MULTILINE)


def spec_file() -> Path | None:
    found = sorted((REPO.parent / "shared" / "spec").glob(SPEC_GLOB))
    return found[0] if found else None


def _kind(language: str, body: str) -> str | None:
    if language == "ebnf":
        return "grammar"
    if "|" in body:
        return None
    return "template" if "?:" in body or "..." in body else "example"


def extract(spec: str) -> dict[str, str]:
    """File name -> text of every example, template and grammar block, in the spec's order."""
    found: dict[str, str] = {}
    for fence in _FENCE.finditer(spec):
        kind = _kind(fence.group(1), fence.group(2))
        if kind is None:
            continue
        sections = _SECTION.findall(spec, 0, fence.start())
        section = sections[-1].rstrip(".") if sections else "0"
        suffix = "ebnf" if kind == "grammar" else "llmx"
        found[f"{len(found) + 1:02d}_{section}_{kind}.{suffix}"] = fence.group(2).rstrip("\n")
    return found


def stored() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(EXAMPLES.glob("*_*.*"))}


def write(examples: dict[str, str]) -> None:
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    for old in EXAMPLES.glob("*_*.*"):
        old.unlink()
    for name, text in examples.items():
        (EXAMPLES / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    source = spec_file()
    if source is None:
        sys.exit("spec 002 not found beside the repository (../shared/spec/002_*.txt)")
    write(extract(source.read_text(encoding="utf-8")))
    print(f"wrote {len(stored())} files to {EXAMPLES}")
