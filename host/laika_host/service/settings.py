"""Natural-language settings: one sentence -> one curated settings tool, proposed through the
Policy Gate. One orchestration for `laika settings` and the native `settings.ask`.

Who chooses: a model, when one is configured (it is asked to pick exactly one tool of those
offered, as strict JSON; any other reply, or no answer, falls back to the matcher, never to
free-form text), else the deterministic matcher (`settings.intent`). The choice goes to the
caller's tool runner (`tools.chat_runner`, built with the settings family), which gates it
(origin `model` when a model chose, `user` when the matcher read the user's own words) and
waits for an approval as a chat does. The service never imports the gate: the runner is
handed in, as `service.ask` takes one, so the layers stay acyclic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import urlsplit

from ..config.secrets import WHERE_SECRETS_GO
from ..llm.config import ProviderConfig, load_providers
from ..redact import redact_value, says_secret
from ..settings import wording
from ..settings.catalog import SETTINGS_TOOLS
from ..settings.intent import MAX_TEXT, Decline, ProviderFacts, match
from ..store import InvalidInputError
from ..strict_json import NotJsonError, loads_strict
from .models import ProviderChoice, resolve

if TYPE_CHECKING:
    from ..store import Store

Status = Literal["applied", "pending", "declined", "denied", "failed"]
Chooser = Literal["model", "matcher"]
CHOICE_TOKENS = 400
"""A reply naming one tool and its arguments is short; a longer one is cut (and refused)."""
MAX_REPLY = 20_000
"""Characters of a model's reply the parser reads (a longer one is refused unread)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class SettingsRunner(Protocol):
    """The caller's gate for one proposal (`tools.chat_runner.ChatRunner`)."""

    def offered(self) -> list[str]:
        """The settings tools that may be chosen."""
        ...

    async def propose(
        self, tool: str, arguments: dict[str, Any], origin: Literal["model", "user"]
    ) -> dict[str, Any]:
        """Gate the call, wait for an approval where the caller can, run it if allowed;
        its last `tool_call` event."""
        ...


@dataclass(frozen=True)
class Choice:
    """What the chooser decided: one tool with its arguments, or a decline (`tool` None)."""

    tool: str | None
    arguments: dict[str, Any]
    by: Chooser
    reason: str = ""
    notes: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()
    """On a decline: the closest tools, best first (offered in words)."""


@dataclass(frozen=True)
class SettingsReply:
    status: Status
    tool: str | None
    arguments: dict[str, Any] | None
    message: str
    decision: dict[str, Any] | None = None
    change: dict[str, Any] | None = None
    can_change: list[dict[str, str]] = field(default_factory=list)
    approval_id: str | None = None
    chosen_by: Chooser = "matcher"
    notes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    """Sentences under the message: the settings shown, the event rules listed."""
    suggestions: list[str] = field(default_factory=list)
    """On a decline: the closest things that can be changed, in words."""
    question: bool = False
    """Declined because Laika could not tell what to change: the message asks back."""

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "tool": self.tool,
            # redacted: a model may echo a key it was shown (refused from the registry, it
            # must not be printed or sent to the panel either)
            "arguments": None if self.arguments is None else redact_value(self.arguments),
            "decision": self.decision,
            "message": redact_value(self.message),
            "change": self.change,
            "can_change": self.can_change,
            "approval_id": self.approval_id,
            "chosen_by": self.chosen_by,
            "notes": self.notes,
            "details": redact_value(self.details),
            "suggestions": self.suggestions,
            "question": self.question,
        }


def check_text(text: str) -> str:
    """The request, or InvalidInputError naming the bound (empty or too long) or saying
    that it holds a secret: such a request is refused before any matcher or model reads it,
    and before anything records it (the message never repeats it)."""
    stripped = text.strip()
    if not stripped:
        raise InvalidInputError("say which setting to change, e.g. `use dark mode`")
    if len(stripped) > MAX_TEXT:
        raise InvalidInputError(
            f"the request has {len(stripped):,} characters; say it in at most {MAX_TEXT:,}"
        )
    if says_secret(stripped):
        raise InvalidInputError(
            "that looks like a password or a key, and Laika never stores secrets in settings "
            f"(they are kept in a file and its history): {WHERE_SECRETS_GO}"
        )
    return stripped


def can_change(offered: Sequence[str] | None = None) -> list[dict[str, str]]:
    """Every settings tool (or those offered) with what it does: what a decline lists."""
    names = list(SETTINGS_TOOLS) if offered is None else list(offered)
    return [
        {"name": name, "description": SETTINGS_TOOLS[name].description}
        for name in names
        if name in SETTINGS_TOOLS
    ]


async def ask(
    store: Store, text: str, *, provider: ProviderChoice, runner: SettingsRunner
) -> SettingsReply:
    """Choose one settings tool for `text` and propose it through `runner` (see the module
    docstring); a request no tool serves is declined with the list of what can change."""
    del store  # the runner holds it; kept for the service's usual signature
    text = check_text(text)
    offered = runner.offered()
    choice = await choose(text, provider, offered)
    if choice.tool is None:
        return _declined(choice, offered, text)
    origin: Literal["model", "user"] = "model" if choice.by == "model" else "user"
    event = await runner.propose(choice.tool, choice.arguments, origin)
    return reply_of(event, choice)


async def choose(text: str, provider: ProviderChoice, offered: Sequence[str]) -> Choice:
    """The model's choice when a provider answers with a valid one, else the matcher's."""
    config = resolve(provider)
    facts = provider_facts(load_providers())
    if config is None:
        return _matched(text, facts)
    picked, problem = await _model_choice(config, text, offered)
    if picked is not None:
        return picked
    return _matched(text, facts, notes=(f"{problem}; read by the offline matcher instead",))


def _matched(text: str, facts: list[ProviderFacts], notes: tuple[str, ...] = ()) -> Choice:
    from ..transform.catalog import catalog
    from .rules import list_rules

    rule_ids = [rule.id for rule in list_rules()]
    found = match(text, facts, rule_ids=rule_ids, transform_types=sorted(catalog()))
    if isinstance(found, Decline):
        return Choice(
            None, {}, "matcher", reason=found.reason, notes=notes, suggestions=found.suggestions
        )
    return Choice(found.tool, found.arguments, "matcher", notes=notes)


def provider_facts(providers: Sequence[ProviderConfig]) -> list[ProviderFacts]:
    """What the matcher needs of each provider: its id, kind and whether it is local."""
    return [ProviderFacts(p.id, p.kind, _local(p)) for p in providers]


def _local(provider: ProviderConfig) -> bool:
    if provider.kind == "ollama":
        return True
    try:
        host = urlsplit(provider.base_url or "").hostname or ""
    except ValueError:
        return False
    return host in LOOPBACK


# --- the model's choice ------------------------------------------------------------------

SYSTEM = (
    "You change the settings of Laika, a local research assistant, by choosing exactly one "
    "tool from the list below for the user's request. Reply with one JSON object and "
    'nothing else: {"tool": "<name>", "arguments": {...}} with arguments as the tool\'s '
    'schema says, or {"decline": "<why>"} when no tool does what the user asks (never '
    "invent a tool, and never turn off the Policy Gate, send data anywhere or store keys).\n"
    "Tools:\n"
)


def prompt(offered: Sequence[str]) -> str:
    """The system prompt: the instructions and one line per offered tool with its schema."""
    lines = []
    for name in offered:
        tool = SETTINGS_TOOLS.get(name)
        if tool is None:
            continue
        schema = tool.arguments.model_json_schema()
        brief = {"properties": _plain(schema), "required": schema.get("required", [])}
        lines.append(f"- {name}: {tool.description} Arguments: {json.dumps(brief)}")
    return SYSTEM + "\n".join(lines)


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    plain: dict[str, Any] = {}
    for key, value in schema.get("properties", {}).items():
        options = [o for o in value.get("anyOf", [value]) if o.get("type") != "null"]
        first = options[0] if options else value
        kept = {k: first[k] for k in ("type", "enum", "minimum", "maximum") if k in first}
        plain[key] = kept or {"type": "any"}
    return plain


async def _model_choice(
    config: ProviderConfig, text: str, offered: Sequence[str]
) -> tuple[Choice | None, str]:
    """The model's valid choice, or None and why its reply could not be used."""
    from ..llm.client import ChatClient
    from ..llm.contract import ChatMessage, ChatRequest

    request = ChatRequest(
        model=config.model,
        messages=[
            ChatMessage(role="system", content=prompt(offered)),
            ChatMessage(role="user", content=text),
        ],
        response_format={"type": "json_object"},
        max_tokens=CHOICE_TOKENS,
        temperature=0,
    )
    async with ChatClient() as client:
        result = await client.complete(config, request)
    if result.status != "ok":
        why = result.error.message if result.error is not None else result.status
        return None, f"model {config.id!r} did not answer ({why[:200]})"
    picked = parse_choice(result.text, offered)
    if picked is None:
        return None, f"model {config.id!r} did not reply with one offered settings tool"
    return picked, ""


def parse_choice(reply: str, offered: Sequence[str]) -> Choice | None:
    """A reply that is exactly `{"tool": NAME, "arguments": {...}}` with an offered NAME, or
    `{"decline": "why"}`; None for anything else (prose, another tool, extra keys)."""
    if len(reply) > MAX_REPLY:
        return None
    try:
        value = loads_strict(reply.strip())
    except NotJsonError:
        return None
    if not isinstance(value, dict):
        return None
    if set(value) == {"decline"} and isinstance(value["decline"], str):
        return Choice(None, {}, "model", reason=value["decline"][:300] or "the model declined")
    tool, arguments = value.get("tool"), value.get("arguments")
    if set(value) != {"tool", "arguments"} or tool not in offered:
        return None
    if not isinstance(arguments, dict):
        return None
    return Choice(str(tool), arguments, "model")


# --- the reply ---------------------------------------------------------------------------

_STATUS: dict[str, Status] = {
    "executed": "applied",
    "pending": "pending",
    "denied": "denied",
    "failed": "failed",
}


def _declined(choice: Choice, offered: Sequence[str], text: str) -> SettingsReply:
    """No change: the reason (or the question back) and the closest three things that can
    be changed, in words; `can_change` still lists every tool for `--json` readers."""
    suggestions = [name for name in choice.suggestions if name in offered]
    if not suggestions:  # a model's decline: the matcher knows what the words were near
        found = match(text)
        suggestions = [n for n in getattr(found, "suggestions", ()) if n in offered]
    asks = choice.reason.rstrip().endswith("?")
    reason = _sentence(choice.reason)
    about_one = asks and suggestions and not choice.reason.startswith("which setting")
    message = reason if about_one else f"{reason} {wording.offer(suggestions)}"
    return SettingsReply(
        "declined",
        None,
        None,
        message,
        can_change=can_change(offered),
        chosen_by=choice.by,
        notes=list(choice.notes),
        suggestions=wording.abilities(suggestions),
        question=asks,
    )


def _sentence(reason: str) -> str:
    """A reason as a sentence: capitalized, ending in a full stop (or its question mark)."""
    text = reason.strip() or "that is not something Laika's settings can change"
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".?!" else text + "."


def reply_of(event: dict[str, Any], choice: Choice) -> SettingsReply:
    """The reply for the call's last `tool_call` event."""
    status = _STATUS.get(str(event.get("status")), "failed")
    result = event.get("result") if status == "applied" else None
    change = result.get("change") if isinstance(result, dict) else None
    message, details = _message(status, event, choice)
    return SettingsReply(
        status,
        choice.tool,
        choice.arguments,
        message,
        decision={k: event.get(k) for k in ("decision", "rule_id", "reason")},
        change=change if isinstance(change, dict) else None,
        approval_id=event.get("approval_id") if status == "pending" else None,
        chosen_by=choice.by,
        notes=list(choice.notes),
        details=details,
    )


def _message(status: Status, event: dict[str, Any], choice: Choice) -> tuple[str, list[str]]:
    """What came of the call in sentences: one line, and the lines under it (a listing)."""
    tool = str(choice.tool)
    shown = event.get("arguments")  # as stored: redacted (a model may propose a key)
    call = wording.describe_call(tool, shown if isinstance(shown, dict) else {})
    if status == "applied":
        said = wording.describe_result(tool, shown, event.get("result"))
        lines = said.splitlines() or ["Done."]
        if tool == "settings.show" and not choice.arguments.get("path"):
            return "Your settings:", lines
        return lines[0], lines[1:]
    if status == "pending":
        return f"Waiting for your approval: {call[:1].lower()}{call[1:]}.", []
    if status == "denied":
        why = event.get("error") or event.get("reason") or "the Policy Gate said no"
        return f"Not changed ({call[:1].lower()}{call[1:]}): {why}", []
    return f"Could not {call[:1].lower()}{call[1:]}: {event.get('error') or 'no reason given'}", []
