"""Which sources one answer may read, as the user chose them (NotebookLM's checkboxes on the
source list; `laika ask --source ID`, `--skip-source ID`; `chat.ask`'s `sources` and
`skip_sources`).

A choice narrows the pack, never the collection: search, the passages sent and the sources
that fill the rest of the budget all come from the chosen ones. Ids are checked against the
collection first, so a typo or a deleted source is named instead of quietly answering from
everything else.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..store import InvalidInputError, NotFoundError, Store

MAX_CHOSEN = 500
"""Ids a choice may name (each side): a panel sends what its list shows."""


@dataclass(frozen=True)
class SourceChoice:
    """`only` these sources when any are named, and never the `skip` ones."""

    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()

    def allows(self, source_id: str) -> bool:
        return (not self.only or source_id in self.only) and source_id not in self.skip

    @property
    def chosen(self) -> bool:
        return bool(self.only or self.skip)


async def checked(
    store: Store,
    collection_id: str,
    collection: str,
    choice: SourceChoice,
    *,
    sources_in_collection: int,
) -> SourceChoice:
    """`choice`, once every id it names is a source of the collection and it leaves some to
    read; otherwise the error names the first id that is not there (and how to see the ones
    that are), or says nothing is left."""
    if not choice.chosen:
        return choice
    for side in (choice.only, choice.skip):
        if len(side) > MAX_CHOSEN:
            raise InvalidInputError(
                f"{len(side):,} sources were named; at most {MAX_CHOSEN:,} can be chosen"
            )
    named = list(dict.fromkeys((*choice.only, *choice.skip)))
    there = await store.sources.ids_in(collection_id, named)
    missing = [source_id for source_id in named if source_id not in there]
    if missing:
        error = NotFoundError(
            f"no source {missing[0]} in the collection '{collection}'"
            + (f" (nor {len(missing) - 1:,} more of the ids named)" if len(missing) > 1 else "")
        )
        raise error.with_cli_hint(f"`laika sources list -c '{collection}'` lists its sources")
    if choice.only and not any(choice.allows(source_id) for source_id in choice.only):
        raise InvalidInputError(
            "every source chosen is also left out: nothing is left to read; choose fewer "
            "sources to skip"
        )
    if not choice.only and len(there) >= sources_in_collection:
        raise InvalidInputError(
            f"every source of '{collection}' is left out: nothing is left to read; tick (or "
            "stop skipping) at least one"
        )
    return SourceChoice(tuple(dict.fromkeys(choice.only)), tuple(dict.fromkeys(choice.skip)))
