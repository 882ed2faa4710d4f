"""Batches (section 5): ACTs sent under one batch id, OBS replies matched to them by id.

Within a message, ACT ids are unique, and under a batch id every OBS names the action it
reports (`ai`), once. Replies may come in any order and across several messages:
`match_batch` pairs them with the ACTs and says which are still missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LlmxError
from .model import Act, Block, Message, Obs


def check_ids(message: Message) -> None:
    """ACT ids unique; in a batch, each OBS carries `ai` and reports an action only once."""
    seen: set[str] = set()
    for number, block in enumerate(message.blocks, start=1):
        if block.type == "ACT":
            act = Act.of(block)
            if act.i is not None and act.i in seen:
                raise LlmxError(
                    f"action id {act.i!r} used twice", block=_name(number, block), field="i"
                )
            if act.i is not None:
                seen.add(act.i)
    if message.header.b is None:
        return
    reported: set[str] = set()
    for number, block in enumerate(message.blocks, start=1):
        if block.type != "OBS":
            continue
        obs = Obs.of(block)
        if obs.ai is None:
            raise LlmxError(
                f"OBS in batch {message.header.b} must name its action with ai:ID",
                block=_name(number, block),
                field="ai",
            )
        if obs.ai in reported:
            raise LlmxError(
                f"action {obs.ai!r} reported twice", block=_name(number, block), field="ai"
            )
        reported.add(obs.ai)


def _name(number: int, block: Block) -> str:
    return f"block {number} ({block.type})"


@dataclass(frozen=True)
class BatchMatch:
    """Each ACT id of a batch with its OBS (None while missing), in the ACTs' order."""

    batch: str
    results: dict[str, Obs | None]

    @property
    def missing(self) -> list[str]:
        return [ident for ident, obs in self.results.items() if obs is None]

    @property
    def complete(self) -> bool:
        return not self.missing


def match_batch(request: Message, *replies: Message) -> BatchMatch:
    """Pair the OBS of `replies` with the ACTs of `request`, whatever order they come in."""
    batch = request.header.b
    if batch is None:
        raise LlmxError(
            "the request has no batch id: HEADER needs b:BATCH_ID", block="HEADER", field="b"
        )
    acts = [Act.of(block) for block in request.of_type("ACT")]
    results: dict[str, Obs | None] = {}
    for act in acts:
        if act.i is None:
            raise LlmxError(
                f"an ACT of batch {batch} has no id: give it i:ID", block="ACT", field="i"
            )
        results[act.i] = None
    for reply in replies:
        if reply.header.b != batch:
            raise LlmxError(
                f"reply {reply.header.s} belongs to batch {reply.header.b!r}, not {batch!r}",
                block="HEADER",
                field="b",
            )
        for block in reply.of_type("OBS"):
            _record(results, Obs.of(block), batch)
    return BatchMatch(batch, results)


def _record(results: dict[str, Obs | None], obs: Obs, batch: str) -> None:
    ident = obs.ai or ""
    if ident not in results:
        raise LlmxError(
            f"OBS reports {ident!r}, which no ACT of batch {batch} names", block="OBS", field="ai"
        )
    if results[ident] is not None:
        raise LlmxError(
            f"action {ident!r} of batch {batch} reported twice", block="OBS", field="ai"
        )
    results[ident] = obs
