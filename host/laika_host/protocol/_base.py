"""Shared building blocks for the LLMCP models.

Every model is strict (no silent coercion of `"1"` to `1` or `true` to `1`) and rejects keys
it does not declare, because LLMCP packets cross a trust boundary: a model's output must match
the schema exactly or be repaired explicitly, never guessed at.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
    model_validator,
)
from pydantic.config import JsonDict

from ..issues import json_type, rule_error


class LlmcpModel(BaseModel):
    """Base for every protocol object: strict types, unknown keys rejected, JSON by alias."""

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        frozen=True,
        serialize_by_alias=True,
        validate_by_alias=True,
        validate_by_name=False,
    )

    def to_json_dict(self) -> dict[str, Any]:
        """The packet as plain JSON data (absent optionals omitted, times as ISO-8601 Z)."""
        return self.model_dump(mode="json")

    def to_json(self, *, indent: int | None = None) -> str:
        return self.model_dump_json(indent=indent)


def _one_of_schema(schema: JsonDict, cls: type[BaseModel]) -> None:
    fields = getattr(cls, "one_of", ())
    schema["anyOf"] = [{"required": [name]} for name in fields]


class OneOfRequired(LlmcpModel):
    """A model that needs at least one of the fields in `one_of`; `one_of_rule` says why.

    The rule is enforced on validation and stated in the model's JSON Schema (`anyOf`).
    """

    model_config = ConfigDict(json_schema_extra=_one_of_schema)
    one_of: ClassVar[tuple[str, ...]] = ()
    one_of_rule: ClassVar[str] = ""

    @model_validator(mode="after")
    def _one_of_present(self) -> Self:
        if all(getattr(self, name) is None for name in self.one_of):
            raise rule_error(self.one_of_rule, at=(self.one_of[0],))
        return self


def optional(default: Any = None, **kwargs: Any) -> Any:
    """A field that may be absent; `None` is omitted on output instead of written as null."""
    return Field(default=default, exclude_if=lambda value: value is None, **kwargs)


NonEmptyStr = Annotated[str, Field(min_length=1)]
"""Identifiers and names: an empty string is never meaningful."""


# --- timestamps ---------------------------------------------------------------------------

_ISO_LOCAL = r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?"
_ISO_UTC = _ISO_LOCAL + r"(?:[Zz]|[+-]\d{2}:\d{2})"
_ISO_LOCAL_TIME = re.compile(_ISO_LOCAL)
_ISO_UTC_TIME = re.compile(_ISO_UTC)


def _parse_timestamp(value: object) -> datetime:
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        if _ISO_LOCAL_TIME.fullmatch(value):
            raise rule_error(
                f"has no timezone: LLMCP timestamps are UTC, end with Z (got {value!r})"
            )
        if not _ISO_UTC_TIME.fullmatch(value):
            raise rule_error(
                f"must be an ISO-8601 UTC timestamp like 2026-01-28T12:34:56.789Z (got {value!r})"
            )
        try:
            parsed = datetime.fromisoformat(value.upper())
        except ValueError as exc:
            raise rule_error(f"is not a real date and time: {exc} (got {value!r})") from None
    else:
        raise rule_error(f"must be an ISO-8601 UTC timestamp string (got {json_type(value)})")
    offset = parsed.utcoffset()
    if offset is None:
        raise rule_error("must carry a timezone; LLMCP timestamps are UTC (end with Z)")
    if offset.total_seconds() != 0:
        raise rule_error(f"must be UTC (Z or +00:00), not offset {parsed.strftime('%z')}")
    return parsed.astimezone(UTC)


def format_timestamp(value: datetime) -> str:
    """ISO-8601 with `Z`, keeping exactly the precision the value has (seconds, ms or us)."""
    micro = value.microsecond
    spec = "seconds" if micro == 0 else "milliseconds" if micro % 1000 == 0 else "microseconds"
    return value.astimezone(UTC).isoformat(timespec=spec).replace("+00:00", "Z")


Timestamp = Annotated[
    datetime,
    BeforeValidator(_parse_timestamp),
    PlainSerializer(format_timestamp, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "pattern": f"^{_ISO_UTC}$",
            "description": "ISO-8601 UTC timestamp, e.g. 2026-01-28T12:34:56.789Z",
        }
    ),
]
"""An ISO-8601 timestamp that must be UTC; serialized with a `Z` suffix."""


# --- URLs ---------------------------------------------------------------------------------
# Spelled-out case classes instead of re.IGNORECASE so the same text is a valid JSON Schema
# pattern (JSON Schema patterns have no flags).

MAX_URL_LENGTH = 8192
# One host character, then any non-space: the URLs `[^\s/?#]+\S*` accepts, without its
# backtracking (a model's 8,192-character URL ending in a space took O(n^2) steps).
_HTTP = r"[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#]\S*"
_MAILTO = r"[Mm][Aa][Ii][Ll][Tt][Oo]:\S+"
_SOURCE_REF = r"laika:source/[A-Za-z0-9_:.-]+"
_WEB_URL = re.compile(_HTTP)
_SOURCE_URL = re.compile(f"{_HTTP}|{_SOURCE_REF}")
_LINK_HREF = re.compile(f"{_HTTP}|{_MAILTO}")


def _url_rule(pattern: re.Pattern[str], rule: str) -> tuple[AfterValidator, Any]:
    """Validator and JSON Schema metadata for a `str` that must fully match `pattern`."""

    def check(value: str) -> str:
        if len(value) > MAX_URL_LENGTH:
            raise rule_error(f"is longer than {MAX_URL_LENGTH} characters")
        if not pattern.fullmatch(value):
            raise rule_error(f"{rule} (got {value!r})")
        return value

    schema: JsonDict = {"pattern": f"^(?:{pattern.pattern})$", "maxLength": MAX_URL_LENGTH}
    return AfterValidator(check), Field(json_schema_extra=schema)


WebUrl = Annotated[str, *_url_rule(_WEB_URL, "must be an absolute http(s) URL")]
"""An absolute http(s) URL: the address of a web page or an outbound link."""

SourceUrl = Annotated[
    str,
    *_url_rule(
        _SOURCE_URL,
        "must be an absolute http(s) URL, or laika:source/<source_id> for a source with no web "
        "address (a note)",
    ),
]
"""Where a stored source can be opened: its web URL, or `laika:source/<id>` for notes."""

LinkHref = Annotated[
    str,
    *_url_rule(_LINK_HREF, "must be an http, https or mailto link (no other scheme renders)"),
]
"""A link target in rendered output: only http, https and mailto are ever allowed."""


def _exact_int(value: object) -> object:
    # bool is an int subclass and 1.0 == 1: both would pass a Literal[1] check otherwise.
    if type(value) is not int:
        raise rule_error(f"must be an integer (got {json_type(value)})")
    return value


ExactInt = BeforeValidator(_exact_int)
"""Put in front of Literal[int] fields: rejects booleans and floats that compare equal."""
