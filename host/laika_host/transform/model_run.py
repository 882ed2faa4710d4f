"""Running a type with a model: NDJSON phases streamed, items validated per line.

`ModelContext.phase()` sends one request and yields each valid item as its line completes;
the default runner (`single_phase`) is one such phase whose items all go to the artifact. A
multi-phase type calls `phase()` several times with its own item models and prompts and emits
what it decides. When the stream breaks, the items so far are kept: the phase records the
error, the run is `partial` (or fails, when nothing came), never loses them.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..agent.pack import Pack
from ..errors import ProviderFailedError
from ..llm.client import ChatClient
from ..llm.config import ProviderConfig
from ..llm.contract import ChatMessage, ChatRequest
from ..llm.events import Done, StreamError, TextDelta, UsageUpdate
from .array_items import ArrayItems
from .config import TransformConfig
from .items import Item
from .ndjson import NdjsonItems
from .prompt import system_prompt, user_prompt
from .sink import ItemSink
from .spec import TransformType

T = TypeVar("T", bound=Item)
MAX_CONSTRAINED = 50
CONSTRAINED_CHARS = 200
CONSTRAINED_LIST = 3


class ModelFailedError(ProviderFailedError):
    """The model gave no usable item; the message says why and what to try."""


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: float = 0.0
    calls: int = 0


@dataclass
class ModelContext:
    spec: TransformType
    config: TransformConfig
    provider: ProviderConfig
    client: ChatClient
    pack: Pack
    sink: ItemSink
    max_tokens: int
    partial: bool = False
    warnings: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    problem: str | None = None
    """Why the last phase's stream did not end cleanly (None: it did): a caller that keeps
    per-phase results knows which of them are complete."""

    async def phase(
        self, item: type[T], system: str, user: str, *, phase: str, temperature: float = 0.2
    ) -> AsyncGenerator[T, None]:
        """One request; its valid items as they complete. A failure after some items marks
        the run partial; a failure before any raises `ModelFailedError`."""
        request = ChatRequest(
            model=self.provider.model,
            messages=[
                ChatMessage(role="system", content=system),
                ChatMessage(role="user", content=user),
            ],
            max_tokens=self.max_tokens,
            temperature=temperature,
        )
        parser = NdjsonItems(item, phase=phase)
        state = _PhaseState()
        started = time.perf_counter()
        self.sink.progress("generating", phase=phase)
        async for event in self.client.stream(self.provider, request):
            for found in state.take(event, parser):
                state.items += 1
                yield found
        for found in parser.close():
            state.items += 1
            yield found
        if not state.items and state.error is None and self._can_constrain():
            # prose, or a reply cut before its first valid line: once more, constrained
            self.warnings.append(RETRIED)
            async for found in self._constrained(request, parser, state):
                state.items += 1
                yield found
        self._account(state, started)
        self._conclude(state, parser)

    def note(self, warning: str) -> None:
        """A warning for the artifact, once however often it is given."""
        if warning not in self.warnings:
            self.warnings.append(warning)

    def _can_constrain(self) -> bool:
        capabilities = self.provider.capabilities
        supported = capabilities is None or capabilities.supports_json_mode
        return supported and self.provider.kind != "anthropic"

    def _source_ids(self) -> list[str]:
        return [s.source_id for s in self.pack.sources if s.source_id]

    async def _constrained(
        self, request: ChatRequest, parser: NdjsonItems[T], state: _PhaseState
    ) -> AsyncGenerator[T, None]:
        """Ask again for one JSON object `{"items": [...]}` under the items' JSON Schema,
        which servers that constrain decoding (llama.cpp, Ollama, OpenAI) enforce: a small
        model that cannot keep to NDJSON still gives items. Each is validated on its own."""
        system = str(request.messages[0].content) + "\n\n" + CONSTRAINED
        again = request.model_copy(
            update={
                "messages": [ChatMessage(role="system", content=system), *request.messages[1:]],
                "response_format": items_format(
                    parser.model, _at_most(self.config), self._source_ids()
                ),
            }
        )
        scanner = ArrayItems()
        state.finish = None
        async for event in self.client.stream(self.provider, again):
            if not isinstance(event, TextDelta):
                state.take(event, parser)
                continue
            for raw in scanner.feed(event.text):  # each item as it completes, even if cut
                found = parser.take(raw)
                if found is not None:
                    yield found

    def _account(self, state: _PhaseState, started: float) -> None:
        self.usage.calls += 1
        self.usage.input_tokens += state.input_tokens
        self.usage.output_tokens += state.output_tokens
        self.usage.duration_ms += (time.perf_counter() - started) * 1000

    def _conclude(self, state: _PhaseState, parser: NdjsonItems[T]) -> None:
        skipped = parser.summary()
        if skipped:
            self.warnings.append(skipped)
        problem = self.problem = state.problem()
        if problem is None and state.items:
            return
        if state.items:
            self.partial = True
            self.warnings.append(f"{problem}; the {state.items} item(s) received are kept")
            return
        why = problem or "it wrote no valid item"
        raise ModelFailedError(
            f"{self.provider.id} gave no usable {self.spec.title.lower()} item ({why}). Run it "
            "again, try a larger model, or use the offline runtime (provider `offline`, always "
            "available)"
        )


@dataclass
class _PhaseState:
    items: int = 0
    finish: str | None = None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0

    def take(self, event: object, parser: NdjsonItems[T]) -> list[T]:
        if isinstance(event, TextDelta):
            return parser.feed(event.text)
        if isinstance(event, Done):
            self.finish = event.finish_reason
        elif isinstance(event, StreamError):
            self.error = event.error.message
        elif isinstance(event, UsageUpdate):
            self.input_tokens = event.input_tokens or self.input_tokens
            self.output_tokens = event.output_tokens or self.output_tokens
        return []

    def problem(self) -> str | None:
        if self.error is not None:
            return self.error
        if self.finish is None:
            return "the stream ended without a finish"
        if self.finish == "length":
            return "the reply was cut at max_tokens"
        return None


RETRIED = (
    "the model wrote no NDJSON item; it was asked again for one JSON object holding the "
    "items, under their JSON Schema"
)
CONSTRAINED = (
    'Instead of NDJSON, reply with one JSON object {"items": [...]} whose items follow the '
    "schema above."
)


def items_format(
    item: type[Item], at_most: int = MAX_CONSTRAINED, source_ids: list[str] | None = None
) -> dict[str, Any]:
    """`response_format` for `{"items": [item, ...]}` (the item schema's `$defs` moved to
    the root, where its references point). Every item must cite, and a citation's
    `source_id` must be one of `source_ids` (the packed sources) when given."""
    schema = _clamped(item.prompt_schema())
    definitions = schema.pop("$defs", {})
    schema["required"] = [*schema.get("required", []), "citations"]  # every item cites
    schema["properties"]["citations"]["minItems"] = 1
    cited = definitions.get("Cited", {}).get("properties", {})
    if source_ids and "source_id" in cited:
        cited["source_id"] = {"type": "string", "enum": source_ids}
    wrapper = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": schema, "maxItems": at_most}},
        "required": ["items"],
    }
    if definitions:
        wrapper["$defs"] = definitions
    return {"type": "json_schema", "json_schema": {"name": "items", "schema": wrapper}}


def _clamped(schema: Any) -> Any:
    """A copy of `schema` with every string at most `CONSTRAINED_CHARS` long and every
    array at most `CONSTRAINED_LIST` entries: under a grammar a small model otherwise writes
    one field until max_tokens, and the reply ends before its first item closes."""
    if isinstance(schema, list):
        return [_clamped(entry) for entry in schema]
    if not isinstance(schema, dict):
        return schema
    copy = {key: _clamped(value) for key, value in schema.items()}
    if copy.get("type") == "string":
        copy["maxLength"] = min(int(copy.get("maxLength", CONSTRAINED_CHARS)), CONSTRAINED_CHARS)
    if copy.get("type") == "array":
        copy["maxItems"] = min(int(copy.get("maxItems", CONSTRAINED_LIST)), CONSTRAINED_LIST)
    if copy.get("title") == "Citations":
        copy["maxItems"] = 2  # the rest of an item's budget is its own text
    return copy


def _at_most(config: TransformConfig) -> int:
    """The config's item count where it has one (a small model stops sooner)."""
    count = getattr(config, "count", None)
    return min(count, MAX_CONSTRAINED) if isinstance(count, int) else MAX_CONSTRAINED


async def single_phase(context: ModelContext) -> None:
    """The default model runner: one NDJSON phase, every valid item kept."""
    system = system_prompt(context.spec, context.config)
    phase = context.phase(
        context.spec.item, system, user_prompt(context.pack), phase=context.spec.id
    )
    conform, left_out, received, kept_count = context.spec.conform, list[str](), 0, 0

    def note(why: str) -> None:
        left_out.append(why)
        context.note(why)

    async with aclosing(phase) as items:  # a cancel mid-stream closes the request too
        async for item in items:
            received += 1
            kept = item if conform is None else conform(item, context.config, note)
            if kept is not None:
                kept_count += 1
                await context.sink.add(kept)
    if received and not kept_count:  # a completed run with nothing in it would say nothing
        why = left_out[0] if left_out else "none fitted the request"
        raise ModelFailedError(
            f"{context.provider.id} gave no usable {context.spec.title.lower()} item (all "
            f"{received} were left out: {why}). Run it again, try a larger model, or use the "
            "offline runtime (provider `offline`, always available)"
        )
