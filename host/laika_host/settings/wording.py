"""The settings tools in words a person reads: what a call will do ("Set the maximum capture
length to 50,000 characters"), what it did ("Captured pages now keep at most 50,000
characters."), what the settings are, and what a decline offers instead ("I can change the
maximum capture length, the default collection, or the theme."). Never a tool id, never
JSON: `laika settings`, `laika approvals`, the native replies and the side panel show these,
and `--json` still gives the data.

Pure functions over the tools' arguments and results; a value that is not the expected shape
(a model may propose anything) falls back to plain words, never raises.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

ABILITIES: dict[str, str] = {
    "settings.set_capture_limit": "change the maximum capture length",
    "settings.set_default_collection": "change the default collection",
    "settings.set_theme": "change the theme",
    "settings.set_citations": "show or hide the citations in answers",
    "settings.set_default_provider": "choose the model that answers",
    "settings.set_redaction": "hide more field names as secrets",
    "settings.set_preference": "remember a preference of yours",
    "settings.forget_preference": "forget a preference",
    "settings.show": "show your settings",
    "policy.allow_domain": "let the model open or capture a site without asking",
    "policy.forget_decision": "forget a decision you asked me to remember",
    "rules.create": "create an event rule",
    "rules.delete": "delete an event rule",
    "rules.list": "list your event rules",
}
"""What each tool lets the user do, as a verb phrase (a decline offers these)."""

_TRIGGERS = {
    "source.captured": "a page is captured",
    "source.capture_failed": "a capture fails",
    "artifact.completed": "an artifact is finished",
    "collection.created": "a collection is created",
    "chat.answered": "a question is answered",
}
_URL_TOOLS = {
    "browser.open_tab": "open",
    "browser.navigate": "open",
    "source.capture": "capture",
    "source.refresh": "capture",
}
MAX_SHOWN = 10
"""Items of a list named in one sentence; more are counted."""


def offer(tools: Sequence[str]) -> str:
    """ "I can change the maximum capture length, the default collection, or the theme." """
    phrases = [ABILITIES[name] for name in tools if name in ABILITIES]
    if not phrases:
        phrases = [ABILITIES[name] for name in list(ABILITIES)[:3]]
    shortened = [phrases[0]]
    for before, phrase in itertools.pairwise(phrases):
        verb = phrase.split(" ", 1)[0]
        same = before.split(" ", 1)[0] == verb and verb == shortened[0].split(" ", 1)[0]
        shortened.append(phrase.split(" ", 1)[1] if same else phrase)
    return f"I can {_listed(shortened, 'or')}."


def abilities(tools: Sequence[str]) -> list[str]:
    """Each tool's ability, capitalized, for a list."""
    return [_capital(ABILITIES[name]) for name in tools if name in ABILITIES]


def describe_call(tool: str, arguments: Any) -> str:
    """What calling `tool` with `arguments` will do, as an imperative sentence without its
    full stop ("Switch the theme to dark")."""
    args = arguments if isinstance(arguments, Mapping) else {}
    describe = _CALLS.get(tool)
    said = None
    if describe is not None:
        try:
            said = describe(args)
        except (KeyError, TypeError, ValueError, AttributeError):
            said = None
    return _capital(said or f"change a setting ({ABILITIES.get(tool, 'a settings tool')})")


def call_summary(tool: str, arguments: Any) -> str | None:
    """`describe_call` for a settings tool; None for any other tool (its card shows its
    arguments)."""
    return describe_call(tool, arguments) if tool in ABILITIES else None


def describe_result(tool: str, arguments: Any, result: Any) -> str:
    """What a settings tool did, as sentences: its result's own `summary` when it has one."""
    if isinstance(result, Mapping) and isinstance(result.get("summary"), str):
        return str(result["summary"])
    return summarize(tool, arguments, result)


def with_summary(tool: str, arguments: Any, result: dict[str, Any]) -> dict[str, Any]:
    """`result` with its `summary`: what the tool did, in sentences (lines for a list)."""
    shown = arguments.model_dump(mode="json") if hasattr(arguments, "model_dump") else arguments
    return {**result, "summary": summarize(tool, shown, result)}


def summarize(tool: str, arguments: Any, result: Any) -> str:
    """The `summary` a settings tool's result carries (see `describe_result`)."""
    args = arguments if isinstance(arguments, Mapping) else {}
    found = result if isinstance(result, Mapping) else {}
    try:
        if tool == "settings.show":
            return "\n".join(describe_settings(found.get("value"), found.get("path")))
        if tool == "rules.list":
            return "\n".join(_rules_listed(found.get("rules")))
        if tool == "rules.create":
            rule = found.get("rule") or {}
            return f"Created the event rule {rule.get('id', '')}: {_rule_words(rule)}."
        if tool == "rules.delete":
            return f"Deleted the event rule {(found.get('deleted') or {}).get('id', '')}."
        if tool == "policy.forget_decision" and found.get("forgotten"):
            forgotten = found["forgotten"]
            what = f"{forgotten.get('decision')} {forgotten.get('tool')}"
            return f"Forgot the remembered decision ({what}): Laika asks again next time."
        state = _STATES[tool](args)
    except (KeyError, TypeError, ValueError, AttributeError):
        return "Done."
    if "change" in found and found.get("change") is None:
        return f"Nothing to change: {state}."
    return f"Done: {state}."


# --- calls -------------------------------------------------------------------------------


def _theme_call(args: Mapping[str, Any]) -> str:
    theme = args["theme"]
    return "follow your system's theme" if theme == "system" else f"switch the theme to {theme}"


def _provider_call(args: Mapping[str, Any]) -> str:
    return f"answer with {_provider(args['provider'])} by default"


def _redaction_call(args: Mapping[str, Any]) -> str:
    added, removed = args.get("add_secret_names") or [], args.get("remove_secret_names") or []
    parts = []
    if added:
        parts.append(f"hide the values named {_listed(added, 'and')} as secrets")
    if removed:
        parts.append(f"stop hiding the values named {_listed(removed, 'and')}")
    return " and ".join(parts)


def _allow_call(args: Mapping[str, Any]) -> str:
    return f"let the model {_allowed(args.get('tools'))} on {args['domain']} without asking"


def _show_call(args: Mapping[str, Any]) -> str:
    path = args.get("path")
    return "show your settings" if not path else f"show {_SECTION_NAMES.get(path, path)}"


def _rule_create_call(args: Mapping[str, Any]) -> str:
    return f"create an event rule: {_rule_words(args)}"


_Words = Callable[[Mapping[str, Any]], str]
_CALLS: dict[str, _Words] = {
    "settings.set_capture_limit": lambda a: (
        f"set the maximum capture length to {int(a['max_chars']):,} characters"
    ),
    "settings.set_default_collection": lambda a: (
        f"send new captures to the collection \u201c{a['collection']}\u201d"
    ),
    "settings.set_theme": _theme_call,
    "settings.set_citations": lambda a: (
        f"{'show' if a['show'] else 'hide'} the citations under answers"
    ),
    "settings.set_default_provider": _provider_call,
    "settings.set_redaction": _redaction_call,
    "settings.set_preference": lambda a: f"remember that your {a['key']} is {_value(a['value'])}",
    "settings.forget_preference": lambda a: f"forget your preference {a['key']}",
    "settings.show": _show_call,
    "policy.allow_domain": _allow_call,
    "policy.forget_decision": lambda a: f"forget the decision or rule {a['rule_id']}",
    "rules.create": _rule_create_call,
    "rules.delete": lambda a: f"delete the event rule {a['id']}",
    "rules.list": lambda _a: "list your event rules",
}


# --- states (what is so once a call ran) ---------------------------------------------------


def _theme_state(args: Mapping[str, Any]) -> str:
    theme = args["theme"]
    return "the theme follows your system" if theme == "system" else f"the theme is {theme}"


def _redaction_state(args: Mapping[str, Any]) -> str:
    added, removed = args.get("add_secret_names") or [], args.get("remove_secret_names") or []
    parts = []
    if added:
        parts.append(f"values named {_listed(added, 'and')} are hidden as secrets")
    if removed:
        parts.append(f"values named {_listed(removed, 'and')} are not hidden")
    return "; ".join(parts)


_STATES: dict[str, _Words] = {
    "settings.set_capture_limit": lambda a: (
        f"captured pages keep at most {int(a['max_chars']):,} characters"
    ),
    "settings.set_default_collection": lambda a: (
        f"new captures go to the collection \u201c{a['collection']}\u201d"
    ),
    "settings.set_theme": _theme_state,
    "settings.set_citations": lambda a: (
        f"citations are {'shown' if a['show'] else 'hidden'} under answers"
    ),
    "settings.set_default_provider": lambda a: (
        f"answers come from {_provider(a['provider'])} by default"
    ),
    "settings.set_redaction": _redaction_state,
    "settings.set_preference": lambda a: f"your {a['key']} is {_value(a['value'])}",
    "settings.forget_preference": lambda a: f"your preference {a['key']} is forgotten",
    "policy.allow_domain": lambda a: (
        f"the model may {_allowed(a.get('tools'))} on {a['domain']} without asking"
    ),
    "policy.forget_decision": lambda a: f"the rule {a['rule_id']} is forgotten: Laika asks again",
}


# --- the settings ------------------------------------------------------------------------

_SECTION_NAMES = {
    "providers": "the model providers",
    "providers.default": "the default model provider",
    "capture": "the capture settings",
    "capture.max_chars": "the maximum capture length",
    "capture.default_collection": "the default collection",
    "redaction": "the names hidden as secrets",
    "redaction.extra_secret_names": "the names hidden as secrets",
    "ui": "the side panel's settings",
    "ui.theme": "the theme",
    "ui.show_citations": "whether citations are shown",
    "policy": "the sites allowed without asking",
    "policy.rules": "the sites allowed without asking",
    "events": "your event rules",
    "events.rules": "your event rules",
    "user": "your preferences",
    "user.preferences": "your preferences",
}


def describe_settings(value: Any, path: str | None = None) -> list[str]:
    """The settings (the whole document, or the value at `path`) as sentences, one per
    line."""
    try:
        if not path:
            return _whole(value)
        return _section(path, value)
    except (KeyError, TypeError, ValueError, AttributeError):
        return [f"{_capital(_SECTION_NAMES.get(path or '', path or 'settings'))}: {_value(value)}."]


def _whole(document: Mapping[str, Any]) -> list[str]:
    return [
        *_section("providers", document["providers"]),
        *_section("capture", document["capture"]),
        *_section("ui", document["ui"]),
        *_section("redaction", document["redaction"]),
        *_section("policy", document["policy"]),
        *_section("events", document["events"]),
        *_section("user", document["user"]),
    ]


def _section(path: str, value: Any) -> list[str]:
    parent, _, leaf = path.rpartition(".")
    if parent:  # one setting: as its section would say it
        lines = _SECTIONS.get(parent)
        if lines is not None and leaf in _LEAVES.get(parent, ()):
            return lines({leaf: value}, leaf)
        if path in ("policy.rules", "events.rules"):
            return _SECTIONS[parent]({"rules": value}, "")
        if path == "user.preferences":
            return _SECTIONS["user"]({"preferences": value}, "")
        return [f"{_capital(_SECTION_NAMES.get(path, path))}: {_value(value)}."]
    lines = _SECTIONS.get(path)
    if lines is None:
        return [f"{_capital(path)}: {_value(value)}."]
    return lines(value, "")


_LEAVES = {
    "providers": ("default",),
    "capture": ("max_chars", "default_collection", "allow_private_addresses"),
    "ui": ("theme", "show_citations"),
    "redaction": ("extra_secret_names",),
}


def _providers(value: Mapping[str, Any], only: str) -> list[str]:
    default = value.get("default")
    if default:
        first = f"Answers come from {_provider(default)} by default."
    else:
        first = (
            "No default model provider is set: answers come from the first one configured, "
            "else the offline runtime."
        )
    if only == "default":
        return [first]
    ids = [str(item.get("id")) for item in value.get("items") or [] if isinstance(item, Mapping)]
    listed = _listed(_some(ids), "and") if ids else "none yet (`laika models add` adds one)"
    return [first, f"Model providers: {listed}."]


def _capture(value: Mapping[str, Any], only: str) -> list[str]:
    lines = []
    if only in ("", "max_chars"):
        lines.append(f"Captured pages keep at most {int(value['max_chars']):,} characters.")
    if only in ("", "default_collection"):
        lines.append(
            f"New captures go to the collection \u201c{value['default_collection']}\u201d."
        )
    if only == "allow_private_addresses":
        may = "may" if value["allow_private_addresses"] else "may not"
        lines.append(f"Pages you capture yourself {may} be on your own machine or network.")
    return lines


def _ui(value: Mapping[str, Any], only: str) -> list[str]:
    lines = []
    if only in ("", "theme"):
        lines.append(f"{_capital(_theme_state({'theme': value['theme']}))}.")
    if only in ("", "show_citations"):
        lines.append(f"Citations are {'shown' if value['show_citations'] else 'hidden'}.")
    return lines


def _redaction(value: Mapping[str, Any], only: str) -> list[str]:
    del only
    names = [str(name) for name in value["extra_secret_names"]]
    if not names:
        return ["No extra names are hidden as secrets (the built-in rules still apply)."]
    return [f"Also hidden as secrets: values named {_listed(_some(names), 'and')}."]


def _policy(value: Mapping[str, Any], only: str) -> list[str]:
    del only
    rules = [r for r in value["rules"] if isinstance(r, Mapping)]
    if not rules:
        return ["No site is allowed without asking."]
    shown = [str(rule.get("id")) for rule in rules]
    return [f"Your policy rules: {_listed(_some(shown), 'and')}."]


def _events(value: Mapping[str, Any], only: str) -> list[str]:
    del only
    return _rules_listed(value["rules"])


def _user(value: Mapping[str, Any], only: str) -> list[str]:
    del only
    preferences = value["preferences"]
    if not preferences:
        return ["No preferences saved."]
    pairs = [f"{key} is {_value(item)}" for key, item in preferences.items()]
    return [f"Your preferences: {_listed(_some(pairs), 'and')}."]


_SECTIONS: dict[str, Callable[[Mapping[str, Any], str], list[str]]] = {
    "providers": _providers,
    "capture": _capture,
    "ui": _ui,
    "redaction": _redaction,
    "policy": _policy,
    "events": _events,
    "user": _user,
}


def _rules_listed(rules: Any) -> list[str]:
    found = [r for r in rules or [] if isinstance(r, Mapping)]
    if not found:
        return ["You have no event rules."]
    lines = [f"You have {len(found)} event rule{'s' if len(found) != 1 else ''}:"]
    for rule in found[:MAX_SHOWN]:
        off = "" if rule.get("enabled", True) else " (turned off)"
        lines.append(f"- {rule.get('id')}: {_rule_words(rule)}{off}")
    if len(found) > MAX_SHOWN:
        lines.append(f"- and {len(found) - MAX_SHOWN} more")
    return lines


def _rule_words(rule: Mapping[str, Any]) -> str:
    """ "when a page is captured, add it to Research and run key-takeaways" """
    when = _TRIGGERS.get(str(rule.get("trigger")), f"{rule.get('trigger')} happens")
    conditions = rule.get("conditions") or {}
    if isinstance(conditions, Mapping):
        if conditions.get("domain"):
            when += f" from {_listed(_some(conditions['domain']), 'or')}"
        if conditions.get("collection"):
            when += f" into {_listed(_some(conditions['collection']), 'or')}"
        if conditions.get("contains"):
            when += f" containing \u201c{conditions['contains']}\u201d"
    actions = []
    for action in rule.get("actions") or []:
        params = action.get("params") or {} if isinstance(action, Mapping) else {}
        target = params.get("collectionId")
        shown = "its collection" if str(target).startswith("$event.") else target
        if action.get("tool") == "collection.add_sources":
            actions.append(f"add it to {shown}")
        elif action.get("tool") == "transform.run":
            actions.append(f"run {params.get('type')} on {shown}")
        else:
            actions.append(f"run {action.get('tool')}")
    return f"when {when}, {_listed(actions, 'and') if actions else 'do nothing'}"


# --- small words -------------------------------------------------------------------------


def _provider(provider: Any) -> str:
    return "the offline runtime (no model)" if provider == "offline" else str(provider)


def _allowed(tools: Any) -> str:
    names = tools if isinstance(tools, list) and tools else list(_URL_TOOLS)
    verbs = list(dict.fromkeys(_URL_TOOLS.get(str(name), str(name)) for name in names))
    return f"{_listed(verbs, 'and')} pages"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return _listed([_value(item) for item in _some(value)], "and") if value else "none"
    if isinstance(value, Mapping):
        pairs = [f"{key} {_value(item)}" for key, item in list(value.items())[:MAX_SHOWN]]
        return "; ".join(pairs) if pairs else "none"
    return "none" if value is None else str(value)


def _some(items: Sequence[Any]) -> list[Any]:
    shown = list(items[:MAX_SHOWN])
    if len(items) > MAX_SHOWN:
        shown.append(f"{len(items) - MAX_SHOWN} more")
    return shown


def _listed(items: Sequence[Any], joiner: str) -> str:
    words = [str(item) for item in items]
    if len(words) <= 2:
        return f" {joiner} ".join(words)
    return f"{', '.join(words[:-1])}, {joiner} {words[-1]}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
