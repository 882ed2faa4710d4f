"""A rule's conditions, evaluated in code against an event's payload (no model involved).

Bounded: a rule's condition has at most `MAX_CONDITION_NODES` parts nested at most
`MAX_CONDITION_DEPTH` levels (checked when the rule is saved), and each text field is read
only up to `MAX_FIELD_CHARS` and case-folded once per evaluation, so one evaluation costs
linear time in the payload plus, per `contains`, one search of it.
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
    return _holds(condition, payload, _Folded(payload))


class _Folded:
    """The payload's text fields, cut to their bound and case-folded once per evaluation:
    folding them again for each `contains` made a rule's cost its leaves times the text."""

    def __init__(self, payload: Mapping[str, Any]) -> None:
        self._payload = payload
        self._texts: dict[str, str] | None = None

    def texts(self, fields: list[str] | None) -> Iterator[str]:
        if self._texts is None:
            self._texts = {
                key: value[:MAX_FIELD_CHARS].casefold()
                for key, value in self._payload.items()
                if isinstance(value, str)
            }
        return (text for key, text in self._texts.items() if fields is None or key in fields)


def _holds(condition: EventCondition, payload: Mapping[str, Any], folded: _Folded) -> bool:
    if not _leaves(condition, payload, folded):
        return False
    if condition.all_of is not None and not all(
        _holds(c, payload, folded) for c in condition.all_of
    ):
        return False
    if condition.any_of is not None and not any(
        _holds(c, payload, folded) for c in condition.any_of
    ):
        return False
    return condition.not_ is None or not _holds(condition.not_, payload, folded)


def _leaves(condition: EventCondition, payload: Mapping[str, Any], folded: _Folded) -> bool:
    if condition.domain is not None and not _domain_in(payload.get("domain"), condition.domain):
        return False
    if condition.collection is not None and not _collection_in(payload, condition.collection):
        return False
    if condition.contains is not None:
        needle = condition.contains.casefold()
        if not any(needle in text for text in folded.texts(condition.fields)):
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


def _signal_in(signals: Any, wanted: list[str]) -> bool:
    if not isinstance(signals, list):
        return False
    present = {item.casefold() for item in signals[:1000] if isinstance(item, str)}
    return any(item.casefold() in present for item in wanted)
