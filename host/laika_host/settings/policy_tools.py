"""Settings tools that change the Policy Gate's user rules: allow tools on a domain, and
forget a decision (one remembered in the store, or a rule in `policy.rules`). The only tools
that may write `policy`; none can remove the guards or turn the gate off."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from ..addresses import host_refusal, is_address_spelling
from ..config.registry import Who
from ..errors import MissingError, RefusedError
from ..protocol.tools import TOOL_ARGUMENTS
from ..tools.policy import Condition, Rule
from .tool import SettingsArguments, SettingsTool
from .writes import result, writer

if TYPE_CHECKING:
    from ..store import Store

POLICY_RULES = "policy.rules"
MAX_DOMAIN = 253
_DOMAIN = re.compile(r"[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+")
URL_TOOLS = ("browser.navigate", "browser.open_tab", "source.capture", "source.refresh")
"""What `policy.allow_domain` allows when it names no tools: opening and capturing pages."""
RULE_PREFIX = "allow-"


class AllowDomainArguments(SettingsArguments):
    domain: str = Field(
        min_length=3,
        max_length=MAX_DOMAIN,
        description="A domain such as `example.org` (its subdomains are included).",
    )
    tools: list[str] | None = Field(
        default=None,
        max_length=len(TOOL_ARGUMENTS),
        description=f"The tools allowed there; none: {', '.join(URL_TOOLS)}.",
    )

    @field_validator("domain")
    @classmethod
    def _domain(cls, value: str) -> str:
        domain = value.strip().lower().rstrip(".")
        if is_address_spelling(domain):
            raise ValueError(_address_problem(value[:80], domain))
        if not _DOMAIN.fullmatch(domain):
            raise ValueError(
                f"{value[:80]!r} is not a domain: give a bare name such as `example.org`"
            )
        return domain

    @field_validator("tools")
    @classmethod
    def _tools(cls, value: list[str] | None) -> list[str] | None:
        for name in value or []:
            if name not in TOOL_ARGUMENTS:
                raise ValueError(
                    f"{name[:80]!r} is not a tool a domain rule can allow "
                    "(`laika tools list` names them)"
                )
        return value


def _address_problem(value: str, domain: str) -> str:
    """Why a domain rule cannot name an address (`127.0.0.1`, `127.1`, `0x7f.1`) or this
    machine (`app.localhost`): a model could otherwise allow itself into the user's machine
    or network, which no rule may (the fetcher refuses it anyway: `capture.fetch_guard`)."""
    found = host_refusal(domain)
    if found is None:
        return f"{value!r} is an address, not a domain: give a name such as `example.org`"
    what = found.phrase.removeprefix(f"its host {domain} is ").removeprefix("its host is ")
    return (
        f"{value!r} is {what}, not a domain: Laika never lets a model fetch from your own "
        "machine or network, so no rule can allow it; give a name such as `example.org`"
    )


def allow_rule(arguments: AllowDomainArguments) -> Rule:
    tools = arguments.tools or list(URL_TOOLS)
    return Rule(
        id=RULE_PREFIX + arguments.domain,
        decision="allow",
        when=Condition(
            url_domain=[arguments.domain], any_of=[Condition(tool=name) for name in tools]
        ),
        reason=f"you allowed {', '.join(tools)} on {arguments.domain}",
    )


def _allow(arguments: AllowDomainArguments, current: dict[str, Any]) -> dict[str, Any]:
    rule = allow_rule(arguments)
    shown = rule.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    kept = [r for r in current["policy"]["rules"] if r.get("id") != rule.id]
    return {POLICY_RULES: [*kept, shown]}


class ForgetDecisionArguments(SettingsArguments):
    rule_id: str = Field(
        min_length=1,
        max_length=200,
        description="A remembered decision (`laika approvals rules`) or a rule of `policy.rules`.",
    )


def _forget_rule(arguments: ForgetDecisionArguments, current: dict[str, Any]) -> dict[str, Any]:
    rules = current["policy"]["rules"]
    kept = [r for r in rules if r.get("id") != arguments.rule_id]
    if len(kept) == len(rules):
        known = ", ".join(str(r.get("id")) for r in rules[:20]) or "none"
        raise RefusedError(
            f"no decision or rule {arguments.rule_id[:200]!r}: the remembered decisions are "
            f"listed by `laika approvals rules`; the rules in policy.rules are: {known}"
        )
    return {POLICY_RULES: kept}


_FORGET_RULE = writer("policy.forget_decision", (POLICY_RULES,), _forget_rule)


async def _forget(arguments: ForgetDecisionArguments, who: Who, store: Store) -> dict[str, Any]:
    """A decision remembered always (the gate's `remembered.` prefix may be given), else a
    user rule of the registry."""
    remembered = arguments.rule_id.removeprefix("remembered.")
    try:
        forgotten = await store.tool_rules.forget(remembered)
    except MissingError:
        return await _FORGET_RULE(arguments, who, store)
    return result("policy.forget_decision", None, arguments, forgotten=forgotten.to_json())


TOOLS: tuple[SettingsTool, ...] = (
    SettingsTool(
        "policy.allow_domain",
        "Let the model open or capture pages on a domain without asking (or the tools named).",
        AllowDomainArguments,
        (POLICY_RULES,),
        writer("policy.allow_domain", (POLICY_RULES,), _allow),
        ("allow example.org", "always allow captures from example.org"),
    ),
    SettingsTool(
        "policy.forget_decision",
        "Forget a decision you asked Laika to remember, or a rule you added.",
        ForgetDecisionArguments,
        (POLICY_RULES,),
        _forget,
        ("forget decision rule_123", "revoke rule allow-example.org"),
    ),
)
