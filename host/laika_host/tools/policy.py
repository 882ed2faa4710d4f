"""The Policy Gate: a pure function from a proposed tool call, the turn's context and the
rules to allow, ask or deny, with the rule that decided and why.

Rules are data (`Rule`: an id, a decision and a `Condition`), so a user's `policy.json`, a
remembered approval and the shipped defaults are read by the same matcher. Order:

1. the guards (`policy_rules.GUARD_RULES`): what nothing may allow (a tool that does not
   exist, a URL that is not http(s), typing into a password or card field, an integration
   that is not configured);
2. the caller's rules, first match wins (the user's file, then remembered decisions);
3. the defaults (`policy_rules.DEFAULT_RULES`), ending in a catch-all `ask`.

Whatever decided, a proposal made while untrusted content (a page) is in the turn's context,
or on a page's behalf, never runs without the user: an `allow` becomes `ask`, and the reason
names the rule that allowed it. So does an event rule's action past its operation's action
budget (`GateContext.over_budget`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, JsonValue

BUDGET_MARK = "the event rules of this operation have run their action budget"
Verdict = Literal["allow", "ask", "deny"]
Origin = Literal["user", "page", "model", "rule"]
"""Who asked: the user's own words, content of a page, the model on its own, or one of the
user's event rules (issue #17 item 5)."""
FieldKind = Literal["credential", "payment", "identity", "other"]
"""What an observed form field holds (`fields.field_kind`), for click/type/select targets."""
HANDLE_TOOLS = ("browser.click", "browser.type", "browser.select")

Name = Annotated[str, Field(min_length=1, max_length=200)]


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Proposal(_Data):
    """A tool call as proposed (`{name, arguments}`), before or after validation."""

    name: str
    arguments: dict[str, JsonValue] = Field(default_factory=dict)


class GateContext(_Data):
    """What the gate knows about the turn besides the call itself."""

    origin: Origin = "model"
    untrusted_context: bool = False
    collection: str | None = None
    """The turn's collection (id or title), the target of calls that name none."""
    field_kinds: dict[str, FieldKind] = Field(default_factory=dict)
    """Handle id -> what the field holds, from the extension's latest observation."""
    integrations: frozenset[str] = frozenset()
    """Integrations the user configured (none exist yet)."""
    over_budget: bool = False
    """An event rule's action past its operation's action budget (`events.budget`): an
    `allow` becomes `ask`."""


class Condition(_Data):
    """Holds when every leaf given holds, one of `any` holds (if given), all of `all` hold,
    and `not` does not hold. An empty condition holds for every call."""

    tool: Name | None = None
    """An exact tool name, or a prefix ending in "." (`browser.`)."""
    known_tool: bool | None = None
    url_scheme: list[Name] | None = None
    """Some URL in the arguments has one of these schemes."""
    url_scheme_not_in: list[Name] | None = None
    """Some URL in the arguments has a scheme outside these."""
    url_domain: list[Name] | None = None
    """Some URL's host is one of these domains or under one (`example.com` holds for
    `www.example.com`)."""
    collection: list[Name] | None = None
    """The target collection (the `collectionId` argument, else the turn's), any case."""
    file_target: bool | None = None
    origin: list[Origin] | None = None
    untrusted_context: bool | None = None
    field_kind: list[FieldKind] | None = None
    """The targeted handle's field kind (unobserved handles have none)."""
    integration_configured: bool | None = None
    any_of: list[Condition] | None = Field(default=None, alias="any")
    all_of: list[Condition] | None = Field(default=None, alias="all")
    not_: Condition | None = Field(default=None, alias="not")


class Rule(_Data):
    id: Name
    decision: Verdict
    when: Condition = Field(default_factory=Condition)
    reason: str = ""


class Decision(_Data):
    decision: Verdict
    rule_id: str
    reason: str
    forced_ask: bool = False
    """An `allow` turned into `ask` because untrusted content was in context."""


def decide(
    proposal: Proposal,
    context: GateContext,
    rules: Sequence[Rule] = (),
    *,
    guards: Sequence[Rule] | None = None,
    defaults: Sequence[Rule] | None = None,
) -> Decision:
    """The first matching rule of guards, `rules`, defaults (see the module docstring)."""
    from .policy_rules import DEFAULT_RULES, GUARD_RULES

    ordered = [*(GUARD_RULES if guards is None else guards), *rules]
    ordered += DEFAULT_RULES if defaults is None else defaults
    for rule in ordered:
        if matches(rule.when, proposal, context):
            return _with_override(rule, context)
    return _with_override(Rule(id="default.ask", decision="ask", reason="no rule matched"), context)


def _with_override(rule: Rule, context: GateContext) -> Decision:
    reason = rule.reason or f"rule {rule.id}"
    untrusted = context.untrusted_context or context.origin == "page"
    if rule.decision == "allow" and untrusted:
        why = (
            f"rule {rule.id} allows it ({reason}), but untrusted page content is in this "
            "turn's context, so the user decides"
        )
        return Decision(decision="ask", rule_id=rule.id, reason=why, forced_ask=True)
    if rule.decision == "allow" and context.over_budget:
        why = (
            f"rule {rule.id} allows it ({reason}), but {BUDGET_MARK} (the actions one "
            "operation may set off), so you decide"
        )
        return Decision(decision="ask", rule_id=rule.id, reason=why)
    return Decision(decision=rule.decision, rule_id=rule.id, reason=reason)


def matches(condition: Condition, proposal: Proposal, context: GateContext) -> bool:
    """Whether `condition` holds for this call in this context."""
    if not (
        _leaf_tool(condition, proposal)
        and _leaf_urls(condition, proposal)
        and _leaf_context(condition, proposal, context)
    ):
        return False
    if condition.any_of is not None and not any(
        matches(c, proposal, context) for c in condition.any_of
    ):
        return False
    if condition.all_of is not None and not all(
        matches(c, proposal, context) for c in condition.all_of
    ):
        return False
    return condition.not_ is None or not matches(condition.not_, proposal, context)


def tool_matches(pattern: str, name: str) -> bool:
    """Exact name, or a prefix ending in "." (`browser.` holds for `browser.click`)."""
    return name.startswith(pattern) if pattern.endswith(".") else name == pattern


def _leaf_tool(condition: Condition, proposal: Proposal) -> bool:
    if condition.tool is not None and not tool_matches(condition.tool, proposal.name):
        return False
    if condition.known_tool is None:
        return True
    from .registry import REGISTRY  # every family: the v1 tools and the settings tools

    return condition.known_tool == (proposal.name in REGISTRY)


def _leaf_urls(condition: Condition, proposal: Proposal) -> bool:
    urls = list(call_urls(proposal.arguments))
    if condition.url_scheme is not None:
        wanted = {scheme.lower() for scheme in condition.url_scheme}
        if not any(url_scheme(url) in wanted for url in urls):
            return False
    if condition.url_scheme_not_in is not None:
        allowed = {scheme.lower() for scheme in condition.url_scheme_not_in}
        if not any(url_scheme(url) not in allowed for url in urls):
            return False
    if condition.url_domain is not None:
        domains = [domain.lower().strip(".") for domain in condition.url_domain]
        hosts = [url_host(url) for url in urls]
        return any(_under(host, domain) for host in hosts for domain in domains)
    return True


def _leaf_context(condition: Condition, proposal: Proposal, context: GateContext) -> bool:
    if condition.collection is not None and not _in_fold(
        target_collection(proposal, context), condition.collection
    ):
        return False
    if condition.file_target is not None and condition.file_target != file_target(
        proposal.arguments
    ):
        return False
    if condition.origin is not None and context.origin not in condition.origin:
        return False
    if condition.untrusted_context not in (None, context.untrusted_context):
        return False
    if condition.field_kind is not None and (
        target_field_kind(proposal, context) not in condition.field_kind
    ):
        return False
    integration = proposal.arguments.get("integration")
    configured = isinstance(integration, str) and integration in context.integrations
    return condition.integration_configured in (None, configured)


def call_urls(arguments: dict[str, JsonValue]) -> Iterator[str]:
    """The URLs a call would open or fetch: `url`, and each source's `url`."""
    if isinstance(url := arguments.get("url"), str):
        yield url
    sources = arguments.get("sources")
    if isinstance(sources, list):
        for source in sources:
            if isinstance(source, dict) and isinstance(url := source.get("url"), str):
                yield url


def url_scheme(url: str) -> str:
    """The scheme as a browser reads it (leading blanks and tabs or newlines dropped); ""
    when there is none."""
    try:
        return urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return ""


def url_host(url: str) -> str:
    try:
        return (urlsplit(url.strip()).hostname or "").rstrip(".")
    except ValueError:
        return ""


def _under(host: str, domain: str) -> bool:
    return bool(host) and (host == domain or host.endswith("." + domain))


def target_collection(proposal: Proposal, context: GateContext) -> str | None:
    named = proposal.arguments.get("collectionId")
    return named if isinstance(named, str) else context.collection


def _in_fold(value: str | None, wanted: list[str]) -> bool:
    return value is not None and value.casefold() in {item.casefold() for item in wanted}


def file_target(arguments: dict[str, JsonValue]) -> bool:
    """The call writes a file (`artifact.share` with target `file`)."""
    return arguments.get("target") == "file"


def target_field_kind(proposal: Proposal, context: GateContext) -> FieldKind | None:
    """The kind of field a click/type/select acts on, from the latest observation."""
    handle = proposal.arguments.get("handleId")
    if proposal.name not in HANDLE_TOOLS or not isinstance(handle, str):
        return None
    return context.field_kinds.get(handle)
