"""The structured family: FAQ, glossary, timeline, comparison, data table, pros and cons,
action items. Each is a list of typed entries or table rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..config import ComparisonConfig, CountConfig, DataTableConfig, conformed_keys
from ..items import ActionItem, ComparisonRow, Event, ProCon, QuestionAnswer, TableRow, Term
from ..offline import structured
from ..spec import TransformType

NOT_MENTIONED = "\u2014"
"""A chosen aspect or column a model's row leaves out."""


def _at_most(config: CountConfig) -> str:
    return f"At most {config.count} items."


def _aspects(config: ComparisonConfig) -> str:
    if config.aspects:
        return (
            "Use exactly these aspects as the keys of `cells`: " + ", ".join(config.aspects) + "."
        )
    return "Choose 2 to 5 aspects the documents share and use the same keys in every row."


def _columns(config: DataTableConfig) -> str:
    if config.columns:
        return (
            "Use exactly these columns as the keys of `cells`: " + ", ".join(config.columns) + "."
        )
    return "Choose the columns (2 to 6) and use the same keys in every row."


def _keep_keys(chosen: Sequence[str], what: str, item: Any, note: Callable[[str], None]) -> Any:
    """A model's row with exactly the `chosen` keys (none chosen: as it came)."""
    if not chosen:
        return item
    cells, dropped = conformed_keys(item.cells, chosen, NOT_MENTIONED)
    if dropped:
        note(f"the model added {what} you did not choose; only yours are kept: {', '.join(chosen)}")
    return item.model_copy(update={"cells": cells})


def _keep_aspects(item: Any, config: ComparisonConfig, note: Callable[[str], None]) -> Any:
    return _keep_keys(config.aspects, "aspects", item, note)


def _keep_columns(item: Any, config: DataTableConfig, note: Callable[[str], None]) -> Any:
    return _keep_keys(config.columns, "columns", item, note)


TYPES = [
    TransformType(
        id="faq",
        title="FAQ",
        description="Questions a reader would ask, answered from the sources.",
        config=CountConfig,
        item=QuestionAnswer,
        layout="qa",
        instructions=lambda c: (
            f"Write frequently asked questions with their answers, one pair per item. {_at_most(c)}"
        ),
        needs_model=("a question a reader would ask has to be written, not cut from a sentence"),
    ),
    TransformType(
        id="glossary",
        title="Glossary",
        description="Terms and what they mean, as the sources define them.",
        config=CountConfig,
        item=Term,
        layout="glossary",
        instructions=lambda c: (
            "List the key terms with their definitions as the documents give "
            f"them, one term per item. {_at_most(c)}"
        ),
        needs_model=(
            "telling a term from an ordinary word, and "
            "its definition from a passing mention, takes a model"
        ),
    ),
    TransformType(
        id="timeline",
        title="Timeline",
        description="Dated events in order.",
        config=CountConfig,
        item=Event,
        layout="timeline",
        instructions=lambda c: (
            "List the dated events in chronological order, one per item, with "
            f"the date as the documents write it. {_at_most(c)}"
        ),
        offline=structured.timeline,
    ),
    TransformType(
        id="comparison",
        title="Comparison",
        description="A table comparing the sources (or what they describe) aspect by aspect.",
        config=ComparisonConfig,
        item=ComparisonRow,
        layout="comparison",
        instructions=lambda c: (
            "Compare the things the documents describe in a table: one row per "
            f"item, `subject` naming what the row is about. {_aspects(c)} {_at_most(c)}"
        ),
        needs_model=("choosing what to compare and filling each cell takes a model"),
        conform=_keep_aspects,
    ),
    TransformType(
        id="data-table",
        title="Data table",
        description="The figures in the sources, with their units and context.",
        config=DataTableConfig,
        item=TableRow,
        layout="table",
        instructions=lambda c: (
            "Extract the figures (numbers with their units and what they "
            f"measure) into table rows, one row per item. {_columns(c)} {_at_most(c)}"
        ),
        needs_model=(
            "telling a figure from a number in passing, with "
            "its unit and what it measures, takes a model"
        ),
        conform=_keep_columns,
    ),
    TransformType(
        id="pros-cons",
        title="Pros and cons",
        description="Advantages and drawbacks the sources name.",
        config=CountConfig,
        item=ProCon,
        layout="pros_cons",
        instructions=lambda c: (
            "List the advantages (side 'pro') and drawbacks (side 'con') the "
            f"documents name, one per item. {_at_most(c)}"
        ),
        needs_model=("telling an advantage from a drawback takes reading each sentence as a whole"),
    ),
    TransformType(
        id="action-items",
        title="Action items",
        description="What to do, with who and when where the sources say.",
        config=CountConfig,
        item=ActionItem,
        layout="actions",
        instructions=lambda c: (
            "List the actions the documents recommend or require, one per "
            f"item, with owner and due date only when the documents state them. {_at_most(c)}"
        ),
        needs_model=(
            "telling a recommended action from a sentence "
            "that only mentions doing something takes a model"
        ),
    ),
]
