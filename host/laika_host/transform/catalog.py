"""The catalog of transform types: every type registered once, looked up by id.

`list_types()` is what `transform.list_types` and `laika transform list` show: each type with
its config's JSON Schema (defaults included) and its item's.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..errors import RefusedError
from .spec import TransformType


@cache
def catalog() -> dict[str, TransformType]:
    from .types import learning, meta, outline, prose, structured

    types = [*prose.TYPES, *structured.TYPES, *learning.TYPES, *outline.TYPES, *meta.TYPES]
    found = {spec.id: spec for spec in types}
    assert len(found) == len(types), "two transform types share an id"
    return found


class UnknownTypeError(RefusedError, KeyError):
    """No transform type has this id; the message lists the ones there are."""

    def __str__(self) -> str:
        return str(self.args[0])


def get_type(type_id: str) -> TransformType:
    found = catalog().get(type_id)
    if found is None:
        known = ", ".join(sorted(catalog()))
        raise UnknownTypeError(f"no transform type {type_id!r}; the types are: {known}")
    return found


def list_types() -> list[dict[str, Any]]:
    return [spec.to_json() for spec in catalog().values()]
