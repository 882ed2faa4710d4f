"""The item contract: every transform's output is a list of typed items, each with citations.

A model writes one item per line (NDJSON); each line is validated against the type's item
model on its own, so a bad line costs that line only. Every item carries `citations`
(`source_id` + a `quote` copied from the source); the host verifies them against the stored
text (`cite.py`) and keeps the result as a `CheckedItem`. Fields are bounded: a model that
writes a 1 MB "term" gets the line refused, not stored.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StringConstraints,
    field_validator,
    model_validator,
)

MAX_CITATIONS_PER_ITEM = 16
Short = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Long = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4000)]
Key = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=60)]


class Cited(BaseModel):
    """A citation as the model (or an offline runner) writes it."""

    model_config = ConfigDict(extra="ignore")
    source_id: str = Field(min_length=1, max_length=200, description="The source's id.")
    quote: str = Field(
        min_length=1, max_length=2000, description="Words copied exactly from that source."
    )

    @field_validator("source_id")
    @classmethod
    def _bare_id(cls, value: str) -> str:
        """Models copy the pack's `doc_id` (`src:<id>`) as often as the id itself."""
        value = value.strip()
        return value.removeprefix("src:") if value.startswith("src:src_") else value


class Item(BaseModel):
    """One unit of a transform's output. Unknown keys are ignored (small models add some);
    missing or mistyped fields make the line invalid."""

    model_config = ConfigDict(extra="ignore")
    kind: ClassVar[str] = "item"
    citations: list[Cited] = Field(default_factory=list, max_length=MAX_CITATIONS_PER_ITEM)

    def data(self) -> dict[str, JsonValue]:
        """The item's own fields (what is rendered and exported), without its citations."""
        dumped: dict[str, JsonValue] = self.model_dump(mode="json", exclude={"citations"})
        return dumped

    @classmethod
    def prompt_schema(cls) -> dict[str, Any]:
        """The JSON Schema the model is shown for one line."""
        return cls.model_json_schema()


class Paragraph(Item):
    kind: ClassVar[str] = "paragraph"
    text: Long


class Part(Item):
    """A free-form piece of a custom transform: an optional heading and its text."""

    kind: ClassVar[str] = "part"
    heading: Short | None = None
    text: Long


class Bullet(Item):
    kind: ClassVar[str] = "bullet"
    text: Long


class Section(Item):
    kind: ClassVar[str] = "section"
    heading: Short
    body: Long


class QuestionAnswer(Item):
    kind: ClassVar[str] = "qa"
    question: Short
    answer: Long


class Term(Item):
    kind: ClassVar[str] = "term"
    term: Short
    definition: Long


class Event(Item):
    kind: ClassVar[str] = "event"
    date: Short = Field(description="When, as the source says it (a year, a date, a period).")
    event: Long


class TableRow(Item):
    kind: ClassVar[str] = "row"
    cells: dict[Key, Short] = Field(min_length=1, max_length=12, description="Column -> value.")


class ComparisonRow(Item):
    kind: ClassVar[str] = "comparison_row"
    subject: Short = Field(description="What this row is about (a source, a product, ...).")
    cells: dict[Key, Short] = Field(min_length=1, max_length=12, description="Aspect -> value.")


class ProCon(Item):
    kind: ClassVar[str] = "pro_con"
    side: Literal["pro", "con"]
    text: Long


class ActionItem(Item):
    kind: ClassVar[str] = "action"
    action: Long
    owner: Short | None = None
    due: Short | None = None


class Card(Item):
    kind: ClassVar[str] = "card"
    front: Long
    back: Long


class QuizQuestion(Item):
    kind: ClassVar[str] = "quiz_question"
    question: Long
    options: list[Short] = Field(
        min_length=3, max_length=6, description="At least three different choices."
    )
    answer: Short = Field(description="The correct option, written as in `options`.")
    explanation: Long | None = None

    @model_validator(mode="after")
    def _answer_is_one_of_distinct_options(self) -> QuizQuestion:
        """A question whose answer is not among its options cannot be marked, and one whose
        options repeat (a model wrote "unknown" twice) tests nothing: the config asks for
        three to five choices, so fewer distinct ones is a bad item."""
        keys = [option_key(option) for option in self.options]
        if len(set(keys)) < 3:
            raise ValueError("`options` must hold at least three different choices")
        wanted = option_key(self.answer)
        for option, key in zip(self.options, keys, strict=True):
            if key == wanted:
                self.answer = option
                return self
        raise ValueError("`answer` must be one of `options`")


def option_key(option: str) -> str:
    """Options compare case- and spacing-blind: "Mid  Tide" and "mid tide" are one choice."""
    return " ".join(option.split()).casefold()


class Node(Item):
    kind: ClassVar[str] = "node"
    text: Short
    level: int = Field(ge=1, le=6, description="Depth in the outline, 1 = top.")


class Slide(Item):
    kind: ClassVar[str] = "slide"
    title: Short
    bullets: list[Long] = Field(default_factory=list, max_length=8)
    notes: Long | None = None


class Segment(Item):
    kind: ClassVar[str] = "segment"
    speaker: Short
    line: Long


class EmailPart(Item):
    kind: ClassVar[str] = "email_part"
    part: Literal["subject", "paragraph", "bullet"]
    text: Long


class Reference(Item):
    kind: ClassVar[str] = "reference"
    source_id: Short
    text: Long = Field(description="The formatted reference.")


class Note(Item):
    """An evergreen statement of the collection's notes, in its section; `block` is the
    source block it was made from (`<source id>#<index>@<content digest>`)."""

    kind: ClassVar[str] = "note"
    statement: Long
    section: Short | None = None
    block: Short | None = None


class CheckedItem(BaseModel):
    """An item as stored and shown: its fields, its verified citations, and whether it is
    verified (at least one citation, and every one found in the source's stored text)."""

    model_config = ConfigDict(extra="forbid")
    kind: str
    data: dict[str, JsonValue]
    citations: list[dict[str, JsonValue]]
    verified: bool
    flag: str | None = Field(default=None, description="Why the item is not verified.")
