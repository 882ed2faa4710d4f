"""The offline runner of the structured family that reads well without a model: a timeline.

Each event is a whole sentence of a source, quoted as written, placed by the date it states.
(FAQ, glossary, comparison, data table, pros and cons and action items need a model: their
`needs_model` in `types/structured.py` says why.)
"""

from __future__ import annotations

from collections.abc import Iterator

from ..config import CountConfig
from ..corpus import Corpus
from ..items import Event
from . import cite
from .patterns import when


def timeline(corpus: Corpus, config: CountConfig) -> Iterator[Event]:
    dated = [(found, s) for s in corpus.sentences if (found := when(s.text))]
    dated.sort(key=lambda pair: (pair[0].key, pair[1].order))
    if dated and dated[0][0].key[0] == 1:
        corpus.notes.append("no calendar dates in the sources: events are ordered as written")
    for found, sentence in dated[: config.count]:
        yield Event(date=found.label, event=sentence.text, citations=[cite(sentence)])
