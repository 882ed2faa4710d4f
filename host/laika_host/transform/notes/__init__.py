"""Knowledge notes (spec 001): a collection's sources distilled into evergreen statements,
merged into the collection's notes, each statement cited.

- `blocks`: the sources' paragraphs with stable ids; `models`: the three phases' lines.
- `runtime`: the model (NDJSON phases, `prompts`) or the offline heuristics (`offline`),
  one interface.
- `pipeline`: classify -> reword -> integrate, continuing from `memo` (what earlier runs
  kept); `decisions`: per-block buffering and the cap; `notebook`: the notes and their edits.
"""

from .pipeline import run_notes

__all__ = ["run_notes"]
