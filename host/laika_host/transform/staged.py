"""What a staged runner gets: a run that builds on what earlier runs of its type stored.

The knowledge notes continue from the collection's notes and from the per-block results an
interrupted run kept, so the runner needs the store (through the sink), the corpus, and the
model context when there is a model (None: the offline runtime).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .config import TransformConfig
from .corpus import Corpus
from .sink import ItemSink

if TYPE_CHECKING:
    from .model_run import ModelContext


@dataclass
class StagedRun:
    corpus: Corpus
    config: TransformConfig
    sink: ItemSink
    provider_label: str
    model: ModelContext | None = None
