"""The shipped rules of the Policy Gate, as data (issue #16: safe by default).

`GUARD_RULES` come before any user or remembered rule, so nothing can allow what they deny.
`DEFAULT_RULES` come after them: read-only tools allow; writes to collections, sources and
artifacts ask; browser actions ask; sharing to a file asks; anything else asks.
"""

from __future__ import annotations

from .policy import Condition, FieldKind, Rule

SENSITIVE_FIELDS: list[FieldKind] = ["credential", "payment", "identity"]

READ_ONLY_TOOLS = [
    "search",
    "app.calculate",
    "artifact.open",
    "collection.list_sources",
    "transform.list_types",
    "browser.observe_dom",
    "browser.get_selection_links",
]
"""Tools that change nothing: they read the library, the page the user is on, or compute."""

WRITE_TOOLS = [
    "collection.create",
    "collection.add_sources",
    "source.capture",
    "source.refresh",
    "artifact.save",
    "transform.run",
]
"""Tools that add to or change what the library keeps (or fetch pages into it)."""


def _tools(names: list[str]) -> Condition:
    return Condition(any_of=[Condition(tool=name) for name in names])


# --- issue #17 item 4: the settings family (settings.*, policy.*, rules.*) ---------------
SETTINGS_READ_TOOLS = ["settings.show", "rules.list"]
"""Settings tools that change nothing (a test checks the catalog agrees)."""
SETTINGS_PREFIXES = ["settings.", "policy.", "rules."]
"""Every settings tool's name starts with one of these."""
POLICY_GUARD = Rule(
    id="guard.policy_write",
    decision="ask",
    when=Condition(tool="policy.", origin=["model"]),
    reason="a model proposes to change the Policy Gate's rules: you decide, every time",
)
"""Among the guards, so neither a user rule nor a remembered approval lifts it."""
SETTINGS_READ = Rule(
    id="default.settings_read",
    decision="allow",
    when=_tools(SETTINGS_READ_TOOLS),
    reason="it only shows your settings",
)
SETTINGS_WRITES = Rule(
    id="default.settings_writes",
    decision="ask",
    when=Condition(any_of=[Condition(tool=prefix) for prefix in SETTINGS_PREFIXES]),
    reason="it changes your settings",
)
"""In DEFAULT_RULES: reads first, then an event rule's actions (item 5), then this."""
# --- end of issue #17 item 4 ----------------------------------------------------------------

GUARD_RULES: tuple[Rule, ...] = (
    Rule(
        id="guard.unknown_tool",
        decision="deny",
        when=Condition(known_tool=False),
        reason="no such tool: Laika can only run the tools it lists",
    ),
    Rule(
        id="guard.url_scheme",
        decision="deny",
        when=Condition(url_scheme_not_in=["http", "https"]),
        reason="only http(s) addresses can be opened or fetched",
    ),
    Rule(
        id="guard.sensitive_field",
        decision="deny",
        when=Condition(tool="browser.", field_kind=SENSITIVE_FIELDS),
        reason="Laika never clicks or types in password, payment or identity fields",
    ),
    Rule(
        id="guard.integration",
        decision="deny",
        when=Condition(tool="integration.invoke", integration_configured=False),
        reason="no integration is configured (none exist yet)",
    ),
    POLICY_GUARD,
)

DEFAULT_RULES: tuple[Rule, ...] = (
    Rule(
        id="default.read_only",
        decision="allow",
        when=_tools(READ_ONLY_TOOLS),
        reason="a read-only tool",
    ),
    SETTINGS_READ,
    # Issue #17 item 5, event rules (origin "rule"): the user approved the rule's actions
    # when the rule was saved, so its writes run; what acts in the browser, shares or calls
    # out still asks (and stays pending in `laika approvals`). The guards above still apply.
    Rule(
        id="default.rule_writes",
        decision="allow",
        when=Condition(
            origin=["rule"],
            any_of=[Condition(tool=name) for name in [*WRITE_TOOLS, "settings.", "rules."]],
        ),
        reason="an action of one of your event rules (you approved it with the rule)",
    ),
    Rule(
        id="default.rule_other",
        decision="ask",
        when=Condition(origin=["rule"]),
        reason="an event rule's action that acts in your browser, shares or calls out",
    ),
    # End of issue #17 item 5.
    SETTINGS_WRITES,
    Rule(
        id="default.share_file",
        decision="ask",
        when=Condition(tool="artifact.share", file_target=True),
        reason="sharing to a file writes to your disk",
    ),
    Rule(
        id="default.share",
        decision="allow",
        when=Condition(tool="artifact.share"),
        reason="an export shown to you, nothing written",
    ),
    Rule(
        id="default.writes",
        decision="ask",
        when=_tools(WRITE_TOOLS),
        reason="it changes your collections, sources or artifacts",
    ),
    Rule(
        id="default.browser_actions",
        decision="ask",
        when=Condition(tool="browser."),
        reason="it acts in your browser tab",
    ),
    Rule(
        id="default.ask",
        decision="ask",
        when=Condition(),
        reason="no rule allows it",
    ),
)
