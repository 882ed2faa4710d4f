"""The offline matcher's phrasings for event rules: list them, delete one by its id, and
create one from a sentence such as "when a page from example.org is captured into Inbox,
add it to Research and run key-takeaways".

A sentence becomes a rule only when every part of it is understood: a trigger, conditions
from a fixed vocabulary (a domain, a collection, "containing" words), and actions each of
which is "add it to COLLECTION" or "run TYPE [on COLLECTION]" with a known transform type.
Anything else is left to the other phrasings (and so usually declined): a rule half
understood would run something the user did not ask for. Linear in the text: each step is a
`str.find` or one pass over the words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

RuleCall = tuple[str, dict[str, Any]]
"""A tool name and its arguments (`intent.Intent` wraps it)."""

_OPENERS = ("whenever ", "when ", "every time ", "each time ", "once ", "after ")
_THEN = (", then ", " then ", ", ")
_TRIGGERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("source.capture_failed", ("fails", "failed", "cannot be captured", "can't be captured")),
    ("collection.created", ("collection is created", "collection is made", "new collection")),
    ("artifact.completed", ("is completed", "completes", "finishes", "is finished", "is done")),
    ("chat.answered", ("is answered", "answers", "an answer", "i ask")),
    ("source.captured", ("captured", "capture ", "saved", "save ")),
)
"""First match wins: the failure before the plain capture, whose words it shares."""
_IN = (" into ", " in ", " to ")
_CONTAINING = (" containing ", " mentioning ", " that mentions ", " about ")
_ADD = (
    "add it to ",
    "add them to ",
    "copy it to ",
    "file it in ",
    "file it under ",
    "also add it to ",
)
_RUN = ("run ", "make ", "make a ", "make an ", "build ", "build a ", "create a ", "create an ")
_LIST_WORDS = ("list", "show", "which", "what", "display")
_DELETE_WORDS = ("delete", "remove", "drop")


def list_or_delete(
    words: Sequence[str], raw: Sequence[str], rule_ids: Sequence[str]
) -> RuleCall | None:
    """`rules.delete` for a delete naming an existing rule's id; `rules.list` for a question
    about event rules (rules, automations) that names no policy."""
    vocabulary = set(words)
    if vocabulary & set(_DELETE_WORDS):
        named = [word for word in raw if word in rule_ids]
        return ("rules.delete", {"id": named[-1]}) if named else None
    about_rules = bool(vocabulary & {"automation", "automations"}) or (
        bool(vocabulary & {"rule", "rules"}) and bool(vocabulary & {"event", "events"})
    )
    if about_rules and vocabulary & set(_LIST_WORDS) and "policy" not in vocabulary:
        return ("rules.list", {})
    return None


def create(original: str, transform_types: Sequence[str], domain_of: Any) -> RuleCall | None:
    """`rules.create` when the whole sentence is understood, else None (see the module)."""
    lower = original.lower().strip().rstrip(".!")
    arguments = _understood(lower, transform_types, domain_of)
    if arguments is None:
        return None
    return ("rules.create", _cased(arguments, lower, original.strip().rstrip(".!")))


def _understood(
    lower: str, transform_types: Sequence[str], domain_of: Any
) -> dict[str, Any] | None:
    opener = next((o for o in _OPENERS if lower.startswith(o)), None)
    if opener is None:
        return None
    when, actions_text = _split_clauses(lower[len(opener) :])
    if not actions_text:
        return None
    trigger = _trigger(when)
    if trigger is None:
        return None
    conditions = _conditions(when, domain_of)
    actions = _actions(actions_text, trigger, transform_types)
    if not actions:
        return None
    arguments: dict[str, Any] = {"trigger": trigger, "actions": actions}
    if conditions:
        arguments["conditions"] = conditions
    return arguments


def _cased(arguments: dict[str, Any], lower: str, original: str) -> dict[str, Any]:
    """Collection names and "containing" words as the user wrote them (found in lowercase);
    kept lowercase when lowercasing changed the text's length (a few scripts do)."""
    if len(lower) != len(original):
        return arguments

    def cased(name: str, last: bool = False) -> str:
        at = lower.rfind(name) if last else lower.find(name)  # actions come after the "when"
        return original[at : at + len(name)] if at >= 0 else name

    conditions = arguments.get("conditions", {})
    if "collection" in conditions:
        conditions["collection"] = [cased(name) for name in conditions["collection"]]
    if "contains" in conditions:
        conditions["contains"] = cased(conditions["contains"])
    for action in arguments["actions"]:
        params = action["params"]
        if not params["collectionId"].startswith("$event."):
            params["collectionId"] = cased(params["collectionId"], last=True)
    return arguments


def _split_clauses(text: str) -> tuple[str, str]:
    for separator in _THEN:
        at = text.find(separator)
        if at > 0:
            return text[:at], text[at + len(separator) :].strip()
    return text, ""


def _trigger(when: str) -> str | None:
    for name, phrases in _TRIGGERS:
        if any(phrase in when + " " for phrase in phrases):
            return name
    return None


def _conditions(when: str, domain_of: Any) -> dict[str, Any]:
    conditions: dict[str, Any] = {}
    domains = [d for d in (domain_of(word) for word in when.split()) if d]
    if domains:
        conditions["domain"] = domains[:10]
    collection = _name_after(when, _IN)
    if collection and domain_of(collection) is None:
        # "into my inbox" names Inbox, "into my notes" may name My Notes: either holds
        bare = collection.removeprefix("my ")
        conditions["collection"] = list(dict.fromkeys([bare, collection]))
    contained = _name_after(when, _CONTAINING)
    if contained:
        conditions["contains"] = contained
    return conditions


def _name_after(text: str, markers: Sequence[str]) -> str | None:
    """The words after the last marker: a quoted phrase, or up to the next marker or verb
    of the clause, without a leading "the" or a trailing "collection"."""
    start, marker = max((text.rfind(m) + len(m), m) for m in markers)
    if start < len(marker):  # no marker found
        return None
    name = text[start:]
    if name[:1] in "\"'":
        closing = name.find(name[0], 1)
        return name[1:closing] if closing > 1 else None
    for stop in (*_CONTAINING, *_IN, " from ", " is ", " are ", " gets ", " get ", " was "):
        at = name.find(stop)
        if at >= 0:
            name = name[:at]
    name = name.removeprefix("the ").removesuffix(" collection").strip(" ,.\"'")
    return name if 0 < len(name) <= 200 else None


def _actions(text: str, trigger: str, transform_types: Sequence[str]) -> list[dict[str, Any]]:
    """Each clause joined by "and"/"then"/"," must be understood, or no rule is made."""
    parts = [
        p.strip() for p in text.replace(" then ", " and ").replace(", ", " and ").split(" and ")
    ]
    actions: list[dict[str, Any]] = []
    target = "$event.collection_id"
    for part in (p.removeprefix("also ").removeprefix("then ") for p in parts if p.strip()):
        added = _added_to(part, trigger)
        if added is not None:
            target = added["params"]["collectionId"]
            actions.append(added)
            continue
        run = _run(part, target, transform_types)
        if run is None:
            return []
        actions.append(run)
    return actions[:20]


def _added_to(part: str, trigger: str) -> dict[str, Any] | None:
    marker = next((m for m in _ADD if part.startswith(m)), None)
    if marker is None or trigger != "source.captured":
        return None
    name = part[len(marker) :].strip(" .\"'").removesuffix(" collection")
    for filler in ("the ", "my "):
        name = name.removeprefix(filler)
    if not 0 < len(name) <= 200:
        return None
    source = {"type": "url", "url": "$event.url"}
    params = {"collectionId": name, "sources": [source]}
    return {"tool": "collection.add_sources", "params": params}


def _run(part: str, target: str, transform_types: Sequence[str]) -> dict[str, Any] | None:
    marker = max((m for m in _RUN if part.startswith(m)), key=len, default=None)
    if marker is None:
        return None
    rest = part[len(marker) :]
    kind, _, where = rest.partition(" on ")
    kind = kind.strip(" .\"'").replace(" ", "-")
    if kind not in transform_types:
        return None
    collection = where.strip(" .\"'").removeprefix("the ") if where.strip() else target
    return {"tool": "transform.run", "params": {"collectionId": collection, "type": kind}}
