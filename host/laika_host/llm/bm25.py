"""BM25's two parts, shared by the offline runtime's sentence ranking and the passage
rescoring (one tuning, not two): a term's inverse frequency over the texts ranked, and its
count saturated by the text's length."""

from __future__ import annotations

import math

K1, B = 1.2, 0.75


def idf(total: int, holding: int) -> float:
    """How rare a term is among `total` texts, `holding` of which hold it (never negative)."""
    return math.log(1 + (total - holding + 0.5) / (holding + 0.5))


def saturated(count: int, length: int, average: float) -> float:
    """A term's count in a text of `length` terms, saturated (K1) and length-normalized (B)
    against the `average` length."""
    return count * (K1 + 1) / (count + K1 * (1 - B + B * length / average))
