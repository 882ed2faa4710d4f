"""The learning family: flashcards and a multiple-choice quiz."""

from __future__ import annotations

from ..config import CountConfig, QuizConfig
from ..items import Card, QuizQuestion
from ..spec import TransformType

TYPES = [
    TransformType(
        id="flashcards",
        title="Flashcards",
        description="Question on the front, answer on the back.",
        config=CountConfig,
        item=Card,
        layout="cards",
        instructions=lambda c: (
            "Write flashcards, one per item: a question or cue on the front, "
            f"the answer on the back. At most {c.count} cards."
        ),
        needs_model=("a card's question and answer have to be written, not cut from a sentence"),
    ),
    TransformType(
        id="quiz",
        title="Quiz",
        description="Multiple-choice questions with the answer and why.",
        config=QuizConfig,
        item=QuizQuestion,
        layout="quiz",
        instructions=lambda c: (
            f"Write multiple-choice questions, one per item, each with "
            f"{c.options} options, the correct `answer` copied from `options`, and an explanation. "
            f"At most {c.count} questions."
        ),
        needs_model=("a fair question with plausible wrong answers has to be written"),
    ),
]
