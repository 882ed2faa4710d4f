"""A rule's conditions, evaluated in code against an event's payload (no model involved).

Bounded: a condition nests at most `MAX_CONDITION_DEPTH` levels with at most 20 children
each (checked when the rule is saved), and each text field is read only up to
`MAX_FIELD_CHARS`, so one evaluation costs at most linear time in the payload it reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..config.schema import EventCondition

MAX_FIELD_CHARS = 200_000
"""Characters of one text field a `contains` condition reads (a question, a title)."""


def holds(condition: EventCondition, payload: Mapping[str, Any]) -> bool:
    """Whether `condition` holds for an event with this payload (never raises on any
    payload: a missing or mistyped field simply does not match)."""
    if not _leaves(condition, payload):
        return False
    if condition.all_of is not None and not all(holds(c, payload) for c in condition.all_of):
        return False
    if condition.any_of is not None and not any(holds(c, payload) for c in condition.any_of):
        return False
    return condition.not_ is None or not holds(condition.not_, payload)


def _leaves(condition: EventCondition, payload: Mapping[str, Any]) -> bool:
    if condition.domain is not None and not _domain_in(payload.get("domain"), condition.domain):
        return False
    if condition.collection is not None and not _collection_in(payload, condition.collection):
        return False
    if condition.contains is not None and not _contains(
        payload, condition.contains, condition.fields
    ):
        return False
    return condition.signals is None or _signal_in(payload.get("signals"), condition.signals)


def _domain_in(domain: Any, wanted: list[str]) -> bool:
    """Equal to one of `wanted` or a subdomain of it, ignoring case and a trailing dot."""
    if not isinstance(domain, str):
        return False
    host = domain[:MAX_FIELD_CHARS].lower().rstrip(".")
    for item in wanted:
        target = item.lower().strip(".")
        if host and (host == target or host.endswith("." + target)):
            return True
    return False


def _collection_in(payload: Mapping[str, Any], wanted: list[str]) -> bool:
    """The event's collection by title or id, any case."""
    names = {
        value[:MAX_FIELD_CHARS].casefold()
        for value in (payload.get("collection"), payload.get("collection_id"))
        if isinstance(value, str)
    }
    return any(item.casefold() in names for item in wanted)


def _contains(payload: Mapping[str, Any], needle: str, fields: list[str] | None) -> bool:
    folded = needle.casefold()
    return any(folded in text.casefold() for text in _texts(payload, fields))


def _texts(payload: Mapping[str, Any], fields: list[str] | None) -> Iterator[str]:
    """The payload's string fields (only `fields` when given), each cut to its bound."""
    for key, value in payload.items():
        if isinstance(value, str) and (fields is None or key in fields):
            yield value[:MAX_FIELD_CHARS]


def _signal_in(signals: Any, wanted: list[str]) -> bool:
    if not isinstance(signals, list):
        return False
    present = {item.casefold() for item in signals[:1000] if isinstance(item, str)}
    return any(item.casefold() in present for item in wanted)
