"""The offline runtime of every transform type: heuristics over the sources' own sentences.

No model: each item is built from sentences of the sources, quoted verbatim in its
citations, so offline output always verifies (`cite.py` checks it all the same). One module
per family; `patterns` holds the sentence tests they share.
"""

from __future__ import annotations

from ..corpus import Corpus, Sentence
from ..items import Cited


def cite(sentence: Sentence, quote: str | None = None) -> Cited:
    """A citation of `sentence` (or of `quote`, a run of its words)."""
    return Cited(source_id=sentence.source.source_id, quote=quote or sentence.text)


def extract_note(corpus: Corpus, what: str) -> None:
    """Tell the reader that `what` (e.g. "this summary") was picked, not written: without a
    model the sentences are the sources' own, chosen by how central they are."""
    corpus.notes.append(
        f"Made without a model, {what} is an extract: sentences of your sources, quoted as "
        "written and chosen by how much they share with the rest; a model writes one in its "
        "own words."
    )
