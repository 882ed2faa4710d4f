"""The offline runtime of every transform type: heuristics over the sources' own sentences.

No model: each item is built from sentences of the sources, quoted verbatim in its
citations, so offline output always verifies (`cite.py` checks it all the same). One module
per family; `patterns` holds the sentence tests they share.
"""

from __future__ import annotations

from ..corpus import Sentence
from ..items import Cited


def cite(sentence: Sentence, quote: str | None = None) -> Cited:
    """A citation of `sentence` (or of `quote`, a run of its words)."""
    return Cited(source_id=sentence.source.source_id, quote=quote or sentence.text)
