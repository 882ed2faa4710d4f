"""The grounded-chat flows: ask a collection, summarize a page.

pack -> prompt -> model (streamed; or the built-in offline runtime) -> parse and repair ->
verify every citation against the packed sources' stored text -> persist the chat events
and a redacted llm_run -> audit. A failure keeps what was done (partial text, the user's
question) and says what failed: whatever the model sends, the answer is saved as a turn with
its status (`ok`, `partial` when the reply was cut, `invalid_output` when prose came where
JSON was asked, `error` when nothing could be shown), recorded in the turn's `model`.

A reply is read (parsed, repaired, verified, redacted) in a worker thread, so the event loop
answers pings and reads cancels meanwhile; a cancelled turn ends at once and the thread's
result is dropped (its work is bounded: `parse` caps what it reads). A thread, not a
process: no step holds the GIL long (each C call reads at most the capped reply, or one
regex pass over the reply) and the native host hands the GIL back to its loop within 1 ms
(`LOOP_SWITCH_INTERVAL`), so over the worst replies of up to 1 MiB the loop spent at most
0.06 CPU-s between two pongs (0.3 to 24 CPU-s when it read them itself), and pings took at
most 0.17 s on busy cores (a worker process: 0.025 s, for a second interpreter and pickling).
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, cast

from pydantic import JsonValue

from ..capture import Capture
from ..defaults import DEFAULT_COLLECTION, DEFAULT_MAX_TOKENS
from ..llm.client import ChatClient, ChatResult, tls_context
from ..llm.config import DEFAULT_CONTEXT_WINDOW, ContextFormat, ProviderConfig
from ..llm.contract import ChatMessage, ChatRequest
from ..llm.events import StreamEvent, TextDelta
from ..llm.offline import Passage
from ..llm.offline import answer as offline_answer
from ..llm.offline import summary as offline_summary
from ..llm.window import with_window
from ..redact import redact_prefix, redact_text
from ..store import InvalidInputError, Store
from ..store.chat import MAX_CHAT_MARKDOWN
from ..store.runs import RunLinks, RunUsage
from ..tools.turn import ToolRunner, TurnFacts
from . import audit, tool_loop
from .pack import Pack, SourceText, estimate_tokens, pack_page
from .parse import ParsedResponse, parse_markdown_reply, parse_response, well_formed
from .parse_llmx import parse_llmx_reply
from .passage_pack import pack_passages
from .passage_rank import candidates, rerank
from .prompts import (
    Task,
    ToolOffer,
    prompt_for,
    response_format,
    tool_rule,
    user_prompt,
)
from .source_choice import SourceChoice, checked
from .verify import Verification, verify_citations

Status = Literal["ok", "partial", "invalid_output", "error", "unsupported"]
OnDelta = Callable[[str], None]
REPLY_SHARE, REPLY_FLOOR = 4, 256
MAX_PACK_TOKENS = 24_000  # cost and latency bound even for large-context models
SEARCH_LIMIT = 200
NO_CHOICE = SourceChoice()
FILL_SOURCES = 100
"""The newest sources read to fill what the matching passages leave of the budget."""
MAX_FAILURE_MESSAGE = 300
log = logging.getLogger("laika.agent")


@dataclass
class Answer:
    """What a flow returns (and `--json` prints)."""

    status: Status
    answer_markdown: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    run_id: str | None = None
    warnings: list[str] = field(default_factory=list)
    provider: str = "offline"
    chat_result: ChatResult | None = None  # the model call behind it (not printed)
    fallback: Fallback | None = None  # set when the offline runtime answered instead
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """The last `tool_call` event of each call proposed in the turn."""
    grounded: bool = True
    """False for the offline runtime's answer to a request for an action (a tool's outcome
    or a decline): it quotes no source, and is not flagged for it."""
    coverage: dict[str, Any] = field(default_factory=dict)
    """What the answer read (`coverage_of`): sources in full, in part, not at all, and how
    many of its citations verified."""

    @property
    def supported(self) -> bool:
        """Whether the sources back the answer: it has a verified citation. A model's answer
        whose citations all fail verification is not supported, however fluent."""
        return self.status in ("ok", "partial") and any(
            c.get("state") == "verified" for c in self.citations
        )

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "status": self.status,
            "answer_markdown": self.answer_markdown,
            "citations": self.citations,
            "run_id": self.run_id,
            "warnings": self.warnings,
            "provider": self.provider,
            "tool_calls": self.tool_calls,
            "supported": self.supported,
            "coverage": self.coverage,
        }
        if self.fallback is not None:
            shown["fallback"] = {"provider": self.fallback.provider, "reason": self.fallback.reason}
        return shown


@dataclass(frozen=True)
class Fallback:
    """The provider that was asked and did not answer, and why (its error, one line)."""

    provider: str
    reason: str


def budget_for(
    provider: ProviderConfig | None, max_tokens: int, tools: Sequence[str] | None = None
) -> int:
    if provider is None:
        return MAX_PACK_TOKENS
    return pack_budget(provider, max_tokens, _system(provider, tools or ()))


def context_format(provider: ProviderConfig | None) -> ContextFormat:
    """How the provider's prompt carries the sources (the offline runtime reads no prompt)."""
    return provider.context_format if provider is not None else "json"


def _system(
    provider: ProviderConfig | None, tools: Sequence[str], task: Task = "web.answer"
) -> str:
    """The system prompt this provider is sent for `task` (its format, its mode)."""
    return prompt_for(
        task,
        markdown_mode=uses_markdown_mode(provider),
        tools=tools,
        context_format=context_format(provider),
    )


TOOL_SHARE = 4
"""The tool list may take at most a quarter of the room the reply leaves in the context."""
SOURCES_FLOOR = 800
"""Nor may it leave the sources fewer tokens than this (about three passages): at a
2,048-token window and its default 512-token reply, the short list (~300 tokens) cut the
sources from 945 tokens to 650, and the passage that answers reached the model for 70% of
the retrieval bench's questions instead of 83%."""


def tools_that_fit(
    provider: ProviderConfig | None, max_tokens: int, tools: ToolRunner | None
) -> tuple[ToolOffer, str | None]:
    """The tools offered to this provider: listed in full, or compactly (typed signatures)
    when the full list would crowd the sources out of the context window, or none when even
    that would, with why (proposals are still gated if made)."""
    offered = tools.offered() if tools is not None else []
    if not offered or provider is None:
        return ToolOffer(offered), None
    room = (context_window(provider) - max_tokens) // TOOL_SHARE
    for offer in (ToolOffer(offered), ToolOffer(offered, compact=True)):
        if estimate_tokens(tool_rule(offer)) <= room and (
            pack_budget(provider, max_tokens, _system(provider, offer)) >= SOURCES_FLOOR
        ):
            return offer, None
    cost = estimate_tokens(tool_rule(ToolOffer(offered, compact=True)))
    return ToolOffer(), (
        f"no tools were offered: even their short list (~{cost} tokens) would crowd the "
        f"sources out of the model's context window ({context_window(provider)} tokens); "
        "set the provider's context_window to offer them"
    )


def context_window(provider: ProviderConfig) -> int:
    """The provider's context window in tokens (its setting, else its kind's usual one)."""
    return provider.context_window or DEFAULT_CONTEXT_WINDOW[provider.kind]


def reply_tokens(provider: ProviderConfig, max_tokens: int) -> int:
    """The reply's share of a small window: at most a quarter of it (256 at least). At
    2,048 tokens a 1,024-token reply left the sources about 430, less than one passage and
    its document; a cited answer of 512 tokens is some 380 words."""
    return min(max_tokens, max(REPLY_FLOOR, context_window(provider) // REPLY_SHARE))


def pack_budget(provider: ProviderConfig, max_tokens: int, system: str) -> int:
    """Tokens left for sources once the system prompt, the reply and a margin are counted."""
    overhead = estimate_tokens(system) + 200
    return max(256, min(MAX_PACK_TOKENS, context_window(provider) - max_tokens - overhead))


async def ask(
    store: Store,
    question: str,
    collection: str,
    *,
    provider: ProviderConfig | None = None,
    client: ChatClient | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    on_delta: OnDelta | None = None,
    fallback: bool = False,
    tools: ToolRunner | None = None,
    sources: SourceChoice = NO_CHOICE,
) -> Answer:
    """Answer `question` from the collection's sources (those `sources` allows), with
    verified citations. With
    `fallback`, a provider that gives no answer (down, refusing, failing) is replaced by the
    offline runtime over the same collection, and the answer says so (`Answer.fallback`).
    `tools`: the turn's tool runner (None: no tools offered, proposals ignored). A secret in
    the question goes no further than here: search, the model and the offline runtime read
    it redacted."""
    question = redact_text(question)
    target = await store.collections.get(collection)
    sources = await checked(
        store, target.id, target.title, sources, sources_in_collection=target.source_count
    )
    if not target.source_count:  # nothing to ground an answer in: no model call
        turn = _Turn(store, target.id, question, Pack(), None, None, max_tokens, on_delta)
        turn.tools = tools
        return await turn.run("web.answer", lambda: _empty(target.title), "chat.ask")
    if provider is not None:  # pack to the window the server runs, when it says
        provider = await with_window(provider)
        max_tokens = reply_tokens(provider, max_tokens)
    offered = tools_that_fit(provider, max_tokens, tools)[0]
    budget = budget_for(provider, max_tokens, offered)
    pack = await _pack(
        store,
        target.id,
        target.title,
        question,
        budget,
        fmt=context_format(provider),
        choice=sources,
    )
    if provider is not None:
        pack = await _fit(
            pack,
            provider,
            max_tokens=max_tokens,
            question=question,
            budget=budget,
            store=store,
            target=target,
            tools=offered,
            choice=sources,
        )
    turn = _Turn(store, target.id, question, pack, provider, client, max_tokens, on_delta)
    turn.tools = tools
    if fallback and provider is not None:
        turn.fallback = lambda: _offline_repacked(store, target, question, sources)
    return await turn.run("web.answer", lambda: _offline(question, pack), "chat.ask")


async def summarize(
    store: Store,
    capture: Capture,
    *,
    collection: str = DEFAULT_COLLECTION,
    provider: ProviderConfig | None = None,
    client: ChatClient | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    on_delta: OnDelta | None = None,
    fallback: bool = False,
    tools: ToolRunner | None = None,
    question: str | None = None,
) -> Answer:
    """Store the observed page as a source, then summarize it with verified citations, or,
    given a `question` (not blank), answer it from this page alone (`fallback`, `tools`: as
    in `ask`)."""
    saved = await store.sources.save_capture(collection, capture, origin="summarize")
    source = await store.sources.get(saved.source.id)
    pack = pack_page(
        url=capture.url or f"laika:source/{source.id}",
        title=capture.title or "(untitled)",
        markdown=capture.markdown,
        text=capture.text,
        summary=source.summary or "",
        chunks=[c.markdown for c in capture.chunks],
        content_hash=capture.content_hash,
        signals=capture.signals,
        links=[link.to_json() for link in capture.extracted_links],
        source_id=source.id,
    )
    asked = redact_text(question.strip()) if question else ""
    if asked:
        turn = _Turn(
            store, source.collection_id, asked, pack, provider, client, max_tokens, on_delta
        )
        turn.tools = tools
        if fallback and provider is not None:
            turn.fallback = _ready(lambda: _offline(asked, pack))
        return await turn.run("web.answer", lambda: _offline(asked, pack), "page.summarize")
    title = f"Summarize: {capture.title or capture.url or 'this page'}"
    turn = _Turn(store, source.collection_id, title, pack, provider, client, max_tokens, on_delta)
    turn.tools = tools
    if fallback and provider is not None:
        turn.fallback = _ready(lambda: _offline_summary(pack))
    return await turn.run("web.summarize", lambda: _offline_summary(pack), "page.summarize")


@dataclass
class _Turn:
    """One question and its answer: the parts every flow shares once its pack is built."""

    store: Store
    collection_id: str
    question: str
    pack: Pack
    provider: ProviderConfig | None
    client: ChatClient | None
    max_tokens: int
    on_delta: OnDelta | None
    fallback: Callable[[], Awaitable[Answer]] | None = None
    tools: ToolRunner | None = None

    async def run(self, task: Task, offline: Callable[[], Answer], kind: str) -> Answer:
        """Record the question, answer it (offline or with the model), record the answer."""
        user_event = await self.store.chat.append(self.collection_id, "user", self.question)
        correlation = uuid.uuid4().hex
        facts = TurnFacts(user_event.id, self.collection_id, untrusted=bool(self.pack.documents))
        try:
            answer = await self._answer(task, offline, correlation, facts)
        except Exception as error:  # the question is saved: its turn is saved too, as failed
            log.exception("answering failed (correlation %s)", correlation)
            message = redact_prefix(f"{type(error).__name__}: {error}", MAX_FAILURE_MESSAGE)
            answer = Answer("error", "", warnings=[f"the answer failed ({message})"])
            if self.provider is not None:
                answer.provider = self.provider.id
        if self.tools is not None:
            answer.tool_calls = self.tools.reports()
            left_out = tools_that_fit(self.provider, self.max_tokens, self.tools)[1]
            if left_out and answer.status != "error" and answer.fallback is None:
                answer.warnings.append(left_out)
        note = self.pack.note() if self._model_answered(answer) else None
        if note:  # the offline runtime's answer carries its own (`_offline`)
            answer.warnings.insert(0, note)
        answer.coverage = coverage_of(self.pack, answer.citations)
        if _uncited(answer):
            answer.warnings.append(UNCITED)
        await _persist(
            self.store,
            collection_id=self.collection_id,
            question=self.question,
            answer=answer,
            pack=self.pack,
            provider=self.provider,
            correlation=correlation,
            user_event_id=user_event.id,
            kind=kind,
            tools=self._offered(),
            task=task,
        )
        return answer

    def _model_answered(self, answer: Answer) -> bool:
        """Whether the model this turn's pack was made for wrote the answer (not the offline
        runtime, asked or as a fallback): only then does the pack's note apply."""
        return self.provider is not None and answer.fallback is None

    async def _answer(
        self, task: Task, offline: Callable[[], Answer], correlation: str, facts: TurnFacts
    ) -> Answer:
        if self.provider is None:
            answer = await self._offline_action(facts) or offline()
            _stream_offline(answer.answer_markdown, self.on_delta)
            return answer
        answer = await _with_model(
            self.question,
            self.pack,
            self.provider,
            self.client,
            max_tokens=self.max_tokens,
            on_delta=self.on_delta,
            correlation=correlation,
            task=task,
            tools=(self.tools, facts),
        )
        if answer.status != "error" or self.fallback is None:
            return answer
        reason = answer.warnings[-1] if answer.warnings else "it returned nothing"
        log.info("provider %s gave no answer; answering offline", self.provider.id)
        replaced = await self.fallback()
        replaced.fallback = Fallback(self.provider.id, reason)
        return replaced

    def _offered(self) -> Sequence[str]:
        """The tools the model was offered (none offline: there is no prompt)."""
        if self.provider is None or not offers_tools(self.provider):
            return []
        return tools_that_fit(self.provider, self.max_tokens, self.tools)[0]

    async def _offline_action(self, facts: TurnFacts) -> Answer | None:
        """The offline runtime's answer to a request for an action (a tool's outcome, or a
        decline listing what it can do); None for a question about the sources."""
        if self.tools is None:
            return None
        acted = await tool_loop.offline_turn(self.question, self.tools, facts)
        if acted is None:
            return None
        markdown, declined = acted
        return Answer("unsupported" if declined else "ok", markdown, grounded=False)


def _empty(title: str) -> Answer:
    """The answer over a collection without sources: what to do, not a model's guess."""
    message = (
        f"The collection “{title}” is empty: there is nothing to answer from yet. Save pages "
        f'to it (`laika capture FILE_OR_URL -c "{title}"`, or Save in the browser '
        "extension), then ask again."
    )
    return Answer("unsupported", message)


UNCITED = "no citation in this answer checks out against your sources: treat it as unverified"


def _uncited(answer: Answer) -> bool:
    """An answer with text but not one verified citation: say so, whatever its status."""
    return (
        answer.grounded
        and bool(answer.answer_markdown.strip())
        and answer.status in ("ok", "partial")
        and not any(citation.get("verified") for citation in answer.citations)
    )


def _stream_offline(markdown: str, on_delta: OnDelta | None) -> None:
    """The offline answer as `delta` events, a line at a time, as a model's would arrive: a
    reader sees the same stream whichever runtime answered."""
    if on_delta is None:
        return
    for line in markdown.splitlines(keepends=True):
        on_delta(line)


def _offline_summary(pack: Pack) -> Answer:
    result = offline_summary(
        [Passage(s.doc_id, s.text, s.title, s.markdown) for s in pack.sources[:1]]
    )
    citations = [{"doc_id": q.source_id, "quote": q.quote} for q in result.citations]
    verification = verify_citations(citations, pack.sources, result.markdown)
    return Answer("ok", result.markdown, _shown(verification), warnings=verification.warnings)


FIT_ROUNDS = 3
FIT_MARGIN = 64


async def _fit(
    pack: Pack,
    provider: ProviderConfig,
    *,
    max_tokens: int,
    question: str,
    budget: int,
    store: Store,
    target: Any,
    tools: Sequence[str] | None = None,
    choice: SourceChoice = NO_CHOICE,
) -> Pack:
    """Repack smaller while the server's own tokenizer (llama-server's `/tokenize`) says the
    prompt would not fit; our character estimate cannot know every tokenizer."""
    window = context_window(provider)
    fmt = context_format(provider)
    for _ in range(FIT_ROUNDS):
        system = _system(provider, tools or ())
        prompt = system + user_prompt(question, pack.documents, pack.note(), fmt)
        used = await count_tokens(provider, prompt)
        if used is None or used + max_tokens + FIT_MARGIN <= window:
            return pack
        budget = max(64, int(budget * (window - max_tokens - FIT_MARGIN) / used * 0.9))
        pack = await _pack(store, target.id, target.title, question, budget, fmt=fmt, choice=choice)
    return pack


async def count_tokens(provider: ProviderConfig, text: str) -> int | None:
    """Exact token count from an OpenAI-compatible llama.cpp server; None elsewhere."""
    if provider.kind != "openai_compatible":
        return None
    import httpx

    base = provider.url.removesuffix("/v1")
    try:
        async with httpx.AsyncClient(timeout=5, verify=tls_context()) as http:
            response = await http.post(f"{base}/tokenize", json={"content": text})
            tokens = response.json().get("tokens") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return len(tokens) if isinstance(tokens, list) else None


async def _pack(
    store: Store,
    collection_id: str,
    title: str,
    question: str,
    budget: int,
    *,
    fmt: ContextFormat = "json",
    choice: SourceChoice = NO_CHOICE,
) -> Pack:
    """The passages that match the question first (`passage_pack`), then the newest other
    sources while the budget lasts; only sources `choice` allows. Reads only the sources it
    may send: a collection of 50,000 costs what one of 200 does."""
    try:
        hits = await store.passages.search(
            question, collection_id=collection_id, source_ids=choice.only or None
        )
    except InvalidInputError:  # no searchable words: the newest sources still go in
        hits = []
    hits = [hit for hit in hits if choice.allows(hit.source_id)]
    matched = list(dict.fromkeys(hit.source_id for hit in hits))
    bodies = await store.sources.bodies_of(matched)
    if choice.only:  # the chosen ones fill the rest, in the order chosen
        bodies += await store.sources.bodies_of(list(choice.only))
        total = len(choice.only)
    else:
        bodies += await store.sources.bodies(collection_id, limit=FILL_SOURCES)
        total = await store.sources.captured_count(collection_id) - len(choice.skip)
    allowed = (body for body in bodies if choice.allows(body["source_id"]))
    sources = {body["source_id"]: SourceText(**body) for body in allowed}
    spans = await store.passages.spans(matched)
    markdown = {source_id: source.markdown for source_id, source in sources.items()}
    ranked = rerank(question, candidates(hits, spans), markdown)
    return pack_passages(
        collection_id,
        title,
        sources,
        ranked,
        spans,
        budget_tokens=budget,
        context_format=fmt,
        unlisted=max(0, total - len(sources)),
        question=question,
    )


def _ready(make: Callable[[], Answer]) -> Callable[[], Awaitable[Answer]]:
    async def answer() -> Answer:
        return make()

    return answer


async def _offline_repacked(
    store: Store, target: Any, question: str, choice: SourceChoice = NO_CHOICE
) -> Answer:
    """The offline answer with the offline runtime's own budget (a small model's pack would
    leave most of the collection out)."""
    pack = await _pack(store, target.id, target.title, question, MAX_PACK_TOKENS, choice=choice)
    return _offline(question, pack)


def _offline(question: str, pack: Pack) -> Answer:
    passages = [Passage(s.doc_id, s.text, s.title, s.markdown) for s in pack.sources]
    result = offline_answer(question, passages)
    citations = [{"doc_id": q.source_id, "quote": q.quote} for q in result.citations]
    verification = verify_citations(citations, pack.sources, result.markdown)
    status: Status = "ok" if result.supported else "unsupported"
    note = pack.offline_note()
    warnings = [*([note] if note else []), *verification.warnings]
    return Answer(status, result.markdown, _shown(verification), warnings=warnings)


async def _with_model(
    question: str,
    pack: Pack,
    provider: ProviderConfig,
    client: ChatClient | None,
    *,
    max_tokens: int,
    on_delta: OnDelta | None,
    correlation: str,
    task: Task,
    tools: tuple[ToolRunner | None, TurnFacts] | None = None,
) -> Answer:
    """The model's answer; with a tool runner, after the tool loop (`tool_loop.converse`):
    its proposals gated and run, their outcomes told to it, at most a few rounds."""
    markdown_mode = uses_markdown_mode(provider)
    runner, facts = tools if tools is not None else (None, TurnFacts(None, None, untrusted=True))
    if not offers_tools(provider):
        runner = None
    offered = tools_that_fit(provider, max_tokens, runner)[0]
    request = _chat_request(
        question,
        pack,
        provider,
        max_tokens=max_tokens,
        task=task,
        markdown_mode=markdown_mode,
        tools=offered,
    )

    async def ask(messages: list[ChatMessage]) -> tuple[str, Answer, list[tool_loop.ProposedCall]]:
        sent = request.model_copy(update={"messages": messages})
        audit.audit(
            "llm.request",
            correlation,
            provider=provider.id,
            model=provider.model,
            documents=len(pack.documents),
            tokens_estimate=pack.tokens,
            messages=len(messages),
        )
        audit.debug_packet(correlation, "request", sent.model_dump(mode="json"))
        result = await _call(provider, sent, client, on_delta)
        # CPU-bound over a reply of any size: a worker thread, so pings and cancels are read
        # meanwhile (a cancel drops its result: the thread's work is bounded, see `parse`)
        return await asyncio.to_thread(_read_reply, result, pack, correlation, _reader(provider))

    def between() -> None:
        if on_delta is not None:
            on_delta("\n\n")

    answer, notes = await tool_loop.converse(
        list(request.messages), ask, runner, facts, between=between
    )
    answer.warnings += notes
    return answer


def offers_tools(provider: ProviderConfig) -> bool:
    """Markdown mode and compact LLMX offer no tools: their replies have no place for a
    proposal the host would read."""
    return not uses_markdown_mode(provider) and context_format(provider) == "json"


def uses_markdown_mode(provider: ProviderConfig | None) -> bool:
    """A provider configured without JSON support gets the Markdown-mode prompt: every task
    here is read-only, so nothing is lost but the structure."""
    capabilities = provider.capabilities if provider is not None else None
    return capabilities is not None and not capabilities.supports_json_mode


def _chat_request(
    question: str,
    pack: Pack,
    provider: ProviderConfig,
    *,
    max_tokens: int,
    task: Task,
    markdown_mode: bool,
    tools: Sequence[str] | None = None,
) -> ChatRequest:
    fmt = context_format(provider)
    supports_json = provider.kind != "anthropic" and not markdown_mode and fmt == "json"
    offered = tools or []
    system = prompt_for(task, markdown_mode=markdown_mode, tools=offered, context_format=fmt)
    return ChatRequest(
        model=provider.model,
        messages=[
            ChatMessage(role="system", content=system),
            ChatMessage(
                role="user",
                content=user_prompt(redact_text(question), pack.documents, pack.note(), fmt),
            ),
        ],
        response_format=response_format(offered) if supports_json else None,
        max_tokens=max_tokens,
        temperature=0,
    )


async def _call(
    provider: ProviderConfig,
    request: ChatRequest,
    client: ChatClient | None,
    on_delta: OnDelta | None,
) -> ChatResult:
    def forward(event: StreamEvent) -> None:
        if on_delta is not None and isinstance(event, TextDelta):
            on_delta(well_formed(event.text))  # a lone surrogate could not be printed or sent

    if client is not None:
        return await client.complete(provider, request, on_event=forward)
    async with ChatClient() as own:
        return await own.complete(provider, request, on_event=forward)


_CITATION_PATH = re.compile(r"assistant\.citations\[(\d{1,6})\]")


class Reader(Protocol):
    """A reply parser: `parse_response`, `parse_markdown_reply` or `parse_llmx_reply`."""

    def __call__(
        self, text: str, *, request_id: str | None = ..., max_chars: int = ...
    ) -> ParsedResponse: ...


def _reader(provider: ProviderConfig) -> Reader:
    """The parser for the reply format the prompt asked for (each falls back to the others'
    readings rather than lose a reply)."""
    if context_format(provider) == "llmx":
        return parse_llmx_reply
    return parse_markdown_reply if uses_markdown_mode(provider) else parse_response


def _read_reply(
    result: ChatResult, pack: Pack, correlation: str, read: Reader
) -> tuple[str, Answer, list[tool_loop.ProposedCall]]:
    """Everything done with a reply once it has arrived: parse, repair, verify, the tool
    proposals read, and the text redacted (it goes back to the model as context next round,
    redacted like all it reads). Run in a worker thread: it shares nothing with the loop
    but the log."""
    answer, parsed = _interpret(result, pack, correlation, read)
    return redact_text(result.text), answer, tool_loop.proposals(parsed)


def _interpret(
    result: ChatResult, pack: Pack, correlation: str, read: Reader
) -> tuple[Answer, ParsedResponse | None]:
    """The reply as an answer with checked citations, and its parse (None: no reply)."""
    if result.status == "error" or not result.text.strip():
        message = result.error.message if result.error else "the model returned nothing"
        audit.audit(
            "llm.error", correlation, error=result.error.to_json() if result.error else None
        )
        provider = str(result.provider_meta.provider)
        return Answer("error", "", warnings=[message], provider=provider), None
    parsed = read(result.text, request_id=correlation, max_chars=MAX_CHAT_MARKDOWN)
    citations = _as_numbered([_as_dict(c) for c in parsed.citations], parsed.dropped)
    citations += parsed.quotes
    verification = verify_citations(citations, pack.sources, parsed.markdown)
    warnings = [*parsed.warnings, *verification.warnings]
    if result.error is not None:
        warnings.append(result.error.message)
    unverified = sum(not c.verified for c in verification.citations)
    if unverified:
        warnings.append(f"{unverified} citation(s) could not be verified and are flagged")
    status = _turn_status(result, parsed)
    audit.audit(
        "llm.response",
        correlation,
        status=status,
        parse_outcome=parsed.outcome,
        repairs=parsed.repairs,
        citations=len(verification.citations),
        unverified=unverified,
        usage=result.usage.model_dump(),
    )
    provider = str(result.provider_meta.provider)
    answer = Answer(status, parsed.markdown, _shown(verification), None, warnings, provider, result)
    return answer, parsed


def _turn_status(result: ChatResult, parsed: ParsedResponse) -> Status:
    """What the turn amounts to: nothing to show, cut short, not the format asked, or ok."""
    if not parsed.ok:
        return "error"
    if result.status == "partial" or parsed.truncated:
        return "partial"
    return "invalid_output" if parsed.outcome == "markdown_fallback" else "ok"


def _run_status(status: Status) -> Literal["ok", "partial", "error"]:
    if status == "error":
        return "error"
    return "partial" if status == "partial" else "ok"


def _as_numbered(kept: list[dict[str, Any]], dropped: list[Any]) -> list[dict[str, Any]]:
    """The citations in the order the reply wrote them, so that its `[n]` markers still name
    the n-th: one the parser dropped keeps its place, salvaged or as a rejected entry."""
    lost: dict[int, dict[str, Any]] = {}
    for item in dropped:
        place = _CITATION_PATH.fullmatch(item.path)
        if item.what == "citation" and place:
            lost[int(place.group(1))] = _salvaged(item.value) or {"invalid": item.reason}
    numbered: list[dict[str, Any]] = []
    rest = iter(kept)
    for index in range(len(kept) + len(lost)):
        citation = lost.pop(index, None) or next(rest, None)
        if citation is not None:
            numbered.append(citation)
    return numbered + list(rest) + [lost[index] for index in sorted(lost)]


def _salvaged(value: Any) -> dict[str, Any] | None:
    """A citation the parser dropped as invalid LLMCP (most often: no `url`, which small
    models leave out) is still checked: verification takes the URL from the pack (the
    model's is never carried), and a quote that is not in the stored text stays unverified."""
    if (isinstance(value, dict) and isinstance(value.get("quote"), str)) and (
        value.get("doc_id") or value.get("source_id")
    ):
        return {k: value.get(k) for k in ("doc_id", "source_id", "quote")}
    return None


def _as_dict(citation: Any) -> dict[str, Any]:
    dump = getattr(citation, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else dict(citation)


def coverage_of(pack: Pack, citations: list[dict[str, Any]]) -> dict[str, Any]:
    """Which sources the answer read in full, in part (passages or a summary) or not at all
    (a title, or not sent), and the share of its citations that verified."""
    tiers = pack.tiers
    full = [s for s, tier in tiers.items() if tier == "full"]
    part = [s for s, tier in tiers.items() if tier in ("passages", "summary")]
    unread = len(tiers) - len(full) - len(part) + pack.unsent
    verified = sum(c.get("state") == "verified" for c in citations)
    return {
        "read_in_full": full,
        "read_in_part": part,
        "not_read": unread,
        "citations": len(citations),
        "verified": verified,
    }


def _shown(verification: Verification) -> list[dict[str, Any]]:
    return [c.to_json() for c in verification.citations]


async def _persist(
    store: Store,
    *,
    collection_id: str,
    question: str,
    answer: Answer,
    pack: Pack,
    provider: ProviderConfig | None,
    correlation: str,
    user_event_id: str,
    kind: str = "chat.ask",
    task: Task = "web.answer",
    tools: Sequence[str] | None = None,
) -> None:
    model_id = provider.model if provider and not answer.fallback else "extractive"
    model: dict[str, JsonValue] = {
        "provider": answer.provider,
        "model": model_id,
        "status": answer.status,
    }
    if answer.fallback is not None:
        model["fallback_from"] = answer.fallback.provider
    event = await store.chat.append(
        collection_id,
        "assistant",
        answer.answer_markdown or "(no answer)",
        citations=cast("list[JsonValue]", answer.citations),
        tool_calls=cast("list[JsonValue]", answer.tool_calls),
        model=model,
    )
    result = answer.chat_result
    usage = RunUsage()
    if result is not None:
        usage = RunUsage(
            result.usage.input_tokens, result.usage.output_tokens, None, int(result.duration_ms)
        )
    request = audit.redacted_request(
        provider=answer.provider,
        model=model_id,
        question=question,
        system=_system(provider, tools or (), task),
        documents=pack.documents,
    )
    run = await store.runs.append(
        kind,
        provider_id=answer.provider,
        model_id=model_id,
        links=RunLinks(collection_id=collection_id, chat_event_id=event.id),
        usage=usage,
        status=_run_status(answer.status),
        request=request,
        response={
            "status": answer.status,
            "answer": audit.digest(answer.answer_markdown),
            "citations": len(answer.citations),
            "correlation_id": correlation,
            "user_event_id": user_event_id,
        },
        error=redact_prefix("; ".join(answer.warnings), 2000) if answer.status == "error" else None,
    )
    answer.run_id = run.id
    if provider is None:
        audit.audit(
            "llm.response", correlation, provider="offline", status=answer.status, run_id=run.id
        )
